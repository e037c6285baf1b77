"""Bad input never kills the connection nor loses other in-flight work."""

from __future__ import annotations

import asyncio
import json
import logging

import acp_schema as acp
from acp_runtime import AgentSideConnection, memory_pipe

from .helpers import Agent, RawPeer, raw_client


async def test_invalid_json_answers_parse_error_with_null_id() -> None:
    conn, peer = await raw_client()
    peer.send_bytes(b'{"jsonrpc": "2.0", "id": 7, "method": \n')
    answer = await peer.recv()
    assert answer["id"] is None and answer["error"]["code"] == -32700
    await peer.barrier()


async def test_json_that_is_no_message_answers_invalid_request() -> None:
    conn, peer = await raw_client()
    for junk in (
        b"[1, 2]",
        b'"text"',
        b"42",
        b'{"jsonrpc": "2.0"}',
        b'{"id": 3, "method": "session/new"}',
    ):
        peer.send_bytes(junk + b"\n")
        answer = await peer.recv()
        assert answer["error"]["code"] == -32600, (junk, answer)
    await peer.barrier()


async def test_missing_jsonrpc_member_answers_invalid_request_with_its_id() -> None:
    conn, peer = await raw_client()
    peer.send({"id": 5, "method": "session/new", "params": {"cwd": "/", "mcpServers": []}})
    answer = await peer.recv()
    assert answer["id"] == 5 and answer["error"]["code"] == -32600


async def test_unknown_method_answers_method_not_found() -> None:
    conn, peer = await raw_client()
    answer = await peer.call(1, "session/teleport", {})
    assert answer["id"] == 1 and answer["error"]["code"] == -32601


async def test_method_of_the_other_side_answers_method_not_found() -> None:
    conn, peer = await raw_client()
    answer = await peer.call(1, "fs/read_text_file", {"sessionId": "s", "path": "/a"})
    assert answer["error"]["code"] == -32601


async def test_unknown_notification_is_ignored() -> None:
    conn, peer = await raw_client()
    peer.send({"jsonrpc": "2.0", "method": "session/teleported", "params": {"x": 1}})
    peer.send({"jsonrpc": "2.0", "method": "_vendor/hello", "params": {"x": 1}})
    await peer.barrier()


async def test_invalid_params_answer_with_the_failing_path_in_data() -> None:
    conn, peer = await raw_client()
    answer = await peer.call(3, "session/new", {"cwd": 5, "mcpServers": []})
    assert answer["id"] == 3 and answer["error"]["code"] == -32602
    assert answer["error"]["data"]["path"] == "$.params.cwd", answer
    prompt = {"sessionId": "s1", "prompt": [{"type": "text", "text": 5}]}
    answer = await peer.call(4, "session/prompt", prompt)
    assert answer["error"]["data"]["path"] == "$.params.prompt[0].text", answer


async def test_invalid_params_inside_a_partially_tagged_union_name_their_path() -> None:
    conn, peer = await raw_client()
    # boolean is a tagged variant, value_id the untagged rest (mcpServers skips bad items instead)
    params = {"sessionId": "s1", "configId": "c", "type": "boolean", "value": 5}
    answer = await peer.call(3, "session/set_config_option", params)
    assert answer["id"] == 3 and answer["error"]["code"] == -32602
    assert answer["error"]["data"]["path"] == "$.params.value", answer


async def test_notification_with_invalid_params_is_not_answered() -> None:
    conn, peer = await raw_client()
    peer.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": 5}})
    await peer.barrier()


async def test_response_to_unknown_id_is_logged_and_dropped(caplog) -> None:
    conn, peer = await raw_client()
    with caplog.at_level(logging.WARNING, logger="acp_runtime"):
        peer.send({"jsonrpc": "2.0", "id": 999, "result": {}})
        peer.send({"jsonrpc": "2.0", "id": 998, "error": {"code": -32603, "message": "x"}})
        await peer.barrier()
    assert "unknown id 999" in caplog.text
    assert "998" in caplog.text


async def test_invalid_utf8_answers_parse_error() -> None:
    conn, peer = await raw_client()
    peer.send_bytes(
        b'{"jsonrpc": "2.0", "id": 1, "method": "_ping", "params": {"a": "\xff\xfe"}}\n'
    )
    answer = await peer.recv()
    assert answer["error"]["code"] == -32700 and answer["id"] is None
    await peer.barrier()


async def test_invalid_utf8_outside_strings_answers_parse_error() -> None:
    conn, peer = await raw_client()
    peer.send_bytes(b'\xff{"jsonrpc": "2.0", "id": 1, "method": "_ping"}\n')
    answer = await peer.recv()
    assert answer["error"]["code"] == -32700 and answer["id"] is None
    await peer.barrier()


async def test_binary_garbage_answers_parse_errors_and_the_connection_lives_on() -> None:
    conn, peer = await raw_client()
    peer.send_bytes(bytes(range(256)).replace(b"\n", b"") + b"\n\x00\x01\x02\n")
    assert (await peer.recv())["error"]["code"] == -32700
    assert (await peer.recv())["error"]["code"] == -32700
    await peer.barrier()


async def test_blank_lines_are_skipped() -> None:
    conn, peer = await raw_client()
    peer.send_bytes(b"\n\r\n   \n")
    await peer.barrier()


