"""The naming rules, unit by unit: acronyms, separators, digits, and the reserved words, which are
a fixed list (the generated names never depend on the Python running the generator)."""

from __future__ import annotations

import keyword

import pytest

from acpgen import naming

# wire name -> (words, snake, pascal, constant)
ACRONYMS = {
    "HTTPHeader": (["HTTP", "Header"], "http_header", "HTTPHeader", "HTTP_HEADER"),
    "getHTTPResponseCode": (
        ["get", "HTTP", "Response", "Code"],
        "get_http_response_code",
        "GetHTTPResponseCode",
        "GET_HTTP_RESPONSE_CODE",
    ),
    "JSONRPCMessage": (
        ["JSONRPC", "Message"],
        "jsonrpc_message",
        "JSONRPCMessage",
        "JSONRPC_MESSAGE",
    ),
    "httpSSE": (["http", "SSE"], "http_sse", "HttpSSE", "HTTP_SSE"),
    "SSE": (["SSE"], "sse", "SSE", "SSE"),
    "IOError": (["IO", "Error"], "io_error", "IOError", "IO_ERROR"),
    "McpServerHttp": (
        ["Mcp", "Server", "Http"],
        "mcp_server_http",
        "McpServerHttp",
        "MCP_SERVER_HTTP",
    ),
    "toolCallId": (["tool", "Call", "Id"], "tool_call_id", "ToolCallId", "TOOL_CALL_ID"),
    "v2Schema": (["v2", "Schema"], "v2_schema", "V2Schema", "V2_SCHEMA"),
    "Base64Data": (["Base64", "Data"], "base64_data", "Base64Data", "BASE64_DATA"),
    "_meta": (["meta"], "meta", "Meta", "META"),
    "text/plain": (["text", "plain"], "text_plain", "TextPlain", "TEXT_PLAIN"),
    "session/set_config_option": (
        ["session", "set", "config", "option"],
        "session_set_config_option",
        "SessionSetConfigOption",
        "SESSION_SET_CONFIG_OPTION",
    ),
}


@pytest.mark.parametrize("wire", sorted(ACRONYMS))
def test_acronyms_stay_one_word_and_split_from_the_next_word(wire: str) -> None:
    words, snake, pascal, constant = ACRONYMS[wire]
    got = (naming.words(wire), naming.snake(wire), naming.pascal(wire), naming.constant(wire))
    assert got == (words, snake, pascal, constant), f"the names of {wire!r}"


def test_digits_and_signs_make_valid_names() -> None:
    assert naming.snake("2fa") == "v_2fa"
    assert naming.pascal("2fa") == "V2fa"
    assert naming.constant("-32700") == "MINUS_32700"
    assert naming.constant("") == "EMPTY"
    assert naming.snake("") == "value"
    assert naming.verbatim("_x-y") == "x_y"


@pytest.mark.parametrize("word", sorted(keyword.kwlist))
def test_every_keyword_of_this_python_is_suffixed(word: str) -> None:
    assert word in naming.RESERVED
    assert naming.safe_identifier(word) == word + "_"
    assert naming.snake(word.lower()) == (
        word.lower() + "_" if word.lower() in naming.RESERVED else word.lower()
    )


def test_the_reserved_words_do_not_follow_the_running_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Python 3.12 made `type` a soft keyword: a generator on 3.13 must still write `type`."""
    newer = [*keyword.softkwlist, "type", "newsoft"]
    monkeypatch.setattr(keyword, "softkwlist", newer)
    monkeypatch.setattr(keyword, "issoftkeyword", frozenset(newer).__contains__)
    monkeypatch.setattr(keyword, "kwlist", [*keyword.kwlist, "newhard"])
    monkeypatch.setattr(keyword, "iskeyword", frozenset([*keyword.kwlist]).__contains__)
    assert naming.snake("type") == "type"
    assert naming.snake("newsoft") == "newsoft"
    assert naming.snake("newhard") == "newhard"
    assert (naming.snake("match"), naming.snake("case"), naming.snake("class")) == (
        "match_",
        "case_",
        "class_",
    )
