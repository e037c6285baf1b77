// An ACP client on the official TypeScript SDK 2.4.0 whose McpOverAcpProvider serves one MCP server
// ("tools": tools/list, tools/call "echo" with a progress notification) to the agent it spawns
// (argv: the agent's command), declared in session/new. Prints a JSON report of one prompt turn.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";

const [command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
const provider = new acp.McpOverAcpProvider();
const chunks = [];
const seen = [];

async function tools(op) {
  seen.push({ method: op.method, protocolVersion: op.protocolVersion, clientInfo: op.clientInfo });
  if (op.method === "tools/list") {
    return { result: { tools: [{ name: "echo", inputSchema: { type: "object" } }] } };
  }
  if (op.method === "tools/call" && op.params?.name === "echo") {
    await op.notify("notifications/progress", { progressToken: "p", progress: 1 });
    return { result: { content: [{ type: "text", text: `ts echo: ${op.params.arguments.text}` }] } };
  }
  throw new acp.McpProtocolError(-32602, `Unknown tool: ${op.params?.name}`);
}

const app = acp
  .client({ name: "ts-mcp-client" })
  .onRequest(acp.methods.client.mcp.message, provider.handleRequest)
  .onNotification(acp.methods.client.session.update, ({ params }) => {
    if (params.update.sessionUpdate === "agent_message_chunk") chunks.push(params.update.content.text);
  });

const report = {};
await app.connectWith(stream, async (agent) => {
  const init = await agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
  report.acp = init.agentCapabilities?.mcpCapabilities?.acp ?? false;
  const server = provider.registerServer(agent, { name: "tools", handler: tools });
  const { sessionId } = await agent.request(acp.methods.agent.session.new, {
    cwd: "/tmp",
    mcpServers: [server.declaration],
  });
  const answer = await agent.request(acp.methods.agent.session.prompt, {
    sessionId,
    prompt: [{ type: "text", text: "use the tools" }],
  });
  report.stopReason = answer.stopReason;
  report.chunks = chunks;
  report.seen = seen;
});
child.stdin.end();
process.stdout.write(JSON.stringify(report) + "\n");
