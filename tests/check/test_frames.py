"""Frame validation names what is wrong and where: the JSON path for a frame off the schema."""

from __future__ import annotations

import acp_schema
from acpgen.check.frames import NOT_A_MESSAGE, NOT_UTF8, SCHEMA, Validator


def test_a_session_update_off_the_schema_names_its_path() -> None:
    frame = (
        b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s",'
        b'"update":{"sessionUpdate":"agent_message_chunk","content":{"text":"x"}}}}'
    )
    _, method, problem = Validator(acp_schema, "client").inspect(frame)
    assert method == "session/update" and problem is not None
    assert (problem.kind, problem.path) == (SCHEMA, "$.params.update.content")
    assert "type" in problem.message


def test_an_answer_is_decoded_with_the_result_type_of_its_request() -> None:
    validator = Validator(acp_schema, "client")
    validator.expect("a", "initialize")
    _, method, problem = validator.inspect(
        b'{"jsonrpc":"2.0","id":"a","result":{"protocolVersion":"1"}}'
    )
    assert method == "initialize" and problem is not None
    assert problem.path == "$.result.protocolVersion"
    # the same bytes answering an id the checker did not send are not typed: no problem
    assert (
        Validator(acp_schema, "client").inspect(b'{"jsonrpc":"2.0","id":"a","result":{}}')[2]
        is None
    )


def test_ids_of_different_json_types_are_different_requests() -> None:
    validator = Validator(acp_schema, "client")
    validator.expect("1", "initialize")
    assert validator.answered(1) is None and validator.answered("1") == "initialize"


def test_bytes_that_are_not_utf8_or_not_a_message() -> None:
    validator = Validator(acp_schema, "client")
    assert validator.inspect(b'{"a":"caf\xe9"}')[2].kind == NOT_UTF8  # type: ignore[union-attr]
    assert validator.inspect(b"ready")[2].kind == NOT_A_MESSAGE  # type: ignore[union-attr]
    assert validator.inspect(b"[1]")[2].kind == NOT_A_MESSAGE  # type: ignore[union-attr]


def test_a_request_the_client_side_does_not_receive() -> None:
    frame = b'{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/","mcpServers":[]}}'
    problem = Validator(acp_schema, "client").inspect(frame)[2]
    assert problem is not None and problem.kind == SCHEMA and "session/new" in problem.message


def test_an_initialize_answer_choosing_another_version_is_read_in_that_versions_shape() -> None:
    import acp_schema_v2

    v1_answer = b'{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1,"agentCapabilities":{}}}'
    v2 = Validator(acp_schema_v2, "client", 2, {1: acp_schema})
    v2.expect(1, "initialize")
    assert v2.inspect(v1_answer)[2] is None
    # a version the checker has no package for: its answer's shape is unknown, not judged
    v2.expect(2, "initialize")
    assert v2.inspect(b'{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":7}}')[2] is None
    # without the other version's package the v2 decoder would have refused the v1 answer
    plain = Validator(acp_schema_v2, "client")
    plain.expect(1, "initialize")
    assert plain.inspect(v1_answer)[2] is not None
