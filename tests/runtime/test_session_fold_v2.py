"""The same fold on a recorded turn in ACP v2 shapes (tests/runtime/data/turn_v2.json), decoded by
the committed v2 package: messages upserted by id with three-state patches (omitted: unchanged,
null: cleared, a value: replaced; chunks append), tool calls, terminals and compactions patched by
id, plans by id, the session's state, notices; kinds the table does not know are kept, never
dropped. tests/interop/test_typescript_v2.py checks the same turn against the TypeScript SDK."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import acp_schema_v2 as acp2
from acp_runtime import wire
from acp_runtime.session import SessionState

RECORDED = json.loads((Path(__file__).parent / "data" / "turn_v2.json").read_text())["updates"]


def fold_v2(updates: list[dict[str, Any]]) -> SessionState:
    state = SessionState()
    for update in updates:
        state.fold(acp2.decode(json.dumps(update).encode(), acp2.SessionUpdate))
    return state


def as_json(value: Any) -> Any:
    return json.loads(acp2.encode(value))


def message(message_id: str, **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "agent_message", "messageId": message_id, **fields}


def chunk(message_id: str, text: str) -> dict[str, Any]:
    content = {"type": "text", "text": text}
    return {"sessionUpdate": "agent_message_chunk", "messageId": message_id, "content": content}


def test_v2_messages_are_joined_by_id_and_a_whole_message_upsert_replaces_the_chunks() -> None:
    state = fold_v2(RECORDED)
    assert [(m.role, m.message_id, m.text()) for m in state.messages] == [
        ("user", "u1", "Fix the failing test"),
        ("thought", "t1", "Read the test first."),
        ("agent", "a1", "Fixed: f() returns 2."),
    ]


def test_a_message_upsert_without_content_keeps_it_and_null_clears_it() -> None:
    text = [{"type": "text", "text": "kept"}]
    kept = fold_v2([message("a1", content=text), message("a1", _meta={"k": 1})])
    assert kept.text() == "kept"
    cleared = fold_v2([message("a1", content=text), message("a1", content=None)])
    assert cleared.messages[0].content == [] and len(cleared.messages) == 1


def test_chunks_after_an_upsert_append_to_its_content() -> None:
    text = [{"type": "text", "text": "Hello"}]
    state = fold_v2([chunk("a1", "draft"), message("a1", content=text), chunk("a1", ", world")])
    assert state.text() == "Hello, world"


def test_upsert_meta_is_patched_by_key_and_null_clears_it() -> None:
    first = message("a1", _meta={"a": 1, "b": 2})
    state = fold_v2([first, message("a1", _meta={"b": None, "c": 3}), message("a1", _meta={})])
    assert state.messages[0].meta == {"a": 1, "c": 3}
    assert fold_v2([first, message("a1", _meta=None)]).messages[0].meta is None


def test_a_v2_tool_call_is_patched_by_id_and_its_content_chunks_append() -> None:
    call = fold_v2(RECORDED).tool_calls["call_1"]
    assert call.title == "Run tests" and wire.get(call, "kind") == "execute"  # omitted: kept
    assert wire.get(call, "status") == "completed"  # a value: replaced
    assert call.raw_input is None and call.capabilities is None  # null: cleared
    assert as_json(call.content) == [
        {"type": "content", "content": {"type": "text", "text": "1 failed"}},
        {"type": "terminal", "terminalId": "term_1"},
    ]
    assert call.meta == {"trace": "t-1", "done": True}  # _meta patched by key


def test_terminal_output_chunks_are_decoded_then_appended_and_a_snapshot_replaces_them() -> None:
    updates = RECORDED[: RECORDED.index(next(u for u in RECORDED if u.get("exitStatus")))]
    assert fold_v2(updates).terminal_output["term_1"] == b"running tests\r\n1 failed\r\n"
    state = fold_v2(RECORDED)
    assert state.terminal_output["term_1"] == b"1 failed\r\n"
    terminal = state.terminals["term_1"]
    assert terminal.command == "pytest" and terminal.exit_status.exit_code == 1


def test_a_terminal_chunk_split_inside_a_character_decodes_whole() -> None:
    data = "é".encode()
    chunks = [base64.b64encode(data[:1]).decode(), base64.b64encode(data[1:]).decode()]
    updates = [
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": d} for d in chunks
    ]
    assert fold_v2(updates).terminal_output["t"].decode() == "é"


def test_a_null_terminal_output_clears_the_bytes() -> None:
    update = {"sessionUpdate": "terminal_update", "terminalId": "t", "output": None}
    first = {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "aGk="}
    assert "t" not in fold_v2([first, update]).terminal_output


def test_plans_are_kept_by_id_each_replaced_completely() -> None:
    plans = fold_v2(RECORDED).plans
    assert sorted(plans) == ["p1", "p2"]
    assert [(e.content, wire.get(e, "status")) for e in plans["p1"].entries] == [
        ("Read the test", "completed"),
        ("Fix f()", "completed"),
    ]


def test_the_session_state_notices_compactions_and_usage_are_kept() -> None:
    state = fold_v2(RECORDED)
    assert (state.status, state.stop_reason) == ("idle", "end_turn")
    assert [n.title for n in state.notices] == ["Context is 90% full"]
    compaction = state.compactions["c1"]
    assert wire.get(compaction, "status") == "completed"
    assert [b.text for b in compaction.summary] == ["The user asked to fix a test."]
    assert (state.usage.used, state.usage.size) == (900, 1000)


def test_the_state_between_updates_is_the_last_state_reported() -> None:
    state = fold_v2(RECORDED[:2])
    assert (state.status, state.stop_reason) == ("running", None)


def test_v2_kinds_the_table_does_not_know_are_kept_as_their_last_update() -> None:
    state = fold_v2(RECORDED)
    assert [(kind, wire.get(u, "percent")) for kind, u in state.other.items()] == [
        ("_acme_progress", 100)
    ]
