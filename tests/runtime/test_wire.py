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
