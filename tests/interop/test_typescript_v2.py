"""Interop with the official TypeScript SDK 2.4.0's ACP v2 support, over stdio, in both directions
and both versions: our echo agent under the SDK's v1 client and its v2 client; the SDK's agents
behind its protocol router (ts_router_agent.mjs) under our client asking for v1 and for v2; and
our session fold against the SDK's v2 ActiveSession on the same recorded turn."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import acp_schema_v2 as acp2
from acp_runtime import spawn_agent, wire
from acp_runtime.session import Session

from .scenario import HERE, PYTHON, node_peer

ROOT = HERE.parents[1]
ECHO = str(ROOT / "examples" / "echo_agent.py")
CLIENT = str(ROOT / "examples" / "client.py")
TURN_V2 = ROOT / "tests" / "runtime" / "data" / "turn_v2.json"


def run_json(command: list[str]) -> Any:
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def run_client(version: int, prompt: str, agent: list[str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, CLIENT, "--protocol-version", str(version), "--prompt", prompt]
    return subprocess.run([*command, "--", *agent], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("version", [1, 2])
def test_our_client_gets_the_same_lines_from_the_typescript_router_agent(version: int) -> None:
    result = run_client(version, "hello, router", node_peer("ts_router_agent.mjs"))
    assert result.returncode == 0, result.stderr
    assert result.stdout == "agent: ts-router-agent 2.4.0\nhello, router\nstop: end_turn\n"


async def test_our_v2_session_cancels_a_typescript_turn_and_sees_it_end_cancelled() -> None:
    node, script = node_peer("ts_router_agent.mjs")

    class Client(acp2.ClientHandler):
        pass

    async with spawn_agent(Client(), node, script, schema=acp2, protocol_versions=(2,)) as conn:
        init = {"protocolVersion": 2, "info": {"name": "py", "version": "1"}, "capabilities": {}}
        answer = await conn.request("initialize", wire.build(acp2, init, acp2.InitializeRequest))
        assert wire.get(answer, "protocolVersion") == 2
        session = await Session.new(conn, str(ROOT))
        turn = asyncio.ensure_future(session.prompt("wait"))
        async for _ in session.updates():
            if session.state.text() == "waiting":
                await session.cancel()
        outcome = await turn
        assert outcome.cancelled and session.state.status == "idle"
        assert session.state.text("user") == "wait"


def test_the_typescript_v2_client_drives_our_echo_agent_on_v2() -> None:
    report = run_json([*node_peer("ts_echo_client.mjs"), "2", "hello, v2", PYTHON, ECHO])
    assert report["protocolVersion"] == 2 and report["agent"]["name"] == "echo-agent"
    assert report["chunks"] == ["hello, v2"] and report["stopReason"] == "end_turn"
    assert report["userMessages"] == [report["promptMessageId"]]
    assert report["kinds"][-1] == "state_update:idle"


def test_the_typescript_v1_client_drives_our_echo_agent_on_v1() -> None:
    report = run_json([*node_peer("ts_echo_client.mjs"), "1", "hello, v1", PYTHON, ECHO])
    assert report == {
        "protocolVersion": 1,
        "agent": {"name": "echo-agent", "version": "0.1.0"},
        "chunks": ["hello, v1"],
        "stopReason": "end_turn",
    }


def test_our_fold_agrees_with_the_typescript_v2_client_on_recorded_turns(tmp_path: Path) -> None:
    from ..runtime.test_session_fold_v2 import RECORDED, fold_v2

    upsert = next(i for i, u in enumerate(RECORDED) if u["sessionUpdate"] == "agent_message")
    cancellable = next(i for i, u in enumerate(RECORDED) if u.get("capabilities"))
    turns = [RECORDED, RECORDED[:upsert] + RECORDED[-1:], RECORDED[: cancellable + 1]]
    turns[2] = turns[2] + RECORDED[-1:]
    path = tmp_path / "turns.json"
    path.write_text(json.dumps({"turns": turns}))
    theirs = run_json([*node_peer("ts_fold_v2.mjs"), str(path)])
    for turn, report in zip(turns, theirs, strict=True):
        state = fold_v2(turn)
        assert state.text() == report["text"]
        assert {
            call_id: wire.get(call, "capabilities", "cancel") is not None
            for call_id, call in state.tool_calls.items()
        } == report["canCancelToolCall"]
        assert {
            terminal_id: wire.get(terminal, "capabilities", "cancel") is not None
            for terminal_id, terminal in state.terminals.items()
        } == report["canCancelTerminal"]
    assert [r["text"] for r in theirs] == [
        "Fixed: f() returns 2.",
        "Let me look at the test.",
        "Let me look at the test.",
    ]
