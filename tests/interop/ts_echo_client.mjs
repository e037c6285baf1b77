// A client built on the official TypeScript SDK that prompts an echo agent once in ACP v1 or v2:
// `node ts_echo_client.mjs VERSION TEXT AGENT_CMD [ARGS...]` prints one JSON report. v1 uses the
// SDK's stable client (the turn ends with the prompt's answer); v2 its experimental v2 client and
// ActiveSession (the answer carries the user message's id, the turn ends with an idle state_update).
import * as v1 from "@agentclientprotocol/sdk";
import * as v2 from "@agentclientprotocol/sdk/experimental/v2";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const [version, text, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const stream = v1.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const INFO = { name: "ts-echo-client", version: "2.4.0" };
let report;

if (version === "1") {
  const chunks = [];
  const app = v1.client({ name: INFO.name }).onNotification(v1.methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk") chunks.push(params.update.content.text);
  });
  report = await app.connectWith(stream, async (agent) => {
    const init = await agent.request(v1.methods.agent.initialize, {
      protocolVersion: 1,
      clientCapabilities: {},
      clientInfo: INFO,
    });
    const { sessionId } = await agent.request(v1.methods.agent.session.new, { cwd: process.cwd(), mcpServers: [] });
    const answer = await agent.request(v1.methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
    return { protocolVersion: init.protocolVersion, agent: init.agentInfo, chunks, stopReason: answer.stopReason };
  });
} else {
  report = await v2.client({ name: INFO.name }).connectWith(stream, async (agent) => {
    const init = await agent.request(v2.methods.agent.initialize, { protocolVersion: 2, info: INFO, capabilities: {} });
    const session = await agent.buildSession(process.cwd()).start();
    const { messageId } = await session.prompt(text);
    const kinds = [];
    const chunks = [];
    const userMessages = [];
    let stopReason;
    for (;;) {
      const message = await session.nextUpdate();
      kinds.push(message.update.sessionUpdate + (message.update.state ? `:${message.update.state}` : ""));
      if (message.update.sessionUpdate === "user_message") userMessages.push(message.update.messageId);
      if (message.update.sessionUpdate === "agent_message_chunk") chunks.push(message.update.content.text);
      if (message.kind === "stop") {
        stopReason = message.stopReason;
        break;
      }
    }
    session.dispose();
    return {
      protocolVersion: init.protocolVersion,
      agent: init.info,
      chunks,
      stopReason,
      promptMessageId: messageId,
      userMessages,
      kinds,
    };
  });
}
child.kill();
console.log(JSON.stringify(report));
