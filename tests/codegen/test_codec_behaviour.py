"""How generated packages treat the wire: one behaviour per test."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

import acp_schema as acp

from .conftest import SCHEMAS

V2 = next(s for s in SCHEMAS if s.stem == "v2-stable-2026-08-20")


def roundtrip(data: bytes, tp: Any, **kw: Any) -> tuple[Any, bytes]:
    value = acp.decode(data, tp, **kw)
    return value, acp.encode(value)


# ---------------------------------------------------------------- enums


def test_unknown_value_of_an_open_enum_is_preserved_raw() -> None:
    value, again = roundtrip(b'"quantum"', acp.LlmProtocol)
    assert value.is_unknown and value.value == "quantum" and again == b'"quantum"'
    assert value not in list(acp.LlmProtocol)


def test_known_value_of_an_open_enum_is_its_member() -> None:
    assert acp.decode(b'"openai"', acp.LlmProtocol) is acp.LlmProtocol.OPENAI
    assert not acp.LlmProtocol.OPENAI.is_unknown


def test_unknown_value_of_a_closed_enum_is_rejected_strictly() -> None:
    with pytest.raises(msgspec.ValidationError):
        acp.decode(b'"paused"', acp.StopReason)


def test_unknown_value_of_a_closed_enum_is_kept_in_lenient_mode() -> None:
    value, again = roundtrip(b'"paused"', acp.StopReason, lenient=True)
    assert value.is_unknown and again == b'"paused"'


def test_unknown_error_code_is_kept_as_an_integer() -> None:
    value = acp.decode(b"-31999", acp.ErrorCode)
    assert value.is_unknown and value == -31999


# ---------------------------------------------------------------- unions


def test_unknown_variant_of_a_closed_union_is_rejected_strictly() -> None:
    with pytest.raises(msgspec.ValidationError):
        acp.decode(b'{"type": "video", "url": "x"}', acp.ContentBlock)


def test_unknown_variant_is_preserved_raw_in_lenient_mode() -> None:
    data = b'{"sessionId":"s","update":{"sessionUpdate":"hologram","depth":3}}'
    value, again = roundtrip(data, acp.SessionNotification, lenient=True)
    assert isinstance(value.update, acp.UnknownVariant)
    assert value.update.raw == {"sessionUpdate": "hologram", "depth": 3}
    assert msgspec.json.decode(again) == msgspec.json.decode(data)


def test_tagged_union_decodes_to_the_variant_of_its_tag() -> None:
    value = acp.decode(
        b'{"sessionUpdate":"agent_thought_chunk","content":{"type":"text","text":"hm"}}',
        acp.SessionUpdate,
    )
    assert isinstance(value, acp.SessionUpdateAgentThoughtChunk) and isinstance(
        value, acp.ContentChunk
    )
    assert isinstance(value.content, acp.TextContent)


def test_partially_tagged_union_takes_the_untagged_variant_when_the_tag_is_missing() -> None:
    stdio = acp.decode(b'{"name":"s","command":"c","args":[],"env":[]}', acp.McpServer)
    http = acp.decode(b'{"type":"http","name":"h","url":"u","headers":[]}', acp.McpServer)
    assert isinstance(stdio, acp.McpServerStdio) and isinstance(http, acp.McpServerHttp)
    assert b'"type"' not in acp.encode(stdio) and b'"type":"http"' in acp.encode(http)


def test_union_told_apart_by_required_keys() -> None:
    text = acp.decode(b'{"uri":"file:///a","text":"x"}', acp.EmbeddedResourceResource)
    blob = acp.decode(b'{"uri":"file:///a","blob":"eA=="}', acp.EmbeddedResourceResource)
    assert isinstance(text, acp.TextResourceContents) and isinstance(blob, acp.BlobResourceContents)
    with pytest.raises(msgspec.ValidationError):
        acp.decode(b'{"uri":"file:///a"}', acp.EmbeddedResourceResource)


def test_union_of_two_list_types_takes_the_one_that_fits() -> None:
    ungrouped = acp.decode(b'[{"value":"a","name":"A"}]', acp.SessionConfigSelectOptions)
    grouped = acp.decode(
        b'[{"group":"g","name":"G","options":[{"value":"a","name":"A"}]}]',
        acp.SessionConfigSelectOptions,
    )
    assert isinstance(ungrouped[0], acp.SessionConfigSelectOption)
    assert isinstance(grouped[0], acp.SessionConfigSelectGroup)


def test_union_with_its_own_properties_keeps_them_on_every_variant() -> None:
    data = b'{"type":"boolean","id":"fast","name":"Fast mode","currentValue":true}'
    value, again = roundtrip(data, acp.SessionConfigOption)
    assert value.id == "fast" and value.name == "Fast mode" and value.current_value is True
    assert msgspec.json.decode(again) == msgspec.json.decode(data)


def test_error_inside_a_hook_decoded_union_names_its_full_path() -> None:
    # A list of them, not NewSessionRequest.mcpServers: there the schema asks to skip bad items.
    data = b'[{"type":"http","name":"x","url":"u","headers":[{"name":1,"value":"v"}]}]'
    with pytest.raises(msgspec.ValidationError, match=r"at `\$\[0\]\.headers\[0\]\.name`"):
        acp.decode(data, list[acp.McpServer])


# ---------------------------------------------------------------- fields


def test_absent_and_null_stay_apart() -> None:
    # headers: optional, not nullable, and not marked lenient (a bad value is not replaced)
    provider = b'{"providerId":"main","apiType":"anthropic","baseUrl":"u"}'
    absent = acp.decode(provider, acp.SetProviderRequest)
    assert absent.headers is msgspec.UNSET
    assert b"headers" not in acp.encode(absent)
    with pytest.raises(msgspec.ValidationError):  # not nullable: null is not the same as absent
        acp.decode(provider[:-1] + b',"headers":null}', acp.SetProviderRequest)
    chunk = acp.decode(b'{"content":{"type":"text","text":"x"},"_meta":null}', acp.ContentChunk)
    assert chunk.meta is None and b'"_meta":null' in acp.encode(chunk)  # an explicit null is kept


def test_meta_passes_through_untouched_under_its_wire_name() -> None:
    data = b'{"sessionId":"real","prompt":[],"_meta":{"sessionId":"other","x":[1,{"y":null}]}}'
    value, again = roundtrip(data, acp.PromptRequest)
    assert value.session_id == "real" and value.meta == {
        "sessionId": "other",
        "x": [1, {"y": None}],
    }
    assert msgspec.json.decode(again) == msgspec.json.decode(data)


def test_schema_defaults_fill_absent_fields_and_are_always_encoded() -> None:
    value = acp.decode(b'{"protocolVersion":1}', acp.InitializeRequest)
    assert value.client_capabilities.fs.read_text_file is False
    assert (
        acp.encode(value.client_capabilities.fs) == b'{"readTextFile":false,"writeTextFile":false}'
    )


def test_a_value_equal_to_its_default_survives_a_round_trip() -> None:
    data = b'{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":false}}}'
    value, again = roundtrip(data, acp.InitializeRequest)
    assert msgspec.json.decode(again)["clientCapabilities"]["fs"]["readTextFile"] is False


def test_integer_bounds_of_the_format_are_enforced() -> None:
    with pytest.raises(msgspec.ValidationError):
        acp.decode(b"70000", acp.ProtocolVersion)


def test_undeclared_fields_are_dropped() -> None:
    value = acp.decode(b'{"type":"text","text":"x","surprise":1}', acp.ContentBlock)
    assert b"surprise" not in acp.encode(value)


# ---------------------------------------------------------------- whole messages


def msg(data: bytes, side: str = "agent", result: Any = None) -> Any:
    return acp.decode_message(data, side, lambda id: result)


def rpc_error(data: bytes, side: str = "agent") -> acp.RpcError:
    with pytest.raises(acp.RpcError) as info:
        msg(data, side)
    return info.value


def test_invalid_json_answers_parse_error_with_null_id() -> None:
    err = rpc_error(b'{"jsonrpc":"2.0","id":1,')
    assert err.code == -32700 and err.id is None


def test_json_that_is_not_a_message_answers_invalid_request() -> None:
    assert rpc_error(b"[1,2]").code == -32600
    assert rpc_error(b'{"jsonrpc":"1.0","id":1,"method":"initialize"}').code == -32600
    assert rpc_error(b'{"jsonrpc":"2.0","id":{"x":1},"method":"initialize"}').code == -32600


def test_unknown_method_answers_method_not_found_with_the_request_id() -> None:
    err = rpc_error(b'{"jsonrpc":"2.0","id":"a","method":"session/teleport","params":{}}')
    assert err.code == -32601 and err.id == "a"


def test_a_method_of_the_other_side_is_not_found() -> None:
    err = rpc_error(
        b'{"jsonrpc":"2.0","id":1,"method":"fs/read_text_file","params":{"sessionId":"s","path":"/a"}}',
        "agent",
    )
    assert err.code == -32601


def test_bad_params_answer_invalid_params_with_the_failing_path() -> None:
    err = rpc_error(
        b'{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text"}]}}'
    )
    assert err.code == -32602 and err.id == 7 and err.data["path"] == "$.params.prompt[0]"


def test_extension_methods_keep_their_name_and_untyped_params() -> None:
    request = msg(
        b'{"jsonrpc":"2.0","id":1,"method":"_zed.dev/workspace","params":{"_meta":{"a":1},"x":2}}'
    )
    assert isinstance(request, acp.Request) and request.method == "_zed.dev/workspace"
    assert request.params == {"_meta": {"a": 1}, "x": 2}


def test_unknown_notification_decodes_untyped_so_it_can_be_ignored() -> None:
    note = msg(b'{"jsonrpc":"2.0","method":"session/whatever","params":{"a":1}}')
    assert isinstance(note, acp.Notification) and note.params == {"a": 1}


def test_response_decodes_its_result_with_the_pending_requests_type() -> None:
    response = msg(
        b'{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}', "client", acp.PromptResponse
    )
    assert (
        isinstance(response.result, acp.PromptResponse)
        and response.result.stop_reason is acp.StopReason.END_TURN
    )


def test_null_result_of_a_result_type_without_required_fields_is_empty() -> None:
    response = msg(b'{"jsonrpc":"2.0","id":3,"result":null}', "client", acp.LoadSessionResponse)
    assert response.result == acp.LoadSessionResponse()


def test_null_result_of_a_result_type_with_required_fields_is_rejected() -> None:
    with pytest.raises(acp.RpcError):
        msg(b'{"jsonrpc":"2.0","id":3,"result":null}', "client", acp.PromptResponse)


def test_error_answer_decodes_as_error_response() -> None:
    answer = msg(
        b'{"jsonrpc":"2.0","id":3,"error":{"code":-32000,"message":"auth","data":{"k":1}}}',
        "client",
    )
    assert (
        isinstance(answer, acp.ErrorResponse)
        and answer.error.code == -32000
        and answer.error.data == {"k": 1}
    )


def test_encode_message_round_trips_and_never_holds_a_newline() -> None:
    request = acp.Request(
        id=1,
        method="session/prompt",
        params=acp.PromptRequest(session_id="s", prompt=[acp.TextContent(text="a\nb")]),
    )
    data = acp.encode_message(request)
    assert b"\n" not in data
    assert msg(data) == request


def test_errors_have_a_class_per_schema_code() -> None:
    assert acp.error_for(-32000).__class__.__name__ == "AuthenticationRequiredError"
    assert type(acp.error_for(-1)) is acp.RpcError and acp.error_for(-1).code == -1
    assert acp.error_for(-32602, "bad", {"path": "$"}).to_error_object() == {
        "code": -32602,
        "message": "bad",
        "data": {"path": "$"},
    }


# ---------------------------------------------------------------- v2: open unions, forgiving fields


def test_open_union_keeps_an_unknown_variant_in_strict_mode(generate: Any) -> None:
    v2 = generate(V2)
    value = v2.decode(b'{"type":"hologram","depth":3}', v2.ContentBlock)
    assert (
        isinstance(value, v2.UnknownVariant)
        and v2.encode(value) == b'{"type":"hologram","depth":3}'
    )


def test_default_on_error_field_takes_its_default_when_bad(generate: Any) -> None:
    v2 = generate(V2)
    value = v2.decode(b'{"toolCallId":"t","title":42}', v2.ToolCallUpdate)
    assert value.tool_call_id == "t" and value.title is msgspec.UNSET  # no schema default: absent


def test_skip_invalid_items_drops_only_the_bad_items(generate: Any) -> None:
    v2 = generate(V2)
    data = b'{"toolCallId":"t","locations":[{"path":"/a"},{"path":5},{"path":"/b"}]}'
    value = v2.decode(data, v2.ToolCallUpdate)
    assert [loc.path for loc in value.locations] == ["/a", "/b"]


@pytest.mark.parametrize(
    "data",
    [
        b'{"toolCallId":"t","locations":[{"path":"/a"},{"path":5},{"path":"/b"},{"line":1}]}',
        b'{"toolCallId":"t","title":42,"locations":[{"path":1},{"path":"/b"}]}',
        b'{"toolCallId":"t","title":42,"kind":7,"status":[],"locations":[{"path":"/a","line":"x"}]}',
    ],
)
def test_repairing_the_failing_places_gives_what_the_full_walk_gives(
    generate: Any, data: bytes
) -> None:
    v2 = generate(V2)
    walked = v2._lenient.convert(msgspec.json.decode(data), v2.ToolCallUpdate, unknown=False)
    assert v2.decode(data, v2.ToolCallUpdate) == walked


def test_a_union_tag_of_the_wrong_json_type_is_a_validation_error_on_the_repair_path(
    generate: Any,
) -> None:
    v1 = generate(V2.parent / "v1-stable-2026-08-20.json")
    with pytest.raises(msgspec.ValidationError):
        v1.decode(b'{"outcome":{"outcome":["selected"]}}', v1.RequestPermissionResponse)


@pytest.mark.parametrize(
    "update",
    [
        b'{"sessionUpdate":"tool_call_update","toolCallId":"t",'
        b'"locations":[{"path":"/a"},{"line":1},{"path":"/b"}]}',
        b'{"sessionUpdate":"tool_call_update","toolCallId":"t","title":42,'
        b'"locations":[{"path":1},{"path":"/b"}]}',
    ],
)
def test_a_call_repaired_in_one_pass_equals_what_the_careful_path_decodes(update: bytes) -> None:
    data = (
        b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":'
        + update
        + b"}}"
    )
    careful = acp.decode(
        msgspec.json.encode(msgspec.json.decode(data)["params"]), acp.SessionNotification
    )
    decoded = acp.MessageDecoder("client").decode(data)
    assert isinstance(decoded, acp.Notification) and decoded.method == "session/update"
    assert decoded.params == careful


def test_a_call_broken_outside_what_the_schema_forgives_still_names_the_place() -> None:
    data = (
        b'{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"s",'
        b'"prompt":[{"type":"text","text":1}]}}'
    )
    with pytest.raises(acp.RpcError) as info:
        acp.MessageDecoder("agent").decode(data)
    assert info.value.code == -32602 and info.value.data["path"] == "$.params.prompt[0].text"


def test_a_hook_union_value_its_fast_path_refuses_gets_the_full_choice_and_error() -> None:
    # stdio is the one untagged McpServer variant: a stdio server without its command fails there,
    # with the error the full choice gives; a complete one decodes as that variant
    with pytest.raises(msgspec.ValidationError, match="command"):
        acp.decode(b'{"name":"x","args":[],"env":[]}', acp.McpServer)
    good = acp.decode(b'{"name":"x","command":"c","args":[],"env":[]}', acp.McpServer)
    assert isinstance(good, acp.McpServerStdio)
