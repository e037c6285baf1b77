// The TypeScript SDK's own v2 client reading recorded v2 turns: `node ts_fold_v2.mjs TURNS.json`,
// where the file holds {"turns": [[update, ...], ...]}. For each turn, in a session of its own, an
// in-process SDK agent answers one prompt by sending the turn's updates; the SDK client's
// ActiveSession reads them (readTextUntilIdle: agent text, chunks appended and whole-message
// upserts replacing by messageId; canCancelToolCall / canCancelTerminal: the capabilities patched
// by id) and this prints what it folded, one JSON report per turn.
import { readFileSync } from "node:fs";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";

const { turns } = JSON.parse(readFileSync(process.argv[2], "utf8"));
const INFO = { name: "ts-fold", version: "2.4.0" };
let sessions = 0;

const agent = v2
  .agent({ name: INFO.name })
  .onRequest(v2.methods.agent.initialize, () => ({ protocolVersion: 2, info: INFO, capabilities: { session: {} } }))
  .onRequest(v2.methods.agent.session.new, () => ({ sessionId: `s${sessions++}` }))
  .onRequest(v2.methods.agent.session.list, () => ({ sessions: [] }))
  .onRequest(v2.methods.agent.session.resume, () => ({}))
  .onRequest(v2.methods.agent.session.close, () => ({}))
  .onRequest(v2.methods.agent.session.prompt, async ({ params, client }) => {
    const updates = turns[Number(params.sessionId.slice(1))];
    const user = updates.find((update) => update.sessionUpdate === "user_message");
    for (const update of updates) {
      await client.notify(v2.methods.client.session.update, { sessionId: params.sessionId, update });
    }
    return { messageId: user.messageId };
  })
  .onNotification(v2.methods.agent.session.cancel, () => {});

const report = await v2.client({ name: INFO.name }).connectWith(agent, async (ctx) => {
  await ctx.request(v2.methods.agent.initialize, { protocolVersion: 2, info: INFO, capabilities: {} });
  const reports = [];
  for (const updates of turns) reports.push(await turn(ctx, updates));
  return reports;
});
console.log(JSON.stringify(report));

async function turn(ctx, updates) {
  const session = await ctx.buildSession("/tmp").start();
  const { messageId } = await session.prompt("go");
  const text = await session.readTextUntilIdle();
  const toolCalls = Object.fromEntries(
    [...new Set(updates.filter((u) => u.toolCallId).map((u) => u.toolCallId))].map((id) => [
      id,
      session.canCancelToolCall(id),
    ]),
  );
  const terminals = Object.fromEntries(
    [...new Set(updates.filter((u) => u.terminalId).map((u) => u.terminalId))].map((id) => [
      id,
      session.canCancelTerminal(id),
    ]),
  );
  session.dispose();
  return { messageId, text, canCancelToolCall: toolCalls, canCancelTerminal: terminals };
}
