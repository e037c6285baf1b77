"""Many WebSocket clients at once against `examples/echo_agent.py --listen` (issue 35): each does
initialize, session/new and one prompt, as the many-connections bench does. Every client must
finish. Not a timed test: the wait is bounded by progress (some client takes a step within
`STALL_S`), and a stall fails naming each stuck client, its step and its connection id.

With the short paths under Hypercorn (the old `wsfast.py`) about 3 runs in 8 of 200 clients never
finished: a message was taken off a socket and never delivered. Rounds of 200 make the stall
show within one test run."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import AsyncIterator

import acp_schema as acp
from acp_runtime.http import connect_agent

from .helpers import ws

EXAMPLES = Path(__file__).parents[2] / "examples"
CLIENTS = 200
ROUNDS = 3
STALL_S = 20.0
"""A stall: no client took a step for this long (a step takes milliseconds on a loaded machine)."""


class Quiet(acp.ClientHandler):
    async def session_update(self, params: acp.SessionNotification) -> None:
        pass


@contextlib.asynccontextmanager
async def echo_agent() -> AsyncIterator[str]:
    agent = await asyncio.create_subprocess_exec(
        sys.executable,
        str(EXAMPLES / "echo_agent.py"),
        "--listen",
        "127.0.0.1:0",
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        assert agent.stdout is not None
        line = (await asyncio.wait_for(agent.stdout.readline(), 60)).decode()
        assert line.startswith("serving http://127.0.0.1:"), line
        yield ws(line.split()[1])
    finally:
        agent.terminate()
        await agent.wait()


async def one_round(url: str) -> list[str]:
    """Run `CLIENTS` clients at once; the stuck ones (named) if they stall, else []."""
    steps = ["connecting"] * CLIENTS
    ids: list[str | None] = [None] * CLIENTS
    progress = asyncio.Event()

    def step(i: int, name: str) -> None:
        steps[i] = name
        progress.set()

    async def client(i: int) -> None:
        async with connect_agent(url, Quiet(), max_message_bytes=1 << 20) as conn:
            transport = getattr(conn, "transport", None)
            ids[i] = getattr(transport, "connection_id", None)
            step(i, "initialize")
            await conn.agent.initialize(acp.InitializeRequest(protocol_version=1))
            step(i, "session/new")
            new = await conn.agent.session_new(acp.NewSessionRequest(cwd="/", mcp_servers=[]))
            step(i, "session/prompt")
            prompt = [acp.TextContent(text="hello")]
            await conn.agent.session_prompt(
                acp.PromptRequest(session_id=new.session_id, prompt=prompt)
            )
            step(i, "closing")
        step(i, "done")

    tasks = [asyncio.create_task(client(i)) for i in range(CLIENTS)]
    try:
        while not all(task.done() for task in tasks):
            progress.clear()
            waiter = asyncio.create_task(progress.wait())
            await asyncio.wait(
                [waiter, *[t for t in tasks if not t.done()]],
                timeout=STALL_S,
                return_when=asyncio.FIRST_COMPLETED,
            )
            if not waiter.done():  # no step in STALL_S: the rest are stuck
                waiter.cancel()
                return [
                    f"client {i} (connection {ids[i]}) stuck before {steps[i]} is answered"
                    for i, task in enumerate(tasks)
                    if not task.done()
                ]
            waiter.cancel()
        failed = [f"client {i}: {t.exception()!r}" for i, t in enumerate(tasks) if t.exception()]
        assert not failed, failed[:5]
        return []
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_many_websocket_clients_at_once_all_finish() -> None:  # bounded by STALL_S
    async with echo_agent() as url:
        for n in range(ROUNDS):
            stuck = await one_round(url)
            assert not stuck, f"round {n + 1}: {len(stuck)} stuck: {stuck[:10]}"


test_many_websocket_clients_at_once_all_finish.timeout = ROUNDS * 200.0  # type: ignore[attr-defined]
