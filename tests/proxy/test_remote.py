"""The conductor for remote clients (`--listen`, through `AcpApp`): a chain per connection,
reached over Streamable HTTP and WebSocket, and gone once its client leaves."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import acp_schema as acp
from acp_runtime.http import connect_agent

ROOT = Path(__file__).parents[2]
PASS = [sys.executable, str(Path(__file__).parent / "peers" / "pass_proxy.py"), "1"]
ECHO = [sys.executable, str(ROOT / "examples" / "echo_agent.py")]


def descendants(pid: int) -> list[int]:
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        try:
            with open(f"/proc/{current}/task/{current}/children") as f:
                kids = [int(p) for p in f.read().split()]
        except FileNotFoundError:
            kids = []
        found += kids
        todo += kids
    return found


@pytest.fixture
def server() -> Iterator[tuple[str, subprocess.Popen[str]]]:
    command = [sys.executable, "-m", "acp_runtime.conductor", "--listen", "127.0.0.1:0"]
    command += ["--", *PASS, "--", *PASS, "--", *ECHO]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()  # "serving URL", once listening
    assert line.startswith("serving "), line
    yield line.split()[1], proc
    proc.terminate()
    proc.wait(timeout=10)


class Client(acp.ClientHandler):
    def __init__(self) -> None:
        self.chunks: list[str] = []

    async def session_update(self, params: acp.SessionNotification) -> None:
        update = params.update
        if isinstance(update, acp.SessionUpdateAgentMessageChunk) and isinstance(
            update.content, acp.TextContent
        ):
            self.chunks.append(update.content.text)


async def turn(url: str, text: str) -> tuple[str, list[str], str]:
    client = Client()
    async with connect_agent(url, client) as conn:
        init = await conn.agent.initialize(acp.InitializeRequest(protocol_version=1))
        session = await conn.agent.session_new(acp.NewSessionRequest(cwd=str(ROOT), mcp_servers=[]))
        prompt = acp.PromptRequest(
            session_id=session.session_id, prompt=[acp.TextContent(text=text)]
        )
        answer = await conn.agent.session_prompt(prompt)
    name = init.agent_info.name if isinstance(init.agent_info, acp.Implementation) else ""
    return name, client.chunks, answer.stop_reason.value


def test_remote_clients_each_get_a_chain_over_http_and_websocket_and_it_ends_with_them(
    server: tuple[str, subprocess.Popen[str]],
) -> None:
    url, proc = server
    for scheme, text in (("http", "over http"), ("ws", "over a websocket")):
        where = url.replace("http://", f"{scheme}://", 1)
        assert asyncio.run(turn(where, text)) == ("echo-agent", [text], "end_turn")
    deadline = time.monotonic() + 15  # bounded: each chain stops once its connection closed
    while descendants(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert descendants(proc.pid) == []
