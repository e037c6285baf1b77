"""The runtime's one JSON-RPC vocabulary (acp_runtime.jsonrpc): its error codes are those of every
generated package, and its one envelope reader tells each kind of message apart."""

from __future__ import annotations

import pytest

import acp_schema as v1
import acp_schema_v2 as v2
from acp_runtime import jsonrpc
from acp_runtime.protocol.connection import requested_version

CODES = ("PARSE_ERROR", "INVALID_REQUEST", "METHOD_NOT_FOUND", "INVALID_PARAMS", "INTERNAL_ERROR")


@pytest.mark.parametrize("package", [v1, v2], ids=["v1", "v2"])
def test_the_error_codes_are_those_of_the_generated_packages(package: object) -> None:
    errors = package.errors
    assert [getattr(jsonrpc, c) for c in CODES] == [getattr(errors, c) for c in CODES]


@pytest.mark.parametrize(
    "data, kind, request_id, session",
    [
        (
            b'{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"sessionId":"s"}}',
            "request",
            7,
            "s",
        ),
        (
            b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s"}}',
            "notification",
            None,
            "s",
        ),
        (b'{"jsonrpc":"2.0","id":"a","result":{"sessionId":"n"}}', "response", "a", None),
        (b'[{"jsonrpc":"2.0","id":1,"method":"x"}]', "batch", None, None),
        (b"42", "invalid", None, None),
        (b'{"jsonrpc":"2.0","id":1}', "invalid", None, None),
    ],
)
def test_the_envelope_reader_tells_the_kinds_apart(
    data: bytes, kind: str, request_id: object, session: str | None
) -> None:
    message = jsonrpc.peek(data)
    assert (message.kind, message.answer_id, message.session_id) == (kind, request_id, session)


def test_a_batch_of_notifications_only_is_told_from_one_with_a_request() -> None:
    note = b'{"jsonrpc":"2.0","method":"_n"}'
    assert jsonrpc.peek(b"[" + note + b"," + note + b"]").notifications_only
    assert not jsonrpc.peek(
        b"[" + note + b',{"jsonrpc":"2.0","id":1,"method":"_n"}]'
    ).notifications_only
    assert not jsonrpc.peek(b"[]").notifications_only
    assert jsonrpc.classify(b"[" + note + b"]") == ("notification", None)  # never answered


def test_an_answer_never_carries_an_id_that_is_no_integer_or_string() -> None:
    for raw in (b"true", b"1.5", b"null", b"{}"):
        line = b'{"jsonrpc":"2.0","id":' + raw + b',"method":"x"}'
        assert jsonrpc.peek(line).answer_id is None and jsonrpc.peek(line).id_key is None


def test_a_message_that_is_no_json_is_unparsable_unless_its_head_names_its_kind() -> None:
    assert jsonrpc.classify(b'[{"jsonrpc": "2.0", "id": 1') == ("unparsable", None)
    assert jsonrpc.classify(b'{"jsonrpc": "2.0", "id": 4, "method": "x"') == ("request", 4)


def test_negotiation_reads_the_requested_version_and_nothing_else() -> None:
    line = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":65535}}'
    assert requested_version(line) == 65535
    assert requested_version(line.replace(b'"id":0,', b"")) is None  # a notification
    assert requested_version(b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":[1]}') is None
    deep = b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":' + b"[" * 5000
    assert requested_version(deep + b"]" * 5000 + b"}") is None  # nested too deep: not routed
