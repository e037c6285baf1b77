"""The same fold on a recorded turn in ACP v2 shapes, decoded by a package generated from the v2
schema: messages upserted by id, tool calls created by their first update and given content
chunks; kinds the table does not know yet are kept, never dropped."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_runtime.session import SessionState

SCHEMA = Path(__file__).parents[1] / "fixtures" / "schemas" / "v2-stable-2026-08-20.json"

TURN_V2 = [
    {
        "sessionUpdate": "user_message",
        "messageId": "u1",
        "content": [{"type": "text", "text": "Fix it"}],
    },
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "a1",
        "content": {"type": "text", "text": "Draft "},
    },
    {
        "sessionUpdate": "agent_thought_chunk",
        "messageId": "t1",
        "content": {"type": "text", "text": "think"},
    },
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "a1",
        "content": {"type": "text", "text": "answer"},
    },
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c1",
        "title": "Run tests",
        "status": "in_progress",
    },
    {
        "sessionUpdate": "tool_call_content_chunk",
        "toolCallId": "c1",
        "content": {"type": "content", "content": {"type": "text", "text": "1 passed"}},
    },
    {
        "sessionUpdate": "tool_call_content_chunk",
        "toolCallId": "c1",
        "content": {"type": "content", "content": {"type": "text", "text": "2 passed"}},
    },
    {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"},
    {
        "sessionUpdate": "agent_message",
        "messageId": "a1",
        "content": [{"type": "text", "text": "Final answer"}],
    },
    {"sessionUpdate": "agent_message", "messageId": "a1"},
    {"sessionUpdate": "usage_update", "used": 10, "size": 100},
]


@pytest.fixture(scope="module")
def v2(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from acpgen import pipeline
    from acpgen.write import write_package

    root = tmp_path_factory.mktemp("v2")
    try:  # rendered but not run through black: the same code, in a fraction of the time
        files = pipeline.render(pipeline.build(pipeline.load(SCHEMA)), "acp_session_v2")
    except AttributeError:
        files = pipeline.generate_files(SCHEMA, "acp_session_v2")
    write_package(root / "acp_session_v2", files)
    sys.path.insert(0, str(root))
    yield importlib.import_module("acp_session_v2")
    sys.path.remove(str(root))


def fold_v2(v2: Any, updates: list[dict[str, Any]]) -> SessionState:
    state = SessionState()
    for update in updates:
        state.fold(v2.decode(json.dumps(update).encode(), v2.SessionUpdate))
    return state


def test_v2_messages_are_joined_by_id_and_a_whole_message_upsert_replaces_the_chunks(
    v2: Any,
) -> None:
    state = fold_v2(v2, TURN_V2)
    assert [(m.role, m.message_id, m.text()) for m in state.messages] == [
        ("user", "u1", "Fix it"),
        ("agent", "a1", "Final answer"),
        ("thought", "t1", "think"),
    ]


def test_a_v2_tool_call_is_created_by_its_first_update_and_content_chunks_append(v2: Any) -> None:
    call = fold_v2(v2, TURN_V2).tool_calls["c1"]
    assert call.title == "Run tests" and call.status.value == "completed"
    assert [c.content.text for c in call.content] == ["1 passed", "2 passed"]


def test_v2_kinds_the_table_does_not_know_are_kept_as_their_last_update(v2: Any) -> None:
    plan = {"sessionUpdate": "plan_update", "plan": {"type": "items", "entries": []}}
    state = SessionState()
    try:
        update = v2.decode(json.dumps(plan).encode(), v2.SessionUpdate)
    except (
        Exception
    ):  # the v2 plan shape differs from this guess: any unknown-to-FOLDS kind will do
        update = v2.decode(
            json.dumps({"sessionUpdate": "state_update", "state": "idle"}).encode(),
            v2.SessionUpdate,
        )
    state.fold(update)
    assert list(state.other.values()) == [update]
