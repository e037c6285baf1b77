"""A served request's task starts eagerly on Python 3.12 and later (`serving.Server.start`): when
the request came alone in its read and no notification waits before it, its handler runs in the
call that took the read, up to its first wait. Its handler must see what a task's first step
sees: its own task as `current_task()`, `asyncio.timeout` working, a context of its own, and
`$/cancel_request` (or a turn ended by the handler itself) cancelling it."""

from __future__ import annotations

import asyncio
import contextvars
import json
import sys
from typing import Any

import pytest

from acp_runtime import ClientSideConnection
from acp_runtime.jsonrpc.framing import PushReader
from acp_runtime.jsonrpc.serving import EAGER

from .helpers import Agent, Client, raw_client

_seen: contextvars.ContextVar[str] = contextvars.ContextVar("seen", default="unset")


class _Probing(Agent):
    def __init__(self, conn: Any) -> None:
        super().__init__(conn)
        self.views: list[dict[str, Any]] = []

    async def ext_method(self, method: str, params: Any) -> Any:
        if method == "_probe":
            task = asyncio.current_task()
            self.views.append(
                {
                    "task": task,
                    "in_read": self.conn._server.alone,  # within the call that took the read
                    "context": _seen.get(),
                }
            )
            _seen.set(params["name"])  # this request's context only
            try:
                async with asyncio.timeout(0.01):
                    await asyncio.sleep(10)
            except TimeoutError:
                return {"timedOut": True, "context": _seen.get()}
            return {"timedOut": False}
        if method == "_wait":
            await asyncio.Event().wait()
        return await super().ext_method(method, params)


def test_the_eager_start_is_on_from_python_3_12() -> None:
    assert EAGER == (sys.version_info >= (3, 12))


async def test_a_handler_started_eagerly_runs_as_in_a_task_of_its_own() -> None:
    conn, peer = await raw_client(_Probing)
    handler = conn.handler
    assert isinstance(handler, _Probing)
    for name in ("a", "b"):
        answer = await peer.call(name, "_probe", {"name": name})
        assert answer["result"] == {"timedOut": True, "context": name}, answer
    first, second = handler.views
    assert first["task"] is not None and second["task"] is not None
    assert first["task"] is not second["task"]  # a task each, never the reader's
    assert first["task"] is not conn._transport._pump
    assert first["context"] == second["context"] == "unset"  # nothing leaked from "a" to "b"
    assert _seen.get() == "unset"
    assert first["in_read"] == EAGER and second["in_read"] == EAGER  # eager from 3.12
    # `$/cancel_request` cancels a handler that began eagerly and waits
    peer.send({"jsonrpc": "2.0", "id": 9, "method": "_wait", "params": {}})
    await asyncio.sleep(0.01)
    peer.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 9}})
    answer = await peer.recv()
    assert answer["id"] == 9 and answer["error"]["code"] == -32800, answer
    await conn.close()


class _Closing(Client):
    """Serves a permission request by closing its session: the close ends the turn, which
    cancels this very handler (`Serving.cancel` from inside its own, maybe eager, first step)."""

    conn: Any = None

    async def session_request_permission(self, params: Any) -> Any:
        await self.conn.request("session/close", {"sessionId": "s1"})
        await asyncio.sleep(10)  # cancelled by then: never reached
        pytest.fail("the handler was not cancelled")


class _Captured:
    """A stream whose writes never wait (as a pipe with room): a handler's first step goes on
    past its writes."""

    def __init__(self) -> None:
        self.lines: list[Any] = []

        class Transport:
            def get_write_buffer_size(self) -> int:
                return 0

        self.transport = Transport()
        self.closed = False

    def write(self, data: bytes) -> None:
        self.lines += [json.loads(line) for line in data.splitlines()]

    async def drain(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True


async def test_a_handler_that_ends_its_own_turn_is_cancelled_even_in_its_first_step() -> None:
    handler, reader, out = _Closing(), PushReader(), _Captured()
    conn = ClientSideConnection(handler, reader, out, enforce_protocol=False)
    handler.conn = conn
    await asyncio.sleep(0)
    options = [{"optionId": "ok", "name": "OK", "kind": "allow_once"}]
    request = {
        "jsonrpc": "2.0",
        "id": 100,
        "method": "session/request_permission",
        "params": {"sessionId": "s1", "toolCall": {"toolCallId": "t"}, "options": options},
    }
    reader.feed_data(json.dumps(request).encode() + b"\n")
    for _ in range(5):
        await asyncio.sleep(0)
    # the close went out, was abandoned (the handler awaiting it was cancelled), then the
    # permission request was answered as cancelled
    close, dropped, answer = out.lines
    assert close["method"] == "session/close", out.lines
    assert dropped == {
        "jsonrpc": "2.0",
        "method": "$/cancel_request",
        "params": {"requestId": close["id"]},
    }
    assert answer == {"jsonrpc": "2.0", "id": 100, "result": {"outcome": {"outcome": "cancelled"}}}
    await conn.close()
