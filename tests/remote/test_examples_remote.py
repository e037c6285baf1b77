"""The examples over the network: `echo_agent.py --listen HOST:PORT` and `client.py --url URL`,
with each other over HTTP/1.1, h2c and WebSocket, and the client against both official SDKs'
servers."""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path
from typing import AsyncIterator

import pytest

from tests.interop.scenario import HERE, node_peer

from .helpers import ServerProcess, ws

EXAMPLES = Path(__file__).parents[2] / "examples"
PYTHON = sys.executable


async def run_client(*args: str) -> tuple[int, str, str]:
    client = await asyncio.create_subprocess_exec(
        PYTHON,
        str(EXAMPLES / "client.py"),
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await client.communicate()
    return client.returncode or 0, out.decode(), err.decode()


@contextlib.asynccontextmanager
async def echo_agent() -> AsyncIterator[str]:
    """`echo_agent.py --listen 127.0.0.1:0`; yields the URL it prints."""
    agent = await asyncio.create_subprocess_exec(
        PYTHON,
        str(EXAMPLES / "echo_agent.py"),
        "--listen",
        "127.0.0.1:0",
        stdout=asyncio.subprocess.PIPE,
    )
    try:
        line = (await agent.stdout.readline()).decode()
        assert line.startswith("serving http://127.0.0.1:") and line.endswith("/acp\n"), line
        yield line.split()[1]
    finally:
        agent.terminate()
        await agent.wait()


@pytest.mark.parametrize("transport", ["http/1.1", "h2c", "websocket"])
async def test_the_client_example_talks_to_the_echo_agent_example_over(transport: str) -> None:
    async with echo_agent() as url:
        args = {
            "http/1.1": ["--url", url],
            "h2c": ["--http2", "--url", url],
            "websocket": ["--url", ws(url)],
        }
        code, out, err = await run_client("--prompt", "hello, remote agent", *args[transport])
    assert code == 0, err
    assert out == "agent: echo-agent 0.1.0\nhello, remote agent\nstop: end_turn\n"


async def test_the_client_example_reports_an_unreachable_agent_in_one_line() -> None:
    code, out, err = await run_client("--prompt", "x", "--url", "http://127.0.0.1:9/acp")
    assert code == 1 and out == ""
    assert err.startswith("error: connection closed: the request to http://127.0.0.1:9/acp failed")


SDK_SERVERS = {
    "python-sdk": ([PYTHON, str(HERE / "py_sdk_agent.py")], "python-sdk-interop-agent 0.12.1"),
    "typescript-sdk": (None, "ts-interop-agent 2.4.0"),
}


@pytest.mark.parametrize("scheme", ["http", "ws"])
@pytest.mark.parametrize("sdk", SDK_SERVERS)
async def test_the_client_example_talks_to_an_official_sdk_server(sdk: str, scheme: str) -> None:
    command, agent = SDK_SERVERS[sdk]
    command = command or node_peer("ts_agent.mjs")
    server = await ServerProcess("", command=[*command, "--listen-fd", "{fd}"]).start()
    try:
        url = ws(server.url) if scheme == "ws" else server.url
        code, out, err = await run_client("--prompt", "hello, sdk", "--url", url)
    finally:
        await server.stop()
    assert code == 0, err
    assert out.splitlines() == [f"agent: {agent}", "hello, sdk", "stop: end_turn"]
