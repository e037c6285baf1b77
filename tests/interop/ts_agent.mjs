// An ACP agent built on the official TypeScript SDK, for the interop tests (see scenario.md).
import * as acp from "@agentclientprotocol/sdk";
import { Readable, Writable } from "node:stream";

const waiting = new Map(); // sessionId -> resolve() of a "wait" prompt

function chunk(client, sessionId, text) {
  return client.notify(acp.methods.client.session.update, {
    sessionId,
    update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text } },
  });
}

async function prompt({ params, client }) {
  const sessionId = params.sessionId;
  for (const block of params.prompt) {
    const text = block.type === "text" ? block.text : `[${block.type}]`;
    if (text.startsWith("read:")) {
      const file = await client.request(acp.methods.client.fs.readTextFile, { sessionId, path: text.slice(5) });
      await chunk(client, sessionId, file.content);
    } else if (text === "permission") {
      const answer = await client.request(acp.methods.client.session.requestPermission, {
        sessionId,
        toolCall: { toolCallId: "call-1", title: "Write /tmp/x" },
        options: [
          { optionId: "deny", name: "Deny", kind: "reject_once" },
          { optionId: "allow", name: "Allow", kind: "allow_once" },
        ],
      });
      const outcome = answer.outcome.outcome === "selected" ? answer.outcome.optionId : "cancelled";
      await chunk(client, sessionId, `outcome: ${outcome}`);
    } else if (text === "ext") {
      const answer = await client.request("_interop/echo", { n: 1 });
      await chunk(client, sessionId, `ext: ${answer.echo.n}`);
    } else if (text === "auth") {
      throw acp.RequestError.authRequired();
    } else if (text === "meta") {
      await chunk(client, sessionId, `meta: ${params._meta?.trace}`);
      return { stopReason: "end_turn", _meta: { echo: params._meta } };
    } else if (text === "wait") {
      await chunk(client, sessionId, "waiting");
      await new Promise((resolve) => waiting.set(sessionId, resolve));
      return { stopReason: "cancelled" };
    } else {
      await chunk(client, sessionId, text);
    }
  }
  return { stopReason: "end_turn" };
}

const app = acp
  .agent({ name: "ts-interop-agent" })
  .onRequest(acp.methods.agent.initialize, () => ({
    protocolVersion: 1,
    agentCapabilities: { loadSession: false },
    agentInfo: { name: "ts-interop-agent", version: "2.4.0" },
  }))
  .onRequest(acp.methods.agent.session.new, () => ({ sessionId: "ts-session" }))
  .onRequest(acp.methods.agent.session.prompt, prompt)
  .onNotification(acp.methods.agent.session.cancel, ({ params }) => {
    waiting.get(params.sessionId)?.();
    waiting.delete(params.sessionId);
  })
  .onRequest("_interop/echo", (params) => params, ({ params }) => ({ echo: params }))
  .onRequest("_interop/hang", (params) => params, ({ signal }) =>
    new Promise((_, reject) => {
      if (signal.aborted) reject(signal.reason); // cancelled before this handler ran
      signal.addEventListener("abort", () => reject(signal.reason));
    }),
  );

if (process.argv[2] === "--listen-fd") {
  // Remote: `node ts_agent.mjs --listen-fd FD` serves Streamable HTTP and WebSocket at /acp on the
  // inherited listening socket FD, with the SDK's experimental server; prints "ready".
  const { AcpServer } = await import("@agentclientprotocol/sdk/experimental/server");
  const { createNodeHttpHandler, createNodeWebSocketUpgradeHandler } = await import(
    "@agentclientprotocol/sdk/experimental/node"
  );
  const { WebSocketServer } = await import("ws");
  const http = await import("node:http");
  const server = new AcpServer({ agent: app });
  const httpServer = http.createServer(createNodeHttpHandler(server));
  httpServer.on("upgrade", createNodeWebSocketUpgradeHandler(server, new WebSocketServer({ noServer: true })));
  httpServer.listen({ fd: Number(process.argv[3]) }, () => process.stdout.write("ready\n"));
} else {
  const stream = acp.ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin));
  const connection = app.connect(stream);
  await connection.closed;
}
