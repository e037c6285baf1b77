"""A session's state folded from its updates: checked on a recorded v1 turn, on the patch rules the
generated types imply, and against the official Python SDK's own accumulator (acp.contrib)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgspec

import acp_schema as acp
from acp_runtime.session import SessionState, patch

RECORDED = json.loads((Path(__file__).parent / "data" / "turn_v1.json").read_text())["updates"]


def fold_all(updates: list[dict[str, Any]]) -> SessionState:
    state = SessionState()
    for update in updates:
        state.fold(acp.decode(json.dumps(update).encode(), acp.SessionUpdate))
    return state


def as_json(value: Any) -> Any:
    return json.loads(acp.encode(value))


def test_chunks_without_message_ids_join_into_one_message_per_speaker_turn() -> None:
    state = fold_all(RECORDED)
    assert [(m.role, m.text()) for m in state.messages] == [
        ("user", "Fix the failing test"),
        ("thought", "Read the test first."),
        ("agent", "Let me look at the test. Fixed: f() returns 2."),
    ]


def test_chunks_with_message_ids_join_by_id_even_when_interleaved() -> None:
    chunks = [("a", "one "), ("b", "two "), ("a", "three"), ("b", "four")]
    updates = [
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": mid,
            "content": {"type": "text", "text": t},
        }
        for mid, t in chunks
    ]
    state = fold_all(updates)
    assert [(m.message_id, m.text()) for m in state.messages] == [
        ("a", "one three"),
        ("b", "two four"),
    ]


def test_a_tool_call_is_created_then_patched_by_id() -> None:
    call = fold_all(RECORDED).tool_calls["call_1"]
    assert call.title == "Read tests/test_x.py" and call.kind == acp.ToolKind.READ
    assert call.status == acp.ToolCallStatus.COMPLETED
    assert as_json(call.content) == [
        {"type": "content", "content": {"type": "text", "text": "def test_x(): assert f() == 2"}}
    ]
    assert as_json(call.locations) == [{"path": "/home/u/p/tests/test_x.py"}]  # omitted later: kept
    assert call.raw_input == {"path": "tests/test_x.py"} and call.raw_output == {"lines": 1}


def test_a_tool_call_update_for_an_unknown_id_creates_the_call() -> None:
    call = fold_all(RECORDED).tool_calls["call_2"]
    assert call.title == "Edit src/x.py" and call.status == acp.ToolCallStatus.COMPLETED
    assert isinstance(call.content[0], acp.Diff) and call.content[0].new_text == "return 2"


def test_null_clears_a_field_whose_type_tells_null_from_omitted() -> None:
    start = {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t", "rawOutput": {"x": 1}}
    state = fold_all(
        [start, {"sessionUpdate": "tool_call_update", "toolCallId": "c", "rawOutput": None}]
    )
    assert state.tool_calls["c"].raw_output is None
    state = fold_all([start, {"sessionUpdate": "tool_call_update", "toolCallId": "c"}])
    assert state.tool_calls["c"].raw_output == {"x": 1}


def test_null_clears_the_title_and_status_too_as_their_types_tell_null_from_omitted() -> None:
    start = {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t", "status": "pending"}
    clear = {"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": None, "status": None}
    call = fold_all([start, clear]).tool_calls["c"]
    assert call.title is None and call.status is None


def test_null_leaves_a_field_unchanged_where_its_type_decodes_null_and_omitted_alike() -> None:
    class Call(msgspec.Struct):
        title: str | None = None

    class CallUpdate(msgspec.Struct):
        title: str | None = None  # default None: the decoded value cannot say which was sent

    assert patch(Call(title="t"), CallUpdate(title=None)).title == "t"
    assert patch(Call(title="t"), CallUpdate(title="u")).title == "u"


def test_a_field_added_to_the_types_is_patched_with_no_code_change() -> None:
    class Call(msgspec.Struct):
        id: str
        added_later: str | msgspec.UnsetType = msgspec.UNSET

    class CallUpdate(msgspec.Struct):
        id: str
        added_later: str | None | msgspec.UnsetType = msgspec.UNSET

    call = patch(Call(id="c"), CallUpdate(id="c", added_later="new"))
    assert call.added_later == "new"
    assert patch(call, CallUpdate(id="c")).added_later == "new"
    assert patch(call, CallUpdate(id="c", added_later=None)).added_later is None


def test_the_plan_mode_commands_config_options_usage_and_info_are_kept_current() -> None:
    state = fold_all(RECORDED)
    assert [(e.content, e.status.value) for e in state.plan] == [
        ("Read tests/test_x.py", "completed"),
        ("Fix the bug", "completed"),
    ]
    assert state.current_mode_id == "code"
    assert [c.name for c in state.commands] == ["web"]
    assert [o.id for o in state.config_options] == ["model"]
    assert (state.usage.used, state.usage.size) == (1200, 200000)
    assert (state.info.title, state.info.updated_at) == ("Fix failing test", "2026-11-30T06:00:00Z")


def test_a_kind_the_table_does_not_know_is_kept_as_its_last_update() -> None:
    state = SessionState()
    update = acp.decode(b'{"sessionUpdate": "brand_new", "x": 1}', acp.SessionUpdate, lenient=True)
    state.fold(update)
    assert state.other["brand_new"] is update


def test_whole_message_upserts_replace_the_message_content_by_id() -> None:
    """The v2 shape (`agent_message`): a whole message by messageId, patching the earlier one."""

    class AgentMessage(msgspec.Struct, tag_field="sessionUpdate", tag="agent_message"):
        message_id: str = msgspec.field(name="messageId")
        content: list[acp.TextContent] | None = None

    state = SessionState()
    draft = {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": acp.TextContent(text="d"),
    }
    state.fold(acp.decode(acp.encode(draft), acp.SessionUpdate))
    state.fold(AgentMessage(message_id="m", content=[acp.TextContent(text="final")]))
    state.fold(AgentMessage(message_id="m"))  # no content: unchanged
    assert [(m.message_id, m.text()) for m in state.messages] == [("m", "final")]


# --- the official Python SDK's accumulator on the same sequence -----------------------------------


def official_snapshot(updates: list[dict[str, Any]]) -> Any:
    from acp import schema
    from acp.contrib.session_state import SessionAccumulator

    accumulator = SessionAccumulator()
    for update in updates:
        accumulator.apply(
            schema.SessionNotification.model_validate({"sessionId": "s", "update": update})
        )
    return accumulator.snapshot()


def dump(model: Any) -> Any:
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def test_the_fold_agrees_with_the_official_sdk_accumulator_on_the_recorded_turn() -> None:
    ours, theirs = fold_all(RECORDED), official_snapshot(RECORDED)
    assert ours.text("agent") == "".join(c.content.text for c in theirs.agent_messages)
    assert ours.text("user") == "".join(c.content.text for c in theirs.user_messages)
    assert ours.text("thought") == "".join(c.content.text for c in theirs.agent_thoughts)
    assert as_json(ours.plan) == [dump(e) for e in theirs.plan_entries]
    assert as_json(ours.commands) == [dump(c) for c in theirs.available_commands]
    assert ours.current_mode_id == theirs.current_mode_id
    assert set(ours.tool_calls) == set(theirs.tool_calls)
    for tool_call_id, view in theirs.tool_calls.items():
        call = ours.tool_calls[tool_call_id]
        assert call.title == view.title and wire_value(call.status) == wire_value(view.status)
        assert wire_value(call.kind) == wire_value(view.kind)
        assert as_json(call.content or []) == [dump(c) for c in view.content or ()]
        assert as_json(call.locations or []) == [dump(c) for c in view.locations or ()]
        assert (call.raw_input or None, call.raw_output or None) == (
            view.raw_input,
            view.raw_output,
        )


def wire_value(value: Any) -> Any:
    return None if value is None or value is msgspec.UNSET else getattr(value, "value", value)
