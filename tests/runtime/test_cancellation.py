"""session/cancel and $/cancel_request, in both directions."""

from __future__ import annotations

import asyncio
import logging

import pytest

import acp_schema as acp

from .bounded import within
from .helpers import Agent, Client, pair, raw_agent, raw_client, text_update


class Blocking(Agent):
    """session/prompt waits until cancelled; records what it saw."""

    def __init__(self, conn, **kwargs):
        super().__init__(conn, **kwargs)
        self.started = asyncio.Event()
        self.events: list[str] = []

    async def session_prompt(self, params):
        self.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.events.append("prompt cancelled")
            await self.conn.client.session_update(text_update(params.session_id, "last words"))
            raise
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)

    async def session_cancel(self, params):
        self.events.append(f"session_cancel {params.session_id}")


async def test_session_cancel_ends_the_running_prompt_with_stop_reason_cancelled() -> None:
    client_handler = Client()
    agent, client = await pair(Blocking, client_handler)
    prompt = asyncio.ensure_future(
        client.agent.session_prompt(acp.PromptRequest(session_id="s1", prompt=[]))
    )
    await within(agent.handler.started.wait(), "the prompt never reached the agent")
    await client.agent.session_cancel(acp.CancelNotification(session_id="s1"))
    answer = await within(prompt, "turn not cancelled: the prompt is still unanswered")
    assert answer.stop_reason == acp.StopReason.CANCELLED
    assert agent.handler.events[0] == "prompt cancelled"
    # the update sent while cancelling was handled before the prompt call returned
    assert [u.update.content.text for u in client_handler.updates] == ["last words"]


async def test_session_cancel_still_reaches_the_handler() -> None:
    agent, client = await pair(Blocking)
    await client.agent.session_cancel(acp.CancelNotification(session_id="s9"))
    await client.request("_ping", {})
    assert agent.handler.events == ["session_cancel s9"]


async def test_session_cancel_only_touches_its_own_session() -> None:
    agent, client = await pair(Blocking)
    prompt = asyncio.ensure_future(
        client.agent.session_prompt(acp.PromptRequest(session_id="s1", prompt=[]))
    )
    await within(agent.handler.started.wait(), "the prompt never reached the agent")
    await client.agent.session_cancel(acp.CancelNotification(session_id="other"))
    await client.request("_ping", {})
    assert not prompt.done()
    await client.agent.session_cancel(acp.CancelNotification(session_id="s1"))
    answer = await within(prompt, "turn not cancelled: the prompt is still unanswered")
    assert answer.stop_reason == acp.StopReason.CANCELLED


async def test_an_error_raised_by_a_cancelled_prompt_still_answers_cancelled() -> None:
    class Failing(Blocking):
        async def session_prompt(self, params):
            self.started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                raise RuntimeError("the model request was aborted") from None

    agent, client = await pair(Failing)
    prompt = asyncio.ensure_future(
        client.agent.session_prompt(acp.PromptRequest(session_id="s1", prompt=[]))
    )
    await within(agent.handler.started.wait(), "the prompt never reached the agent")
    await client.agent.session_cancel(acp.CancelNotification(session_id="s1"))
    answer = await within(prompt, "turn not cancelled: the prompt is still unanswered")
    assert answer.stop_reason == acp.StopReason.CANCELLED


async def test_a_prompt_handler_may_answer_the_cancel_itself() -> None:
    class Own(Blocking):
        async def session_prompt(self, params):
            self.started.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                return acp.PromptResponse(
                    stop_reason=acp.StopReason.CANCELLED, meta={"partial": True}
                )

    agent, client = await pair(Own)
    prompt = asyncio.ensure_future(
        client.agent.session_prompt(acp.PromptRequest(session_id="s1", prompt=[]))
    )
    await within(agent.handler.started.wait(), "the prompt never reached the agent")
    await client.agent.session_cancel(acp.CancelNotification(session_id="s1"))
    answer = await within(prompt, "turn not cancelled: the prompt is still unanswered")
    assert answer.stop_reason == acp.StopReason.CANCELLED and answer.meta == {"partial": True}


PERMISSION = {
    "sessionId": "s1",
    "toolCall": {"toolCallId": "t1", "title": "rm -rf"},
    "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
}


async def test_sending_session_cancel_answers_pending_permission_requests_cancelled() -> None:
    cancelled = asyncio.Event()
    asked = asyncio.Event()

    class Undecided(Client):
        async def session_request_permission(self, params):
            asked.set()
            try:
                await asyncio.Event().wait()  # the user never answers
            except asyncio.CancelledError:
                cancelled.set()
                raise

    conn, peer = await raw_agent(Undecided())
    init = asyncio.ensure_future(
        conn.agent.initialize(
            acp.InitializeRequest(protocol_version=1, client_capabilities=acp.ClientCapabilities())
        )
    )
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 1}})
    await init
    peer.send(
        {"jsonrpc": "2.0", "id": 10, "method": "session/request_permission", "params": PERMISSION}
    )
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": 11,
            "method": "session/request_permission",
            "params": {**PERMISSION, "sessionId": "s2"},
        }
    )
    await asked.wait()
    await conn.agent.session_cancel(acp.CancelNotification(session_id="s1"))
    assert (await peer.recv())["method"] == "session/cancel"
    assert await peer.recv() == {
        "jsonrpc": "2.0",
        "id": 10,
        "result": {"outcome": {"outcome": "cancelled"}},
    }
    assert cancelled.is_set()
    await peer.barrier()  # the other session's request is still pending: nothing else was sent


