"""Reading generated objects by wire name: how the rules see any generated package."""

from __future__ import annotations

import msgspec

import acp_schema as acp
from acp_runtime import wire


def test_get_walks_structs_by_wire_name() -> None:
    caps = acp.AgentCapabilities(
        session_capabilities=acp.SessionCapabilities(list=acp.SessionListCapabilities())
    )
    assert wire.get(caps, "sessionCapabilities", "list") == acp.SessionListCapabilities()
    assert wire.get(caps, "sessionCapabilities", "resume") is None
    assert wire.get(caps, "loadSession") is False


def test_get_answers_the_tag_of_a_tagged_struct() -> None:
    assert wire.get(acp.ImageContent(data="", mime_type="image/png"), "type") == "image"


def test_get_reads_dicts_unknown_variants_and_enum_values() -> None:
    assert wire.get({"a": {"b": 1}}, "a", "b") == 1
    assert (
        wire.get(acp.PromptResponse(stop_reason=acp.StopReason.CANCELLED), "stopReason")
        == "cancelled"
    )
    update = acp.decode(
        b'{"sessionId":"s","update":{"sessionUpdate":"brand_new","x":1}}',
        acp.SessionNotification,
        lenient=True,
    )
    assert wire.get(update, "update", "sessionUpdate") == "brand_new"


def test_absent_unset_and_null_all_read_as_none() -> None:
    request = acp.NewSessionRequest(cwd="/", mcp_servers=[])
    assert request.additional_directories is msgspec.UNSET
    assert wire.get(request, "additionalDirectories") is None
    assert wire.get(None, "x") is None and wire.get(request, "nope") is None
    assert wire.items(request, "additionalDirectories") == []


def test_replace_and_build_use_wire_names() -> None:
    response = wire.replace(
        acp.InitializeResponse(protocol_version=5, agent_capabilities=acp.AgentCapabilities()),
        "protocolVersion",
        1,
    )
    assert response.protocol_version == 1
    built = wire.build(acp, {"stopReason": "cancelled"}, acp.PromptResponse)
    assert built == acp.PromptResponse(stop_reason=acp.StopReason.CANCELLED)


def _updates() -> list[acp.SessionNotification]:
    """session/update params of several kinds: some may hold the paths below, some cannot."""
    text = acp.TextContent(text="hi")
    kinds: list[object] = [
        acp.SessionUpdateAgentMessageChunk(content=text),
        acp.SessionUpdateUserMessageChunk(content=text),
        acp.ToolCall(tool_call_id="t1", title="Read", locations=[acp.ToolCallLocation(path="/a")]),
        acp.ToolCall(tool_call_id="t2", title="Read"),
        acp.ToolCallUpdate(tool_call_id="t1", locations=[acp.ToolCallLocation(path="rel")]),
        acp.Plan(entries=[]),
    ]
    return [acp.SessionNotification(session_id="s", update=k) for k in kinds]  # type: ignore[arg-type]


def test_reach_answers_a_value_the_same_once_its_type_was_seen() -> None:
    """`Reach.may_hold` reads the field of a type seen before through its one-field fast path
    (and `guards._gated`'s gate writes that path out): each answer is the one a fresh `Reach`
    works out, for every kind of update, in any order."""
    paths = ("update.locations.*.path", "update.content.*.path", "update.plan.uri")
    values: list[object] = [*_updates(), {"update": {"sessionUpdate": "plan"}}, None]
    fresh = [wire.Reach(paths).may_hold(value) for value in values]
    assert True in fresh and False in fresh  # both answers are exercised
    seen = wire.Reach(paths)
    for _ in range(3):
        assert [seen.may_hold(value) for value in values] == fresh
        assert [seen.may_hold(value) for value in reversed(values)] == fresh[::-1]
    assert seen.one_field  # the fast path was taken


def test_a_gate_answers_as_its_checks_do() -> None:
    """A guard of several checks behind one `Reach` (`guards._gated`) refuses exactly what one of
    its checks refuses, whether or not the value's type was seen before."""
    from acp_runtime.protocol import guards

    reach_paths = ("update.locations.*.path", "update.plan.uri")

    def relative(value: object, initialize: object) -> str | None:
        paths = wire.values(value, "update.locations.*.path")
        return "relative" if any(not str(p).startswith("/") for p in paths) else None

    def never(value: object, initialize: object) -> str | None:
        return None

    checks = [guards.Check(relative, holds=reach_paths[:1]), guards.Check(never, holds=reach_paths)]
    (gate,) = guards._gated(checks)
    values = _updates()
    expected = [relative(v, None) for v in values]
    assert "relative" in expected and None in expected
    for _ in range(3):
        assert [gate(v, None) for v in values] == expected
