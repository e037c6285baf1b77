// An ACP client built on the official TypeScript SDK: runs the interop scenario (see scenario.md)
// against `node ts_client.mjs FILE AGENT_CMD [ARGS...]` and prints one JSON report.
// `node ts_client.mjs FILE URL` runs it against a remote agent: http:// over the SDK's
// experimental Streamable HTTP client, ws:// over its WebSocket client.
import * as acp from "@agentclientprotocol/sdk";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const [file, command, ...args] = process.argv.slice(2);
let child = null;
let stream;
if (command.startsWith("http://")) {
  const { createHttpStream } = await import("@agentclientprotocol/sdk/experimental/http-client");
  stream = createHttpStream(command);
} else if (command.startsWith("ws://")) {
  const { createWebSocketStream } = await import("@agentclientprotocol/sdk/experimental/ws-client");
  const { WebSocket } = await import("ws"); // Node 20 has no global WebSocket
  stream = createWebSocketStream(command, { WebSocket });
} else {
  child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
}

const chunks = [];
let firstChunk = () => {};
const app = acp
  .client({ name: "ts-interop-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk") {
      chunks.push(params.update.content.text);
      firstChunk();
    }
  })
  .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => ({ content: `contents of ${params.path}` }))
  .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
    const allow = params.options.find((option) => option.kind === "allow_once");
    return { outcome: allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" } };
  })
  .onRequest("_interop/echo", (params) => params, ({ params }) => ({ echo: params }));

async function turn(agent, sessionId, text, meta) {
  chunks.length = 0;
  const request = { sessionId, prompt: [{ type: "text", text }] };
  if (meta) request._meta = meta;
  try {
    const answer = await agent.request(acp.methods.agent.session.prompt, request);
    return { stopReason: answer.stopReason, chunks: [...chunks], meta: answer._meta ?? null };
  } catch (error) {
    return { error: error.code, chunks: [...chunks] };
  }
}

const report = {};
await app.connectWith(stream, async (agent) => {
  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true } },
    clientInfo: { name: "ts-interop-client", version: "2.4.0" },
  });
  report.protocolVersion = init.protocolVersion;
  report.agentName = init.agentInfo?.name;
  const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: "/tmp", mcpServers: [] });
  report.echo = await turn(agent, sessionId, "hello");
  report.read = await turn(agent, sessionId, `read:${file}`);
  report.permission = await turn(agent, sessionId, "permission");
  report.ext = await turn(agent, sessionId, "ext");
  report.meta = await turn(agent, sessionId, "meta", { trace: "t1" });
  report.auth = await turn(agent, sessionId, "auth");
  report.extRequest = await agent.request("_interop/echo", { n: 2 });

  chunks.length = 0;
  const started = new Promise((resolve) => (firstChunk = resolve));
  const waiting = turn(agent, sessionId, "wait");
  await started;
  await agent.notify(acp.methods.agent.session.cancel, { sessionId });
  report.cancel = await waiting;

  const abort = new AbortController();
  const hang = agent.request("_interop/hang", {}, { cancellationSignal: abort.signal });
  setTimeout(() => abort.abort(), 50);
  try {
    report.cancelRequest = { result: await hang };
  } catch (error) {
    report.cancelRequest = { error: error.code };
  }
});
if (child) {
  child.stdin.end();
  process.stdout.write(JSON.stringify(report) + "\n");
} else {
  process.stdout.write(JSON.stringify(report) + "\n", () => process.exit(0)); // remote streams stay open
}
