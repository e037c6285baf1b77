"""One echo agent (examples/echo_agent.py) serves v1 and v2 clients, each with its version's turn:
in memory and over real pipes, the same process for both."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import acp_schema as v1
import acp_schema_v2 as v2
from acp_runtime import ClientSideConnection, memory_pipe, wire
from acp_runtime.versions import ClientRoute, ClientVersions

sys.path.insert(0, str(Path(__file__).parents[2] / "examples"))
from echo_agent import echo_agent  # noqa: E402

from .helpers import RawPeer  # noqa: E402
from .v2peers import V2_INITIALIZE  # noqa: E402

ECHO = str(Path(__file__).parents[2] / "examples" / "echo_agent.py")


class Recorder:
    """A client handler for either version: keeps the updates, tells when the session is idle."""

    def __init__(self) -> None:
        self.updates: list[Any] = []
        self.running = asyncio.Event()
        self.idle = asyncio.Event()

    async def session_update(self, params: Any) -> None:
        self.updates.append(params.update)
        state = getattr(params.update, "state", None)
        if state in ("running", "idle"):
            (self.running if state == "running" else self.idle).set()


class RecorderV1(Recorder, v1.ClientHandler):
    pass


class RecorderV2(Recorder, v2.ClientHandler):
    pass


def kinds(updates: list[Any]) -> list[str]:
    return [
        wire.get(u, "sessionUpdate") + (f":{u.state}" if hasattr(u, "state") else "")
        for u in updates
    ]


async def v1_turn(conn: ClientSideConnection[Any], recorder: Recorder) -> None:
    answer = await conn.agent.initialize(v1.InitializeRequest(protocol_version=1))
    assert conn.protocol_version == 1 and answer.agent_info.name == "echo-agent"
    session = await conn.agent.session_new(v1.NewSessionRequest(cwd="/w", mcp_servers=[]))
    prompt = [v1.TextContent(text="one"), v1.TextContent(text="two")]
    result = await conn.agent.session_prompt(
        v1.PromptRequest(session_id=session.session_id, prompt=prompt)
    )
    assert result.stop_reason == "end_turn"
    assert [u.content.text for u in recorder.updates] == ["one", "two"]
    assert kinds(recorder.updates) == ["agent_message_chunk"] * 2


async def v2_turn(conn: ClientSideConnection[Any], recorder: Recorder) -> None:
    info = v2.Implementation(name="c", version="1")
    answer = await conn.agent.initialize(v2.InitializeRequest(protocol_version=2, info=info))
    assert conn.protocol_version == 2 and answer.info.name == "echo-agent"
    session = await conn.agent.session_new(v2.NewSessionRequest(cwd="/w"))
    prompt = [v2.TextContent(text="one"), v2.TextContent(text="two")]
    ack = await conn.agent.session_prompt(
        v2.PromptRequest(session_id=session.session_id, prompt=prompt)
    )
    await recorder.idle.wait()
    updates = recorder.updates
    assert kinds(updates) == [
        "user_message",
        "state_update:running",
        "agent_message_chunk",
        "agent_message_chunk",
        "state_update:idle",
    ]
    assert updates[0].message_id == ack.message_id and updates[0].content == prompt
    assert [u.content.text for u in updates[2:4]] == ["one", "two"]
    assert updates[2].message_id == updates[3].message_id != ack.message_id
    assert updates[4].stop_reason == "end_turn"


def v1_client(recorder: Recorder) -> ClientVersions:
    return ClientVersions(ClientRoute(1, v1, recorder))


def both_clients(recorder: Recorder) -> ClientVersions:
    return ClientVersions(ClientRoute(1, v1, RecorderV1()), ClientRoute(2, v2, recorder))


async def test_in_memory_the_echo_agent_runs_a_v1_turn() -> None:
    (a_in, a_out), (c_in, c_out) = memory_pipe()
    echo_agent().connect(a_in, a_out)
    recorder = RecorderV1()
    async with v1_client(recorder).connect(c_in, c_out) as conn:
        await v1_turn(conn, recorder)


async def test_in_memory_the_same_echo_agent_runs_a_v2_turn() -> None:
    (a_in, a_out), (c_in, c_out) = memory_pipe()
    echo_agent().connect(a_in, a_out)
    recorder = RecorderV2()
    async with both_clients(recorder).connect(c_in, c_out) as conn:
        await v2_turn(conn, recorder)


async def test_over_pipes_the_echo_agent_runs_a_v1_turn() -> None:
    recorder = RecorderV1()
    async with v1_client(recorder).spawn(sys.executable, ECHO) as conn:
        await v1_turn(conn, recorder)


async def test_over_pipes_the_echo_agent_runs_a_v2_turn() -> None:
    recorder = RecorderV2()
    async with both_clients(recorder).spawn(sys.executable, ECHO) as conn:
        await v2_turn(conn, recorder)


async def test_a_cancelled_v2_turn_ends_idle_cancelled_after_its_updates() -> None:
    recorder = RecorderV2()
    async with both_clients(recorder).spawn(sys.executable, ECHO, "--delay", "30") as conn:
        info = v2.Implementation(name="c", version="1")
        await conn.agent.initialize(v2.InitializeRequest(protocol_version=2, info=info))
        session = await conn.agent.session_new(v2.NewSessionRequest(cwd="/w"))
        prompt = [v2.TextContent(text="never echoed")]
        await conn.agent.session_prompt(
            v2.PromptRequest(session_id=session.session_id, prompt=prompt)
        )
        await recorder.running.wait()  # user_message, running: the turn is under way
        await conn.agent.session_cancel(v2.CancelSessionNotification(session_id=session.session_id))
        await recorder.idle.wait()
        assert kinds(recorder.updates) == [
            "user_message",
            "state_update:running",
            "state_update:idle",
        ]
        assert recorder.updates[-1].stop_reason == "cancelled"


def doc_example(tmp_path: Path) -> str:
    """The complete example of docs/runtime.md's v2 section, as a file."""
    text = (Path(__file__).parents[2] / "docs" / "runtime.md").read_text(encoding="utf-8")
    section = text[text.index("## ACP v1 and v2 on one agent or client") :]
    start = section.index("```python\n") + 10
    code = section[start : section.index("\n```", start)]
    path = tmp_path / "shout_agent.py"
    path.write_text(code, encoding="utf-8")
    return str(path)