async def test_eof_mid_line_still_takes_a_complete_last_message() -> None:
    conn, peer = await raw_client()
    peer.send_bytes(b'{"jsonrpc": "2.0", "id": 9, "method": "_ping", "params": {}}')  # no newline
    peer.close()
    answer = await peer.recv()
    assert answer == {"jsonrpc": "2.0", "id": 9, "result": {"pong": True}}
    await conn.wait_closed()


async def test_eof_mid_message_answers_parse_error_and_closes() -> None:
    conn, peer = await raw_client()
    peer.send_bytes(b'{"jsonrpc": "2.0", "id": 9, "meth')
    peer.close()
    assert (await peer.recv())["error"]["code"] == -32700
    await conn.wait_closed()


async def test_a_50_mb_line_is_read_and_decoded() -> None:
    got: list[int] = []

    class Big(Agent):
        async def ext_method(self, method, params):
            if method == "_big":
                got.append(len(params["blob"]))
                return {"size": len(params["blob"])}
            return await super().ext_method(method, params)

    conn, peer = await raw_client(Big)
    blob = "x" * (50 * 1024 * 1024)
    answer = await peer.call(1, "_big", {"blob": blob})
    assert answer["result"] == {"size": len(blob)} and got == [len(blob)]


async def test_a_50_mb_prompt_decodes_typed() -> None:
    sizes: list[int] = []

    class Big(Agent):
        async def session_prompt(self, params):
            sizes.append(len(params.prompt[0].text))
            return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)

    conn, peer = await raw_client(Big)
    text = "y" * (50 * 1024 * 1024)
    answer = await peer.call(
        1, "session/prompt", {"sessionId": "s1", "prompt": [{"type": "text", "text": text}]}
    )
    assert answer["result"] == {"stopReason": "end_turn"} and sizes == [len(text)]


async def test_a_line_over_the_limit_is_answered_with_an_error_and_the_connection_lives_on() -> (
    None
):
    conn, peer = await raw_client(max_line_bytes=1000)
    peer.send({"jsonrpc": "2.0", "id": 41, "method": "_ping", "params": {"pad": "z" * 5000}})
    answer = await peer.recv()
    assert answer["id"] == 41 and answer["error"]["code"] == -32600
    assert answer["error"]["data"]["limit"] == 1000
    await peer.barrier()
    peer.send(
        {"jsonrpc": "2.0", "method": "_note", "params": {"pad": "z" * 5000}}
    )  # notification: no answer
    await peer.barrier("after")


async def test_an_oversized_response_fails_its_call_only() -> None:
    (a_in, a_out), (p_in, p_out) = memory_pipe()
    conn = AgentSideConnection(Agent, a_in, a_out, max_line_bytes=1000, enforce_protocol=False)
    peer = RawPeer(p_in, p_out)
    call = asyncio.ensure_future(conn.request("_ext/big", {}))
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"pad": "z" * 5000}})
    try:
        await call
    except acp.RpcError as err:
        assert err.code == -32600 and "exceeds the limit" in err.message
    else:
        raise AssertionError("the oversized answer should fail the call")
    await peer.barrier()


def slow_agent(release: asyncio.Event) -> type:
    """An agent whose `_slow` extension request answers only once `release` is set."""

    class Slow(Agent):
        async def ext_method(self, method, params):
            if method == "_slow":
                await release.wait()
                return {"done": True}
            return await super().ext_method(method, params)

    return Slow


async def test_duplicate_id_of_a_running_request_is_refused() -> None:
    release = asyncio.Event()
    Slow = slow_agent(release)

    conn, peer = await raw_client(Slow)
    peer.send({"jsonrpc": "2.0", "id": 5, "method": "_slow", "params": {}})
    peer.send({"jsonrpc": "2.0", "id": 5, "method": "_slow", "params": {}})
    answer = await peer.recv()
    assert answer["id"] == 5 and answer["error"]["code"] == -32600
    release.set()
    assert (await peer.recv()) == {"jsonrpc": "2.0", "id": 5, "result": {"done": True}}


async def test_bad_input_does_not_lose_work_in_flight() -> None:
    release = asyncio.Event()
    Slow = slow_agent(release)

    conn, peer = await raw_client(Slow)
    peer.send({"jsonrpc": "2.0", "id": "slow", "method": "_slow", "params": {}})
    peer.send_bytes(b"\xff\xff garbage\n{not json}\n[]\n")
    codes = [(await peer.recv())["error"]["code"] for _ in range(3)]
    assert codes == [-32700, -32700, -32600]
    release.set()
    assert (await peer.recv()) == {"jsonrpc": "2.0", "id": "slow", "result": {"done": True}}
    assert not conn.closed


async def test_output_is_one_message_per_line_without_embedded_newlines() -> None:
    class Multiline(Agent):
        async def ext_method(self, method, params):
            return {"text": "line one\nline two\r\n", "sep": "\u2028"}

    conn, peer = await raw_client(Multiline)
    peer.send({"jsonrpc": "2.0", "id": 1, "method": "_text", "params": {}})
    line = await peer.lines.readline()
    assert b"\n" not in line
    assert json.loads(line)["result"]["text"] == "line one\nline two\r\n"
