"""Interop over HTTP and WebSocket with the official TypeScript SDK (@agentclientprotocol/sdk
2.4.0: experimental/http-client, ws-client, server), both directions, running the interop
scenario (tests/interop/scenario.md: a permission round trip included)."""

from __future__ import annotations

import asyncio
import json

import pytest

from acp_runtime.http import AcpApp, connect_agent
from tests.interop.runtime_agent import ScenarioAgent
from tests.interop.scenario import expected, node_peer, run_scenario

from .helpers import ServerProcess, served, ws


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_the_typescript_sdk_client_drives_our_server(scheme: str, tmp_path) -> None:
    path = str(tmp_path / "file.txt")
    async with served(AcpApp(ScenarioAgent)) as base:
        url = (ws(base) if scheme == "ws" else base) + "/acp"
        client = await asyncio.create_subprocess_exec(
            *node_peer("ts_client.mjs"), path, url, stdout=asyncio.subprocess.PIPE
        )
        out, _ = await client.communicate()
    assert client.returncode == 0
    assert json.loads(out) == expected("acp-runtime-interop-agent", path)


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_our_client_drives_the_typescript_sdk_server(scheme: str, tmp_path) -> None:
    path = str(tmp_path / "file.txt")
    server = ServerProcess("", command=[*node_peer("ts_agent.mjs"), "--listen-fd", "{fd}"])
    await server.start()
    try:
        url = ws(server.url) if scheme == "ws" else server.url
        report = await run_scenario([], path, connect=lambda client: connect_agent(url, client))
    finally:
        await server.stop()
    assert report == expected("ts-interop-agent", path)
