"""The JSON-RPC layer's outgoing calls: the calls awaiting an answer, and `PendingCall`, what
`send_request` gives its caller."""

from __future__ import annotations

import asyncio
import contextvars
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Generator, Protocol

import msgspec

from . import tracing
from .errors import ConnectionClosedError, RequestTimeoutError
from .sending import write_failed

if TYPE_CHECKING:
    from ..jsonrpc.package import TypeForm
    from . import RequestId
    from .sending import Sender
    from .transport import Transport

_DEFAULT: TypeForm = object()  # "the method's own result type"
_in_notification: contextvars.ContextVar[object | None] = contextvars.ContextVar(
    "acp_runtime_in_notification", default=None
)  # the engine whose notification handler runs in this task (its calls resolve on arrival)


class _Caller(Protocol):
    """What a pending call asks of its engine."""

    def _abandon(self, request_id: RequestId) -> None: ...

    async def cancel_request(self, request_id: RequestId) -> None: ...

    @property
    def policy(self) -> _Results: ...


class _Results(Protocol):
    def on_result(self, method: str, params: Any, result: Any) -> Any:
        """The peer's result for one of our calls, checked; returns what the call gives."""


class _Calling(Protocol):
    """What `start_call` reads and sets on its engine."""

    schema: Any
    policy: Any
    tracer: Any
    _close_error: ConnectionClosedError | None
    _eof_error: ConnectionClosedError | None
    _sender: Sender
    _read_as_json: frozenset[str]
    _next_id: int
    _loop: asyncio.AbstractEventLoop
    _pending: PendingCalls


def start_call(
    engine: _Calling, method: str, params: Any, result_type: TypeForm
) -> tuple[int, asyncio.Future[Any], Any, bytes]:
    """A call of `engine` about to be sent, checked and pending: its id, the future its answer
    resolves, its params as checked, and its message."""
    error = engine._close_error or engine._eof_error  # no call once either end closed
    if error is not None:
        raise error
    sender = engine._sender
    sender.sending = None
    params = engine.policy.before_send(method, params)
    if engine.tracer is not None:
        params = tracing.inject(engine.tracer, params)
    if method in engine._read_as_json:
        result_type = None
    elif result_type is _DEFAULT:
        info = engine.schema.REQUESTS.get(method)
        result_type = info.result if info is not None else None
    request_id = engine._next_id
    engine._next_id = request_id + 1
    future: asyncio.Future[Any] = engine._loop.create_future()
    direct = _in_notification.get() is engine
    pending = engine._pending  # `PendingCalls.__setitem__`, written out: no slot call per call
    _set_item(pending, request_id, Outgoing(method, result_type, future, direct))
    pending.types[request_id] = result_type
    return request_id, future, params, sender.request(request_id, method, params)


class _Sending(_Calling, Protocol):
    """What `send_call` also asks of its engine (and its `PendingCall`, of a `_Caller`)."""

    timeout: float | None
    _transport: Transport

    async def _write(self, data: bytes) -> None: ...

    def _abandon(self, request_id: RequestId) -> None: ...

    async def cancel_request(self, request_id: RequestId) -> None: ...

    async def send_request(
        self, method: str, params: Any = None, result_type: TypeForm = ..., *, timeout: Any = ...
    ) -> PendingCall: ...

    def _shutdown(self, error: ConnectionClosedError) -> None: ...


async def request(
    engine: _Sending,
    method: str,
    params: Any = None,
    result_type: TypeForm = _DEFAULT,
    *,
    timeout: Any = _DEFAULT,
) -> Any:
    """Send a request and wait for its typed result (or raise the peer's typed error).

    `timeout` (seconds; default the connection's `timeout`, None for no limit): when no answer
    came in time, `$/cancel_request` is sent, a late answer is dropped, and the call raises
    `RequestTimeoutError`.
    """
    timeout = engine.timeout if timeout is _DEFAULT else timeout
    if timeout is not None:
        return await (await engine.send_request(method, params, result_type, timeout=timeout))
    # `send_request` and `PendingCall` without a limit, written out: no other coroutine of ours
    request_id, future, params, data = start_call(engine, method, params, result_type)
    pending, policy = engine._pending, engine.policy
    try:  # `_write`, written out (closed: `start_call` raised)
        await engine._transport.send(data)
    except asyncio.CancelledError:
        engine._abandon(request_id)  # the request is on its way: ask the peer to drop it
        raise
    except (ConnectionError, OSError, RuntimeError) as exc:
        failed = write_failed(engine, exc)
        pending.drop(request_id, future)
        raise failed from exc
    except BaseException:
        pending.drop(request_id, future)
        raise
    if policy.sends_watched is None or method in policy.sends_watched:
        policy.sent(method, params)
    try:
        result = await future
    except asyncio.CancelledError:
        if not future.done() or future.cancelled():
            engine._abandon(request_id)
        raise
    if policy.results_read is not None and method not in policy.results_read:
        return result  # `on_result` would give it back as it is
    return policy.on_result(method, params, result)


