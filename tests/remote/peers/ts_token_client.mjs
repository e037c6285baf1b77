// One prompt to a remote agent through the official TypeScript SDK's client, sending a bearer
// token: `node ts_token_client.mjs URL TOKEN` prints {"agent", "chunks", "stopReason"}.
// http:// goes over experimental/http-client, ws:// over experimental/ws-client, both with
// `headers: {Authorization: "Bearer TOKEN"}`. The SDK is tests/interop's (npm ci there).
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(path.join(here, "..", "..", "interop", "package.json"));
const load = (name) => import(pathToFileURL(require.resolve(name)).href);

const [url, token] = process.argv.slice(2);
const headers = { Authorization: `Bearer ${token}` };
const acp = await load("@agentclientprotocol/sdk");
let stream;
if (url.startsWith("ws://")) {
  const { createWebSocketStream } = await load("@agentclientprotocol/sdk/experimental/ws-client");
  const WebSocket = (await load("ws")).default; // Node 20 has no global WebSocket
  stream = createWebSocketStream(url, { WebSocket, headers });
} else {
  const { createHttpStream } = await load("@agentclientprotocol/sdk/experimental/http-client");
  stream = createHttpStream(url, { headers });
}

const chunks = [];
const app = acp
  .client({ name: "ts-token-client" })
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk") chunks.push(params.update.content.text);
  });
const report = {};
await app.connectWith(stream, async (agent) => {
  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: {},
    clientInfo: { name: "ts-token-client", version: "1" },
  });
  report.agent = init.agentInfo?.name ?? null;
  const { sessionId } = await agent.request(acp.methods.agent.session.new, { cwd: "/tmp", mcpServers: [] });
  const answer = await agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "hi" }],
  });
  report.stopReason = answer.stopReason;
});
report.chunks = chunks;
console.log(JSON.stringify(report));
process.exit(0);
