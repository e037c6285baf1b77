"""docs/protocol/v1/cancellation.mdx: `$/cancel_request` in both directions, and internal
cancellation answered the same way."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.runtime.bounded import within

from .docs_peers import (
    CWD,
    SESSION,
    agent_serving,
    chunk,
    client_serving,
    connect,
    nothing_sent,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_client,
    text,
    typed,
    update,
)

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement

PROMPT = {"sessionId": SESSION, "prompt": [text("Analyze file X")]}
PERMISSION = {
    "sessionId": SESSION,
    "toolCall": {"toolCallId": "t1", "title": "Read secrets.env"},
    "options": [{"optionId": "yes", "name": "Allow", "kind": "allow_once"}],
}


class Hanging:
    """A handler that waits forever; records when it starts and when it is cancelled."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def __call__(self, params: Any) -> Any:
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            raise


@requirement("ACP-V1-CANCEL-REQUEST-MAY-CANCEL-ACTIVITY")
async def test_agent_cancels_a_request_and_the_calls_it_made_to_the_client(pkg: Any) -> None:
    nested = Hanging()

    async def prompt(params: Any) -> Any:
        read = typed(pkg, "fs/read_text_file", {"sessionId": SESSION, "path": f"{CWD}/x"})
        await agent.client.fs_read_text_file(read)
        return {"stopReason": "end_turn"}

    agent, client = await connect(
        pkg,
        agent_serving(pkg, session_prompt=prompt),
        client_serving(pkg, fs_read_text_file=nested),
        client_capabilities={"fs": {"readTextFile": True}},
    )
    call = await client.send_request("session/prompt", typed(pkg, "session/prompt", PROMPT))
    await nested.started.wait()
    await call.cancel()
    with pytest.raises(pkg.RpcError) as raised:
        await call
    assert raised.value.code == -32800
    await within(
        nested.cancelled.wait(), "the nested fs/read_text_file was not cancelled with the prompt"
    )


@requirement("ACP-V1-CANCEL-REQUEST-MAY-CANCEL-ACTIVITY")
async def test_client_cancels_a_request_the_agent_cancelled(pkg: Any) -> None:
    asking = Hanging()
    agent, client = await connect(
        pkg, client=client_serving(pkg, session_request_permission=asking)
    )
    call = await agent.send_request(
        "session/request_permission", typed(pkg, "session/request_permission", PERMISSION)
    )
    await asking.started.wait()
    await call.cancel()
    with pytest.raises(pkg.RpcError) as raised:
        await call
    assert raised.value.code == -32800
    assert asking.cancelled.is_set()


@requirement("ACP-V1-CANCEL-REQUEST-MAY-FINISH-NOTIFICATIONS")
async def test_notifications_sent_while_cancelling_precede_the_answer(pkg: Any) -> None:
    started = asyncio.Event()

    async def prompt(params: Any) -> Any:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            for n in range(5):
                await agent.client.session_update(update(pkg, chunk(f"pending {n}")))
            raise

    agent, peer = await raw_client(pkg, agent_serving(pkg, session_prompt=prompt))
    await peer.call(1, "session/new", {"cwd": CWD, "mcpServers": []})
    peer.send({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": PROMPT})
    await started.wait()
    peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 2}})
    seen = [await peer.recv() for _ in range(6)]
    assert [m.get("method") for m in seen[:5]] == ["session/update"] * 5
    assert (seen[5]["id"], seen[5]["error"]["code"]) == (2, -32800)


@requirement("ACP-V1-CANCEL-REQUEST-MUST-RESPOND")
async def test_a_cancelled_request_is_answered_once_with_minus_32800(pkg: Any) -> None:
    hanging = Hanging()
    agent, peer = await raw_client(pkg, agent_serving(pkg, session_set_mode=hanging))
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "session/set_mode",
            "params": {"sessionId": SESSION, "modeId": "ask"},
        }
    )
    await hanging.started.wait()
    for _ in range(2):  # a repeated cancel gets no second answer
        peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 7}})
    reply = await peer.recv()
    assert (reply["id"], reply["error"]["code"]) == (7, -32800)
    assert await nothing_sent(peer)


@requirement("ACP-V1-CANCEL-REQUEST-MUST-RESPOND")
async def test_a_cancelled_request_may_be_answered_with_a_partial_result(pkg: Any) -> None:
    started = asyncio.Event()

    async def list_sessions(params: Any) -> Any:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            return {"sessions": [{"sessionId": "s1", "cwd": CWD}], "_meta": {"partial": True}}

    capabilities = {"sessionCapabilities": {"list": {}}}
    agent, peer = await raw_client(
        pkg, agent_serving(pkg, capabilities, session_list=list_sessions)
    )
    peer.send({"jsonrpc": "2.0", "id": 3, "method": "session/list", "params": {}})
    await started.wait()
    peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 3}})
    reply = await peer.recv()
    assert reply == {
        "jsonrpc": "2.0",
        "id": 3,
        "result": {"sessions": [{"sessionId": "s1", "cwd": CWD}], "_meta": {"partial": True}},
    }


@requirement("ACP-V1-CANCEL-CALLER-MAY-WAIT")
async def test_the_caller_may_wait_for_the_answer_to_its_cancel(pkg: Any) -> None:
    started = asyncio.Event()

    async def read(params: Any) -> Any:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            return {"content": "partial"}

    agent, client = await connect(
        pkg,
        client=client_serving(pkg, fs_read_text_file=read),
        client_capabilities={"fs": {"readTextFile": True}},
    )
    call = await agent.send_request(
        "fs/read_text_file",
        typed(pkg, "fs/read_text_file", {"sessionId": SESSION, "path": f"{CWD}/x"}),
    )
    await started.wait()
    await call.cancel()
    assert (await call).content == "partial"


@requirement("ACP-V1-CANCEL-INTERNAL-SHOULD")
async def test_an_internal_timeout_is_answered_as_a_cancel_would_be(pkg: Any) -> None:
    """A handler whose own timeout expires (`asyncio.timeout` raising TimeoutError) is answered
    -32800, as if `$/cancel_request` had been received; deciding when to cancel internally is the
    application's part. (Closing the connection answers nothing: the peer's calls then fail with
    ConnectionClosedError.)"""

    async def set_mode(params: Any) -> Any:
        async with asyncio.timeout(0.01):
            await asyncio.Event().wait()

    agent, peer = await raw_client(pkg, agent_serving(pkg, session_set_mode=set_mode))
    reply = await peer.call(4, "session/set_mode", {"sessionId": SESSION, "modeId": "ask"})
    assert (reply["id"], reply["error"]["code"]) == (4, -32800)


@requirement("ACP-V1-CANCEL-INTERNAL-SHOULD")
async def test_a_handler_cancelled_from_inside_is_answered_minus_32800(pkg: Any) -> None:
    async def set_mode(params: Any) -> Any:
        raise asyncio.CancelledError  # e.g. its work was torn down by the application

    agent, peer = await raw_client(pkg, agent_serving(pkg, session_set_mode=set_mode))
    reply = await peer.call(5, "session/set_mode", {"sessionId": SESSION, "modeId": "ask"})
    assert (reply["id"], reply["error"]["code"]) == (5, -32800)