async def test_the_docs_example_agent_serves_both_versions(tmp_path: Path) -> None:
    agent = doc_example(tmp_path)
    one = RecorderV1()
    async with v1_client(one).spawn(sys.executable, agent) as conn:
        await conn.agent.initialize(v1.InitializeRequest(protocol_version=1))
        session = await conn.agent.session_new(v1.NewSessionRequest(cwd="/w", mcp_servers=[]))
        prompt = [v1.TextContent(text="hi")]
        answer = await conn.agent.session_prompt(
            v1.PromptRequest(session_id=session.session_id, prompt=prompt)
        )
        assert answer.stop_reason == "end_turn" and one.updates[0].content.text == "HI"
    two = RecorderV2()
    async with both_clients(two).spawn(sys.executable, agent) as conn:
        info = v2.Implementation(name="c", version="1")
        await conn.agent.initialize(v2.InitializeRequest(protocol_version=2, info=info))
        session = await conn.agent.session_new(v2.NewSessionRequest(cwd="/w"))
        prompt = [v2.TextContent(text="hi")]
        await conn.agent.session_prompt(
            v2.PromptRequest(session_id=session.session_id, prompt=prompt)
        )
        await two.idle.wait()
        assert two.updates[2].content.text == "HI" and two.updates[-1].stop_reason == "end_turn"


async def test_a_cancel_sent_with_its_prompt_still_ends_the_turn_idle_cancelled() -> None:
    (a_in, a_out), (c_in, c_out) = memory_pipe()
    echo_agent(delay=30).connect(a_in, a_out)
    peer = RawPeer(c_in, c_out)
    assert "result" in await peer.call(0, "initialize", V2_INITIALIZE)
    session = (await peer.call(1, "session/new", {"cwd": "/w"}))["result"]["sessionId"]
    prompt = {"sessionId": session, "prompt": [{"type": "text", "text": "never echoed"}]}
    peer.send_bytes(
        json.dumps(
            {"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": prompt}
        ).encode()
        + b"\n"
        + json.dumps(
            {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session}}
        ).encode()
        + b"\n"
    )  # both read before the prompt's handler runs
    seen = []
    while not seen or seen[-1].get("state") != "idle":
        message = await peer.recv()
        if "method" in message:
            seen.append(message["params"]["update"])
    assert seen[-1]["stopReason"] == "cancelled"
    assert "agent_message_chunk" not in [u["sessionUpdate"] for u in seen]
