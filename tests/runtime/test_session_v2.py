"""`Session` on ACP v2: the prompt's answer only acknowledges the user message, and `prompt`
returns when the session reports `idle` after that message, with its stop reason. The agent here
is a raw peer speaking v2 JSON, so each test sets the exact order of answer and updates."""

from __future__ import annotations

import asyncio
import importlib
import sys
from typing import Any, Iterator

import pytest

from acp_runtime import ConnectionClosedError, wire
from acp_runtime.session import Session, TurnTimeoutError

from ..support.packages import FIXTURES
from .helpers import CWD
from .helpers_v2 import v2_session


@pytest.fixture(scope="module")
def v2_fixture_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The package of the v2 fixture schema (2026-08-20), whose prompt answer is empty."""
    from acpgen import pipeline
    from acpgen.write import write_package

    root = tmp_path_factory.mktemp("v2")
    schema = FIXTURES / "schemas" / "v2-stable-2026-08-20.json"
    # rendered but not run through black: the same code, in a fraction of the time
    write_package(
        root / "acp_v2_fixture",
        pipeline.render(pipeline.build(pipeline.load(schema)), "acp_v2_fixture"),
    )
    sys.path.insert(0, str(root))
    yield importlib.import_module("acp_v2_fixture")
    sys.path.remove(str(root))


async def test_prompt_returns_at_the_idle_state_with_its_stop_reason() -> None:
    session, agent, _ = await v2_session()
    turn = asyncio.ensure_future(session.prompt("hello"))
    prompt = await agent.recv("session/prompt")
    agent.user_message("u1")
    agent.answer(prompt, {"messageId": "u1"})
    agent.state("running")
    agent.chunk("hi there")
    agent.state("idle", stopReason="end_turn")
    outcome = await turn
    assert outcome.stop_reason == "end_turn" and outcome.response.message_id == "u1"
    assert session.state.text() == "hi there" and session.state.text("user") == "hello"
    assert session.state.status == "idle" and outcome.idle is session.state.activity


async def test_the_turns_usage_comes_from_its_idle_state() -> None:
    session, agent, _ = await v2_session()
    turn = asyncio.ensure_future(session.prompt("hello"))
    prompt = await agent.recv("session/prompt")
    agent.user_message("u1")
    agent.answer(prompt, {"messageId": "u1"})
    usage = {"totalTokens": 30, "inputTokens": 20, "outputTokens": 10}
    agent.state("idle", stopReason="end_turn", usage=usage)
    outcome = await turn
    assert (outcome.usage.total_tokens, outcome.usage.output_tokens) == (30, 10)


async def test_the_prompt_answer_alone_does_not_end_the_turn() -> None:
    session, agent, _ = await v2_session()
    turn = asyncio.ensure_future(session.prompt("hello"))
    prompt = await agent.recv("session/prompt")
    agent.answer(prompt, {"messageId": "u1"})
    agent.user_message("u1")
    agent.state("running")
    await agent.barrier()
    assert not turn.done()
    agent.state("idle", stopReason="max_tokens")
    assert (await turn).stop_reason == "max_tokens"


async def test_an_idle_that_arrives_before_the_answer_still_ends_the_turn() -> None:
    session, agent, _ = await v2_session()
    turn = asyncio.ensure_future(session.prompt("hello"))
    prompt = await agent.recv("session/prompt")
    agent.user_message("u1")
    agent.state("running")
    agent.chunk("done")
    agent.state("idle", stopReason="end_turn")
    agent.answer(prompt, {"messageId": "u1"})
    assert (await turn).stop_reason == "end_turn" and session.state.text() == "done"


async def test_an_idle_before_the_prompts_user_message_is_not_its_turn_end() -> None:
    session, agent, _ = await v2_session()
    turn = asyncio.ensure_future(session.prompt("second"))
    prompt = await agent.recv("session/prompt")
    agent.state("idle", stopReason="end_turn")  # the earlier work ends; the prompt was held
    agent.user_message("u2", "second")
    agent.answer(prompt, {"messageId": "u2"})
    agent.state("running")
    agent.state("idle", stopReason="refusal")
    assert (await turn).stop_reason == "refusal"


async def test_without_a_message_id_the_turn_ends_at_the_first_idle_after_work(
    v2_fixture_package: Any,
) -> None:
    session, agent, _ = await v2_session(v2_fixture_package)
    turn = asyncio.ensure_future(session.prompt("hello"))
    prompt = await agent.recv("session/prompt")
    agent.state("idle")  # a snapshot of the earlier state: no work reported yet
    agent.answer(prompt, {})
    agent.state("running")
    agent.state("idle", stopReason="end_turn")
    assert (await turn).stop_reason == "end_turn"


async def test_cancel_is_confirmed_by_idle_with_cancelled() -> None:
    session, agent, _ = await v2_session()
    turn = asyncio.ensure_future(session.prompt("wait"))
    prompt = await agent.recv("session/prompt")
    agent.user_message("u1", "wait")
    agent.answer(prompt, {"messageId": "u1"})
    agent.state("running")
    await session.cancel()
    assert (await agent.recv("session/cancel"))["params"] == {"sessionId": "s1"}
    agent.chunk("stopping")  # pending updates go before the idle that confirms it
    agent.state("idle", stopReason="cancelled")
    outcome = await turn
    assert outcome.cancelled and session.state.text() == "stopping"


async def test_updates_yield_the_turn_up_to_its_idle_state_then_end() -> None:
    session, agent, _ = await v2_session()
    seen: list[Any] = []

    async def read() -> None:
        async for update in session.updates():
            seen.append(update)

    reader = asyncio.ensure_future(read())
    turn = asyncio.ensure_future(session.prompt("hello"))
    prompt = await agent.recv("session/prompt")
    agent.user_message("u1")
    agent.answer(prompt, {"messageId": "u1"})
    agent.chunk("hi")
    agent.state("idle", stopReason="end_turn")
    await turn
    await reader
    assert [wire.get(u, "sessionUpdate") for u in seen] == [
        "user_message",
        "agent_message_chunk",
        "state_update",
    ]
    assert seen[-1] is session.state.activity


async def test_a_turn_that_never_ends_times_out_and_is_cancelled() -> None:
    session, agent, _ = await v2_session()
    turn = asyncio.ensure_future(session.prompt("hello", timeout=0.2))
    prompt = await agent.recv("session/prompt")
    agent.user_message("u1")
    agent.answer(prompt, {"messageId": "u1"})
    agent.state("running")
    assert (await agent.recv("session/cancel"))["params"] == {"sessionId": "s1"}
    with pytest.raises(TurnTimeoutError, match="no idle state_update"):
        await turn


async def test_a_connection_closed_mid_turn_raises() -> None:
    session, agent, conn = await v2_session()
    turn = asyncio.ensure_future(session.prompt("hello"))
    prompt = await agent.recv("session/prompt")
    agent.user_message("u1")
    agent.answer(prompt, {"messageId": "u1"})
    agent.state("running")
    agent.peer.close()
    with pytest.raises(ConnectionClosedError):
        await turn


async def test_resume_folds_the_replay_and_the_state_snapshot_sent_before_its_answer() -> None:
    _, agent, conn = await v2_session()
    resuming = asyncio.ensure_future(Session.resume(conn, "s1", CWD, replayFrom={"type": "start"}))
    request = await agent.recv("session/resume")
    assert request["params"] == {"sessionId": "s1", "cwd": CWD, "replayFrom": {"type": "start"}}
    agent.user_message("u0", "earlier")
    agent.chunk("earlier answer", "a0")
    agent.state("idle", stopReason="end_turn")  # the snapshot after the replay
    agent.answer(request, {})
    session = await resuming
    assert session.state.text("user") == "earlier" and session.state.text() == "earlier answer"
    assert session.state.status == "idle"
    turn = asyncio.ensure_future(session.prompt("now"))  # the snapshot's idle is not its end
    prompt = await agent.recv("session/prompt")
    agent.user_message("u1", "now")
    agent.answer(prompt, {"messageId": "u1"})
    agent.state("running")
    await agent.barrier()
    assert not turn.done()
    agent.state("idle", stopReason="max_turn_requests")
    assert (await turn).stop_reason == "max_turn_requests"


async def test_the_commands_offered_with_a_new_session_are_kept() -> None:
    commands = [{"type": "command", "name": "test", "description": "Run the tests"}]
    session, _, _ = await v2_session(new_session={"sessionId": "s1", "availableCommands": commands})
    assert [c.name for c in session.commands] == ["test"]
