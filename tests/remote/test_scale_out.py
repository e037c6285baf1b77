"""Two server processes behind a real load balancer (HAProxy, Debian package) that routes by the
servers' affinity cookie: every request of a connection, and a reconnect carrying the cookie,
reach the process that holds the session (sessions live in that process's memory)."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from typing import AsyncIterator

import pytest

import acp_schema as acp
from acp_runtime.http import connect_agent, reattach_session
from tests.interop.scenario import require

from .helpers import ServerProcess, listening_socket, ws
from .test_connect_agent import INIT, NEW, Handler, prompt

HAPROXY_CONFIG = """\
global
    maxconn 256
defaults
    mode http
    timeout connect 5s
    timeout client 1h
    timeout server 1h
    timeout tunnel 1h
frontend acp
    bind fd@{fd}
    default_backend servers
backend servers
    balance roundrobin
    use-server a if {{ req.cook(acp_node) -m str a }}
    use-server b if {{ req.cook(acp_node) -m str b }}
    server a 127.0.0.1:{a}
    server b 127.0.0.1:{b}
"""


@contextlib.asynccontextmanager
async def balanced(tmp_path) -> AsyncIterator[str]:
    """Servers "a" and "b" (each sets cookie acp_node=<name>) behind HAProxy; yields its URL."""
    haproxy = shutil.which("haproxy")
    require(haproxy is not None, "haproxy (Debian package; `make test` installs it)")
    servers = [await ServerProcess(name, "--cookie", f"acp_node={name}").start() for name in "ab"]
    front = listening_socket()
    config = tmp_path / "haproxy.cfg"
    config.write_text(
        HAPROXY_CONFIG.format(fd=front.fileno(), a=servers[0].port, b=servers[1].port)
    )
    proxy = await asyncio.create_subprocess_exec(
        haproxy, "-db", "-f", str(config), pass_fds=(front.fileno(),)
    )
    try:
        yield f"http://127.0.0.1:{front.getsockname()[1]}"
    finally:
        proxy.terminate()
        await proxy.wait()
        front.close()
        for server in servers:
            await server.stop()


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_a_session_stays_on_its_process_and_a_reconnect_with_the_cookie_finds_it(
    scheme: str, tmp_path
) -> None:
    async with balanced(tmp_path) as base:
        url = (ws(base) if scheme == "ws" else base) + "/acp"
        placed: dict[str, tuple[str, object]] = {}  # server name -> (session id, cookies)
        while len(placed) < 2:  # round robin places new connections on both servers
            handler = Handler()
            async with connect_agent(url, handler) as conn:
                name = (await conn.agent.initialize(INIT)).agent_info.name
                session = (await conn.agent.session_new(NEW)).session_id
                await conn.agent.session_prompt(prompt(session, f"kept by {name}"))
                assert dict(conn.cookies) == {"acp_node": name}
                placed.setdefault(name, (session, conn.cookies))
        assert set(placed) == {"a", "b"}
        for name, (session, cookies) in placed.items():
            handler = Handler()
            async with connect_agent(url, handler, cookies=cookies) as conn:
                assert (await conn.agent.initialize(INIT)).agent_info.name == name
                await reattach_session(conn, session, "/tmp")
            assert handler.chunks == [f"kept by {name}", f"kept by {name}"]


async def test_a_reconnect_without_the_cookie_can_land_where_the_session_is_unknown(
    tmp_path,
) -> None:
    async with balanced(tmp_path) as base:
        async with connect_agent(base + "/acp", Handler()) as conn:
            first = (await conn.agent.initialize(INIT)).agent_info.name
            session = (await conn.agent.session_new(NEW)).session_id
        async with connect_agent(
            base + "/acp", Handler()
        ) as conn:  # no cookie: round robin goes on
            assert (await conn.agent.initialize(INIT)).agent_info.name != first
            with pytest.raises(acp.ResourceNotFoundError):
                await reattach_session(conn, session, "/tmp")
