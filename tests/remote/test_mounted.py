"""An `AcpApp` mounted in an ASGI framework (issue 39): `Mount("/agent", app=AcpApp(...))` in a
Starlette app under uvicorn serves the agent at `/agent/acp`, as documented, over HTTP and
WebSocket; other paths below the mount are 404 naming where ACP is. Under Hypercorn the
`root_path` setting does the same."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from typing import AsyncIterator

import httpx
import uvicorn
from hypercorn.asyncio import serve as hypercorn_serve
from starlette.applications import Starlette
from starlette.routing import Mount

import acp_schema as acp
from acp_runtime.http import AcpApp, config, connect_agent

from .agents import HistoryAgent, Store
from .helpers import listening_socket


class Quiet(acp.ClientHandler):
    async def session_update(self, params: acp.SessionNotification) -> None:
        pass


def agent_app() -> AcpApp:
    return AcpApp(functools.partial(HistoryAgent, store=Store()))


@contextlib.asynccontextmanager
async def uvicorn_serving(app: AcpApp) -> AsyncIterator[str]:
    """`app` mounted at /agent in a Starlette app, served by uvicorn on loopback."""
    sock = listening_socket()
    site = Starlette(routes=[Mount("/agent", app=app)])
    server = uvicorn.Server(
        uvicorn.Config(site, log_level="warning", ws="wsproto", ws_per_message_deflate=False)
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        for _ in range(500):
            if server.started:
                break
            await asyncio.sleep(0.01)
        assert server.started, "uvicorn did not start"
        yield f"127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await app.close()
        await asyncio.wait_for(task, 10)
        sock.close()


async def one_session(url: str) -> None:
    async with connect_agent(url, Quiet()) as conn:
        init = await conn.agent.initialize(acp.InitializeRequest(protocol_version=1))
        assert init.protocol_version == 1
        new = await conn.agent.session_new(acp.NewSessionRequest(cwd="/", mcp_servers=[]))
        assert new.session_id


async def test_mounted_in_starlette_under_uvicorn_it_serves_at_the_mount_path() -> None:
    async with uvicorn_serving(agent_app()) as host:
        await one_session(f"http://{host}/agent/acp")
        await one_session(f"ws://{host}/agent/acp")
        async with httpx.AsyncClient() as http:
            missed = await http.post(f"http://{host}/agent/other", content=b"{}")
        assert missed.status_code == 404
        assert "/agent/acp" in missed.text


async def test_under_hypercorn_root_path_mounts_it_too() -> None:
    app = agent_app()
    sock = listening_socket()
    cfg = config(app, sock)
    cfg.root_path = "/agent"  # Hypercorn leaves `path` whole and says where the app is mounted
    stop = asyncio.Event()
    task = asyncio.create_task(hypercorn_serve(app, cfg, shutdown_trigger=stop.wait))  # type: ignore[arg-type]
    try:
        host = f"127.0.0.1:{sock.getsockname()[1]}"
        await one_session(f"http://{host}/agent/acp")
        await one_session(f"ws://{host}/agent/acp")
    finally:
        stop.set()
        await task
        await app.close()
        sock.close()
