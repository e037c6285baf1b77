// An echo agent built on the official TypeScript SDK, serving ACP v1 and v2 behind the SDK's
// protocol router (agentProtocolRouter): the version is the one the client's initialize asks for.
// Prompt "wait" streams "waiting" and holds the turn until session/cancel. See test_typescript_v2.py.
import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { Readable, Writable } from "node:stream";

const INFO = { name: "ts-router-agent", version: "2.4.0" };
const waiting = new Map(); // sessionId -> resolve() of a "wait" prompt
const texts = (prompt) => prompt.map((block) => (block.type === "text" ? block.text : `[${block.type}]`));
const cancelled = ({ params }) => waiting.get(params.sessionId)?.();

const agentV1 = v1
  .agent({ name: INFO.name })
  .onRequest(v1.methods.agent.initialize, () => ({
    protocolVersion: 1,
    agentCapabilities: {},
    agentInfo: INFO,
  }))
  .onRequest(v1.methods.agent.session.new, () => ({ sessionId: "ts-v1-session" }))
  .onRequest(v1.methods.agent.session.prompt, async ({ params, client }) => {
    for (const text of texts(params.prompt)) {
      await client.notify(v1.methods.client.session.update, {
        sessionId: params.sessionId,
        update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: text === "wait" ? "waiting" : text } },
      });
      if (text === "wait") {
        await new Promise((resolve) => waiting.set(params.sessionId, resolve));
        return { stopReason: "cancelled" };
      }
    }
    return { stopReason: "end_turn" };
  })
  .onNotification(v1.methods.agent.session.cancel, cancelled);

let messages = 0;
const agentV2 = v2
  .agent({ name: INFO.name })
  .onRequest(v2.methods.agent.initialize, () => ({ protocolVersion: 2, info: INFO, capabilities: { session: {} } }))
  .onRequest(v2.methods.agent.session.new, () => ({ sessionId: "ts-v2-session" }))
  .onRequest(v2.methods.agent.session.list, () => ({ sessions: [] }))
  .onRequest(v2.methods.agent.session.resume, () => ({}))
  .onRequest(v2.methods.agent.session.close, () => ({}))
  .onRequest(v2.methods.agent.session.prompt, async ({ params, client }) => {
    const sessionId = params.sessionId;
    const update = (update) => client.notify(v2.methods.client.session.update, { sessionId, update });
    const userId = `user-${++messages}`;
    const agentId = `agent-${messages}`;
    // the user message before the answer; the rest of the turn after it, as a real agent streams
    await update({ sessionUpdate: "user_message", messageId: userId, content: params.prompt });
    setImmediate(() => finish().catch((e) => console.error(e))); // the client may be gone: nothing to report to
    async function finish() {
      await update({ sessionUpdate: "state_update", state: "running" });
      for (const text of texts(params.prompt)) {
        await update({
          sessionUpdate: "agent_message_chunk",
          messageId: agentId,
          content: { type: "text", text: text === "wait" ? "waiting" : text },
        });
        if (text === "wait") {
          await new Promise((resolve) => waiting.set(sessionId, resolve));
          await update({ sessionUpdate: "state_update", state: "idle", stopReason: "cancelled" });
          return;
        }
      }
      await update({ sessionUpdate: "state_update", state: "idle", stopReason: "end_turn" });
    }
    return { messageId: userId };
  })
  .onNotification(v2.methods.agent.session.cancel, cancelled);

const stream = v1.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
await v2.agentProtocolRouter().withV1(agentV1).withV2(agentV2).connect(stream).closed;
