"""The agent of the many-connections and remote benchmarks, on acp_runtime or on the official
Python SDK 1.0.0rc3 (`sdk`: run it with the interpreter of .venv/acp-rc3, see bench/servers.py).

    python many_agent.py runtime|sdk stdio          serve one connection over stdio
    python many_agent.py runtime|sdk listen FD      serve HTTP/1.1, h2c and WebSocket (Hypercorn)
                                                    on the inherited listening socket FD

Each `session/new` gets a session id of its own; a prompt `stream N` sends N agent_message_chunk
updates, then ends the turn; any other prompt (`ping`) ends the turn at once. Both run on the
plain asyncio loop, under the same Hypercorn settings.
"""

from __future__ import annotations

import asyncio
import itertools
import socket
import sys
from typing import Any

_ids = itertools.count()


def hypercorn_config(fd: int) -> Any:
    from hypercorn.config import Config

    cfg = Config()
    cfg.bind = [f"fd://{socket.socket(fileno=fd).detach()}"]
    cfg.backlog = 4096
    cfg.keep_alive_timeout = 75.0
    # as acp_runtime.http.serve: past Hypercorn's default 1,000 requests an HTTP/2 connection
    # gets GOAWAY with a request in flight, and either client loses that request
    cfg.keep_alive_max_requests = sys.maxsize
    cfg.accesslog = None
    cfg.errorlog = "-"
    cfg.loglevel = "WARNING"
    return cfg


def runtime(mode: str, fd: int) -> None:
    import acp_schema as acp
    from acp_runtime import run_agent

    class BenchAgent(acp.AgentHandler):
        def __init__(self, conn: Any) -> None:
            self.client = conn.client

        async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
            return acp.InitializeResponse(
                protocol_version=params.protocol_version,
                agent_capabilities=acp.AgentCapabilities(),
            )

        async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
            return acp.NewSessionResponse(session_id=f"s{next(_ids)}")

        async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
            command = params.prompt[0].text
            if command.startswith("stream "):
                notify, sid = self.client.session_update, params.session_id
                for i in range(int(command[7:])):
                    chunk = acp.SessionUpdateAgentMessageChunk(
                        content=acp.TextContent(text=f"token {i} of the answer, ")
                    )
                    await notify(acp.SessionNotification(session_id=sid, update=chunk))
            return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)

    if mode == "stdio":
        run_agent(BenchAgent)
        return
    from hypercorn.asyncio import serve

    from acp_runtime.http import AcpApp

    app = AcpApp(BenchAgent, max_connections=1 << 20)  # the SDK's server has no cap (ours: 256)
    print("ready", flush=True)
    asyncio.run(serve(app, hypercorn_config(fd)))  # type: ignore[arg-type]


def sdk(mode: str, fd: int) -> None:
    import acp
    from acp.schema import AgentCapabilities, AgentMessageChunk, TextContentBlock

    class BenchAgent:
        def __init__(self, conn: Any = None) -> None:
            self.conn = conn

        def on_connect(self, conn: Any) -> None:
            self.conn = conn

        async def initialize(self, protocol_version: int, **kwargs: Any) -> Any:
            return acp.InitializeResponse(
                protocol_version=protocol_version, agent_capabilities=AgentCapabilities()
            )

        async def new_session(self, cwd: str, mcp_servers: Any = None, **kwargs: Any) -> Any:
            return acp.NewSessionResponse(session_id=f"s{next(_ids)}")

        async def prompt(self, prompt: Any, session_id: str, **kwargs: Any) -> Any:
            command = prompt[0].text
            if command.startswith("stream "):
                for i in range(int(command[7:])):
                    chunk = TextContentBlock(text=f"token {i} of the answer, ")
                    await self.conn.session_update(
                        session_id=session_id, update=AgentMessageChunk(content=chunk)
                    )
            return acp.PromptResponse(stop_reason="end_turn")

    if mode == "stdio":
        asyncio.run(acp.run_agent(BenchAgent()))
        return
    from acp.http.asgi import create_asgi_app
    from hypercorn.asyncio import serve

    print("ready", flush=True)
    asyncio.run(serve(create_asgi_app(BenchAgent), hypercorn_config(fd)))  # type: ignore[arg-type]


if __name__ == "__main__":
    impl, mode = sys.argv[1], sys.argv[2]
    fd = int(sys.argv[3]) if mode == "listen" else -1
    {"runtime": runtime, "sdk": sdk}[impl](mode, fd)