async def test_receiving_cancel_request_cancels_the_handler_and_answers_minus_32800() -> None:
    cancelled = asyncio.Event()

    class Slow(Agent):
        async def ext_method(self, method, params):
            if method == "_ping":
                return {"pong": True}
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                cancelled.set()
                raise

    conn, peer = await raw_client(Slow)
    peer.send({"jsonrpc": "2.0", "id": 5, "method": "_slow", "params": {}})
    await peer.barrier()  # _slow is running
    peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 5}})
    answer = await peer.recv()
    assert answer["id"] == 5 and answer["error"]["code"] == -32800
    assert cancelled.is_set()


async def test_cancel_request_for_an_unknown_id_is_ignored() -> None:
    conn, peer = await raw_client()
    peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 12345}})
    await peer.barrier()


async def test_a_handler_may_answer_a_cancel_request_with_a_partial_result() -> None:
    class Partial(Agent):
        async def ext_method(self, method, params):
            if method == "_ping":
                return {"pong": True}
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                return {"partial": True}

    conn, peer = await raw_client(Partial)
    peer.send({"jsonrpc": "2.0", "id": "w", "method": "_work", "params": {}})
    await peer.barrier()
    peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": "w"}})
    assert await peer.recv() == {"jsonrpc": "2.0", "id": "w", "result": {"partial": True}}


@pytest.mark.parametrize("direction", ["client to agent", "agent to client"])
async def test_the_caller_of_a_cancelled_request_gets_the_typed_cancelled_error(direction) -> None:
    started = asyncio.Event()

    class Hanging:
        async def ext_method(self, method, params):
            started.set()
            await asyncio.Event().wait()

    class HangingAgent(Hanging, Agent):
        pass

    class HangingClient(Hanging, Client):
        pass

    agent, client = await pair(HangingAgent, HangingClient())
    caller = client if direction == "client to agent" else agent
    call = await caller.send_request("_hang", {})
    await within(started.wait(), "the request never reached its handler")
    await call.cancel()
    with pytest.raises(acp.RequestCancelledError) as info:
        await within(call, "request not cancelled: the call is still unanswered")
    assert info.value.code == -32800


async def test_cancelling_the_awaiting_task_sends_cancel_request_and_drops_the_late_answer(
    caplog,
) -> None:
    conn, peer = await raw_agent(enforce_protocol=False)
    task = asyncio.ensure_future(conn.request("_slow", {}))
    request = await peer.recv()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    note = await peer.recv()
    assert note == {
        "jsonrpc": "2.0",
        "method": "$/cancel_request",
        "params": {"requestId": request["id"]},
    }
    with caplog.at_level(logging.WARNING, logger="acp_runtime"):
        peer.send(
            {
                "jsonrpc": "2.0",
                "id": request["id"],
                "error": {"code": -32800, "message": "Request cancelled"},
            }
        )
        await peer.barrier()
    assert "unknown id" not in caplog.text


async def test_cancelling_a_prompt_cascades_to_the_agents_own_pending_calls() -> None:
    asked = asyncio.Event()
    client_cancelled = asyncio.Event()

    class Asking(Agent):
        async def session_prompt(self, params):
            request = acp.decode(
                b'{"sessionId": "s1", "toolCall": {"toolCallId": "t1"}, "options": []}',
                acp.RequestPermissionRequest,
            )
            await self.conn.client.session_request_permission(request)
            return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)

    class Waiting(Client):
        async def session_request_permission(self, params):
            asked.set()
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                client_cancelled.set()
                raise

    agent, client = await pair(Asking, Waiting())
    prompt = asyncio.ensure_future(
        client.agent.session_prompt(acp.PromptRequest(session_id="s1", prompt=[]))
    )
    await asked.wait()
    await client.agent.session_cancel(acp.CancelNotification(session_id="s1"))
    answer = await within(prompt, "turn not cancelled: the prompt is still unanswered")
    assert answer.stop_reason == acp.StopReason.CANCELLED
    await within(client_cancelled.wait(), "the client's permission handler was not cancelled")


async def test_a_request_cancelled_before_its_handler_started_is_still_answered() -> None:
    conn, peer = await raw_client()
    # one chunk: the runtime reads both before the handler's task first runs
    peer.send_bytes(
        b'{"jsonrpc": "2.0", "id": 8, "method": "_ping", "params": {}}\n'
        b'{"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 8}}\n'
    )
    peer.send({"jsonrpc": "2.0", "id": "after", "method": "_ping", "params": {}})
    # whatever their order, both are answered; an answer that never comes fails the assertion
    answers = [await peer.recv()]
    try:
        answers.append(await peer.recv(timeout=1.0))
    except TimeoutError:
        pass
    by_id = {answer["id"]: answer for answer in answers}
    assert set(by_id) == {8, "after"}, answers
    assert by_id[8]["error"]["code"] == -32800 and by_id["after"]["result"] == {"pong": True}
    await peer.barrier()