async def send_call(
    engine: _Sending, method: str, params: Any, result_type: TypeForm, timeout: Any
) -> PendingCall:
    """`Engine.send_request`: the call written, and pending with its time limit (`_DEFAULT`: the
    engine's)."""
    request_id, future, params, data = start_call(engine, method, params, result_type)
    try:
        await engine._write(data)
    except asyncio.CancelledError:
        # cancelled while the peer reads: the request is on its way, so ask the peer to drop it
        engine._abandon(request_id)
        raise
    except BaseException:
        engine._pending.drop(request_id, future)
        raise
    engine.policy.sent(method, params)
    timeout = engine.timeout if timeout is _DEFAULT else timeout
    return PendingCall(engine, request_id, method, params, future, timeout)


class Outgoing(msgspec.Struct):
    method: str
    result_type: TypeForm
    future: asyncio.Future[Any]
    direct: bool  # made from inside a notification handler: resolve on arrival
    answered: bool = False


_set_item = dict.__setitem__  # a plain dict's, beside `PendingCalls.__setitem__`


class PendingCalls(dict["RequestId", Outgoing]):
    """The calls awaiting an answer by request id, and beside them (`types`) each one's result
    type: a plain dict, which the decoder reads on every answer without a Python call."""

    def __init__(self) -> None:
        super().__init__()
        self.types: dict[RequestId, TypeForm] = {}
        self.abandoned: OrderedDict[RequestId, None] = OrderedDict()  # their answers dropped

    def __setitem__(self, request_id: RequestId, outgoing: Outgoing) -> None:
        super().__setitem__(request_id, outgoing)
        self.types[request_id] = outgoing.result_type

    def __delitem__(self, request_id: RequestId) -> None:
        super().__delitem__(request_id)
        del self.types[request_id]

    def pop(self, request_id: RequestId, *default: Any) -> Any:
        self.types.pop(request_id, None)
        return super().pop(request_id, *default)

    def take(self, request_id: RequestId) -> Outgoing | None:
        """The call of `request_id`, no longer pending (None: none, or an id no call can have)."""
        try:
            outgoing: Outgoing | None = self.pop(request_id, None)
            return outgoing
        except TypeError:
            return None

    def resolve(self, response: Any, schema: Any) -> None:
        """End the call a response answers with its result or its error."""
        outgoing = self.take(response.id)
        if outgoing is not None:
            self.settle(response.id, outgoing, response, schema)

    def settle(self, request_id: RequestId, outgoing: Outgoing, response: Any, schema: Any) -> None:
        """End the call `outgoing` (pending as `request_id`, found by the caller) with a response:
        no longer pending, its future given the result or the error."""
        dict.pop(self, request_id, None)
        self.types.pop(request_id, None)
        future = outgoing.future
        if future.done():
            return
        if isinstance(response, schema.Response):
            future.set_result(response.result)
        elif isinstance(response, schema.ErrorResponse):
            error = response.error
            future.set_exception(schema.error_for(error.code, error.message, error.data))

    def drop(self, request_id: RequestId, future: asyncio.Future[Any]) -> None:
        """A call whose message could not be written: no longer pending."""
        self.pop(request_id, None)
        if future.done() and not future.cancelled():
            future.exception()  # failed by the shutdown the write caused: the caller raises that

    def abandon(self, request_id: RequestId) -> bool:
        """Stop waiting for a call (its late answer is dropped); False when it was not pending."""
        if self.pop(request_id, None) is None:
            return False
        self.abandoned[request_id] = None
        while len(self.abandoned) > 1024:
            self.abandoned.popitem(last=False)
        return True

    def fail_all(self, error: BaseException, *, keep_answered: bool) -> None:
        """Fail every call (but those answered already, with `keep_answered`) with `error`."""
        for request_id, outgoing in list(self.items()):
            if keep_answered and outgoing.answered:
                continue
            del self[request_id]
            if not outgoing.future.done():
                outgoing.future.set_exception(error)


class PendingCall:
    """An outgoing request in flight. `await call` gives its result or raises its error.

    Cancelling the task that awaits it sends `$/cancel_request` to the peer and drops the answer;
    `await call.cancel()` asks the peer to cancel and lets the call end with the peer's answer
    (typically the generated -32800 error).
    """

    def __init__(
        self,
        conn: _Caller,
        request_id: int,
        method: str,
        params: Any,
        future: asyncio.Future[Any],
        timeout: float | None = None,
    ) -> None:
        self.id = request_id
        self.method = method
        self.timeout = timeout
        self._conn = conn
        self._params = params
        self._future = future

    def __await__(self) -> Generator[Any, None, Any]:
        return self._wait().__await__()

    async def _wait(self) -> Any:
        timeout = self.timeout
        try:
            if timeout is None:
                result = await self._future
            else:
                result = await asyncio.wait_for(asyncio.shield(self._future), timeout)
        except asyncio.CancelledError:
            if not self._future.done() or self._future.cancelled():
                self._conn._abandon(self.id)
            raise
        except TimeoutError:
            if self._future.done() or timeout is None:
                raise  # the answer itself was an error of that kind
            self._conn._abandon(self.id)  # sends $/cancel_request, drops a late answer
            raise RequestTimeoutError(self.method, timeout) from None
        return self._conn.policy.on_result(self.method, self._params, result)

    async def cancel(self) -> None:
        await self._conn.cancel_request(self.id)
