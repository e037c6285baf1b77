"""Interop with the official TypeScript SDK (npm @agentclientprotocol/sdk, pinned in package.json),
both directions, over real pipes."""

from __future__ import annotations

import json
import subprocess

from .scenario import HERE, PYTHON, expected, node_peer, run_scenario


async def test_our_client_drives_the_typescript_sdk_agent(tmp_path) -> None:
    path = str(tmp_path / "file.txt")
    report = await run_scenario(node_peer("ts_agent.mjs"), path)
    assert report == expected("ts-interop-agent", path)


def test_the_typescript_sdk_client_drives_our_agent(tmp_path) -> None:
    path = str(tmp_path / "file.txt")
    command = [*node_peer("ts_client.mjs"), path, PYTHON, str(HERE / "runtime_agent.py")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == expected("acp-runtime-interop-agent", path)
