// An ACP agent on the official TypeScript SDK 2.4.0 whose McpOverAcpCaller calls the acp MCP
// servers its client declared: on each prompt, tools/list then tools/call "echo" on each, and
// reports what came back (and each progress notification) as agent_message_chunk text.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { Readable, Writable } from "node:stream";

const caller = new acp.McpOverAcpCaller({ clientInfo: { name: "ts-mcp-agent", version: "2.4.0" } });
const sessions = new Map();

function say(client, sessionId, text) {
  return client.notify(acp.methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  });
}

const app = acp
  .agent({ name: "ts-mcp-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: 1,
    agentCapabilities: { mcpCapabilities: { acp: true } },
  }))
  .onRequest(acp.methods.agent.session.new, ({ params }) => {
    sessions.set("ts-session", params.mcpServers.filter(acp.isMcpServerAcp));
    return { sessionId: "ts-session" };
  })
  .onNotification(acp.methods.agent.mcp.message, caller.handleNotification)
  .onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    for (const server of sessions.get(params.sessionId) ?? []) {
      const listed = await caller.request(client, server.serverId, "tools/list", {});
      await say(client, params.sessionId, `tools: ${listed.result.tools.map((t) => t.name).join(",")}`);
      const called = await caller.request(
        client,
        server.serverId,
        "tools/call",
        { name: "echo", arguments: { text: "from ts" } },
        { onNotification: (n) => say(client, params.sessionId, `note: ${n.method}`) },
      );
      await say(client, params.sessionId, `echo: ${called.result.content[0].text}`);
      const missing = await caller.request(client, "no-such-server", "tools/list", {}).catch((e) => e);
      await say(client, params.sessionId, `unknown: ${missing.code}`);
    }
    return { stopReason: "end_turn" };
  });

const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
await app.connect(stream).closed;
