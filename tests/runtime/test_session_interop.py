"""Sessions and helpers against the official Python SDK (agent-client-protocol, pinned in the test
extra), over real pipes: our Session drives its agent, and its client and accumulator read an
agent written with our helpers, folding what our Session folds."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec

import acp_schema as acp
from acp_runtime import spawn_agent
from acp_runtime.session import Session

PEERS = Path(__file__).parent / "peers"
SDK_AGENT = Path(__file__).parents[1] / "interop" / "py_sdk_agent.py"
HELPERS_AGENT = str(PEERS / "helpers_agent.py")


class Allowing(acp.ClientHandler):
    async def session_request_permission(
        self, params: acp.RequestPermissionRequest
    ) -> acp.RequestPermissionResponse:
        allow = next(o for o in params.options if o.kind == acp.PermissionOptionKind.ALLOW_ONCE)
        outcome = acp.SelectedPermissionOutcome(option_id=allow.option_id)
        return acp.RequestPermissionResponse(outcome=outcome)


def initialize() -> acp.InitializeRequest:
    return acp.InitializeRequest(protocol_version=1, client_capabilities=acp.ClientCapabilities())


async def test_a_session_drives_the_official_sdk_agent() -> None:
    async with spawn_agent(Allowing(), sys.executable, str(SDK_AGENT)) as conn:
        await conn.agent.initialize(initialize())
        session = await Session.new(conn, "/tmp")
        assert session.id == "py-sdk-session"
        outcome = await session.prompt(
            [acp.TextContent(text="hello"), acp.TextContent(text="permission")]
        )
        assert outcome.stop_reason == "end_turn"
        assert session.state.text() == "hellooutcome: allow"
        turn = asyncio.ensure_future(session.prompt("wait"))
        async for _update in session.updates():  # "waiting" came: the agent waits for the cancel
            await session.cancel()
        assert (await turn).cancelled


def official_view(command: list[str]) -> Any:
    script = str(PEERS / "sdk_accumulating_client.py")
    result = subprocess.run(
        [sys.executable, script, *command], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def given(value: Any) -> Any:
    return None if value is msgspec.UNSET else value


def as_json(value: Any) -> Any:
    return json.loads(acp.encode(value))


async def test_the_official_sdk_client_reads_the_helpers_and_folds_what_a_session_folds() -> None:
    theirs = official_view([sys.executable, HELPERS_AGENT])
    async with spawn_agent(Allowing(), sys.executable, HELPERS_AGENT) as conn:
        await conn.agent.initialize(initialize())
        session = await Session.new(conn, "/tmp")
        outcome = await session.prompt("go")
    ours, snapshot = session.state, theirs["snapshot"]
    assert theirs["stopReason"] == outcome.stop_reason == "end_turn"
    assert ours.text() == "".join(c["content"]["text"] for c in snapshot["agent_messages"])
    assert ours.text() == "permission: allow\ndone"
    assert ours.text("thought") == "".join(c["content"]["text"] for c in snapshot["agent_thoughts"])
    assert as_json(ours.plan) == snapshot["plan_entries"]
    official_calls = sorted(snapshot["tool_calls"].values(), key=lambda call: call["title"])
    our_calls = sorted(ours.tool_calls.values(), key=lambda call: call.title)
    assert [(c.title, c.status.value) for c in our_calls] == [
        ("Compile", "failed"),
        ("Edit /tmp/a.txt", "completed"),
    ]
    for mine, official in zip(our_calls, official_calls, strict=True):
        assert mine.title == official["title"] and mine.status.value == official["status"]
        assert mine.kind.value == official["kind"] and given(mine.raw_input) == official.get(
            "raw_input"
        )
        assert as_json(mine.locations or []) == official.get("locations", [])
        assert as_json(mine.content or []) == official.get("content", [])
        assert given(mine.raw_output) == official.get("raw_output")
