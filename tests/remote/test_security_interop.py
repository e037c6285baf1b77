"""The official SDKs' clients (Python agent-client-protocol, TypeScript @agentclientprotocol/sdk)
reach `examples/echo_agent.py --listen ... --token TOKEN` over HTTP and WebSocket when they send
`Authorization: Bearer TOKEN`, and are refused without it."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.interop.scenario import node_peer

from .helpers import ws
from .test_security import EXAMPLES, echo_agent

PEERS = Path(__file__).parent / "peers"
TOKEN = "interop-s3cret"


def python_peer() -> list[str]:
    return [sys.executable, str(PEERS / "py_sdk_token_client.py")]


def typescript_peer() -> list[str]:
    node = node_peer("ts_client.mjs")[0]  # skips, naming what is missing, without node or the SDK
    return [node, str(PEERS / "ts_token_client.mjs")]


PEER = {"python": python_peer, "typescript": typescript_peer}


@pytest.fixture(scope="module")
def token_agent() -> Iterator[str]:
    """One `echo_agent.py --listen 127.0.0.1:0 --token TOKEN` for the module (its URL): each test's
    client opens its own connection and session, so the tests only read from the agent."""
    command = [sys.executable, str(EXAMPLES / "echo_agent.py"), "--listen", "127.0.0.1:0"]
    with subprocess.Popen([*command, "--token", TOKEN], stdout=subprocess.PIPE) as agent:
        assert agent.stdout is not None
        try:
            line = agent.stdout.readline().decode()
            assert line.startswith("serving "), line
            yield line.split()[1]
        finally:
            agent.terminate()
            agent.wait(30)


async def run(command: list[str]) -> tuple[int, str, str]:
    peer = await asyncio.create_subprocess_exec(
        *command, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(peer.communicate(), 60)
    return peer.returncode or 0, out.decode(), err.decode()


@pytest.mark.parametrize("sdk", ["python", "typescript"])
@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_the_sdk_client_with_the_token_is_served(
    token_agent: str, sdk: str, scheme: str
) -> None:
    target = ws(token_agent) if scheme == "ws" else token_agent
    code, out, err = await run([*PEER[sdk](), target, TOKEN])
    assert code == 0, err[-2000:]
    report = json.loads(out.strip().splitlines()[-1])
    assert report["agent"] == "echo-agent" and report["stopReason"] == "end_turn"
    assert report["chunks"] == ["hi"]


@pytest.mark.parametrize("sdk", ["python", "typescript"])
@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_the_sdk_client_with_another_token_is_refused(
    token_agent: str, sdk: str, scheme: str
) -> None:
    target = ws(token_agent) if scheme == "ws" else token_agent
    code, out, err = await run([*PEER[sdk](), target, "wrong"])
    assert code != 0 and "echo-agent" not in out
    assert "401" in err, err[-2000:]


@pytest.mark.parametrize("sdk", ["python", "typescript"])
async def test_the_sdk_client_without_a_token_still_reaches_an_open_agent(sdk: str) -> None:
    async with echo_agent() as (url, _):
        code, out, err = await run([*PEER[sdk](), url, "unused"])
    assert code == 0, err[-2000:]
    assert json.loads(out.strip().splitlines()[-1])["chunks"] == ["hi"]
