"""The JSON-RPC engine's tables and hooks: the hooks through which a protocol rides on the engine
(`Policy`); the engine's ordered inbox of notifications and answers, and its observed transport;
its outgoing calls: the calls awaiting an answer, and `PendingCall`, what `send_request` gives its
caller."""

from __future__ import annotations

import asyncio
import contextvars
from collections import OrderedDict, deque
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Container, Generator

import msgspec

from .errors import RequestTimeoutError

if TYPE_CHECKING:
    from . import RequestId
    from .engine import Engine
    from .package import ErrorResponseMessage, NotificationMessage, ResponseMessage, TypeForm
    from .transport import Transport

Step = Callable[[Any], Any]


class Policy:
    """The hooks through which a protocol's rules and handlers ride on the engine, given to it by
    its owner (`acp_runtime.protocol.policy` for ACP's). This one applies no rule and serves
    nothing: values are only checked against the package's types."""

    # the methods whose results `on_result` reads (None: all); any other result is given as it is
    results_read: Container[str] | None = None
    # the methods of requests `received_request` acts on (None: all); it is not called for others
    requests_watched: Container[str] | None = None
    # the methods of calls `sent` acts on (None: all); it is not called for others
    sends_watched: Container[str] | None = None

    def before_send(self, method: str, params: Any) -> Any:
        """An outgoing call or notification: raise to refuse it; returns the params to send."""
        return params

    def sent(self, method: str, params: Any) -> None:
        """An outgoing call or notification went out."""

    def received_request(self, method: str, params: Any) -> None:
        """A request arrived (its handler starts next)."""

    def received_notification(self, method: str, params: Any) -> bool:
        """A notification arrived; False: drop it."""
        return True

    def notification_step(self, method: str) -> tuple[Step | None, Step | None]:
        """What the worker does with notifications of `method`, asked once per method and kept:
        a step before the handler, and the handler itself, each a function of the params (None:
        no step; no handler function, so the worker awaits `handle(message)`)."""
        return None, None

    def handle(self, message: NotificationMessage) -> Awaitable[Any]:
        """The handler's awaitable for a notification."""
        raise NotImplementedError

    def serve(self, request: Any) -> Awaitable[Any]:
        """The handler's answer to a request, checked: raise to refuse it."""
        raise NotImplementedError

    def on_result(self, method: str, params: Any, result: Any) -> Any:
        """The peer's result for one of our calls, checked; returns what the call gives."""
        return result


EOF: Any = object()  # the end of the inbox: the peer's output ended


class Answer:
    """An answer that arrived after notifications still to be handled: it waits its turn."""

    __slots__ = ("response",)

    def __init__(self, response: ResponseMessage | ErrorResponseMessage) -> None:
        self.response = response


class Inbox:
    """The received notifications and answers (`Answer`), in arrival order, for the one worker
    task that handles them (an `asyncio.Queue` without its bookkeeping: a deque, and a wake-up
    future only while the worker waits)."""

    __slots__ = ("items", "waiter")

    def __init__(self) -> None:
        self.items: deque[Any] = deque()
        self.waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self.items.append(item)
        if self.waiter is not None:
            self.wake()

    def wake(self) -> None:
        waiter, self.waiter = self.waiter, None  # once: the items after it find none to wake
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Any:
        while not self.items:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        return self.items.popleft()


class ObservedTransport:
    """The connection's transport, showing each outgoing message to `show` first."""

    def __init__(self, transport: Transport, show: Callable[[bytes], None]) -> None:
        self._transport = transport
        self._show = show
        self.start = transport.start
        self.close = transport.close
        self.pause_reading = transport.pause_reading
        self.resume_reading = transport.resume_reading

    def send_nowait(self, message: bytes) -> None:
        self._show(message)
        self._transport.send_nowait(message)

    async def send(self, message: bytes) -> None:
        self._show(message)
        await self._transport.send(message)


DEFAULT: TypeForm = object()  # "the method's own result type"
in_notification: contextvars.ContextVar[object | None] = contextvars.ContextVar(
    "acp_runtime_in_notification", default=None
)  # the engine whose notification handler runs in this task (its calls resolve on arrival)


class Outgoing(msgspec.Struct):
    method: str
    result_type: TypeForm
    future: asyncio.Future[Any]
    direct: bool  # made from inside a notification handler: resolve on arrival
    answered: bool = False


class PendingCalls(dict["RequestId", Outgoing]):
    """The calls awaiting an answer by request id, and beside them (`types`) each one's result
    type: a plain dict, which the decoder reads on every answer without a Python call."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._loop = loop
        self.types: dict[RequestId, TypeForm] = {}
        self.abandoned: OrderedDict[RequestId, None] = OrderedDict()  # their answers dropped

    def open(
        self, request_id: RequestId, method: str, result_type: TypeForm, direct: bool
    ) -> asyncio.Future[Any]:
        """A call now pending: the future its answer resolves."""
        future: asyncio.Future[Any] = self._loop.create_future()
        self[request_id] = Outgoing(method, result_type, future, direct)
        self.types[request_id] = result_type
        return future

    def find(self, request_id: Any) -> Outgoing | None:
        """The call pending as `request_id` (None: none, or an id no call can have)."""
        try:
            return self.get(request_id)
        except TypeError:  # an unhashable id, as a peer may send
            return None

    def method_of(self, request_id: Any) -> str | None:
        """The method of the call pending as `request_id` (None: no such call)."""
        outgoing = self.find(request_id)
        return outgoing.method if outgoing is not None else None

    def take(self, request_id: RequestId) -> Outgoing | None:
        """The call of `request_id`, no longer pending (None: none, or an id no call can have)."""
        try:
            self.types.pop(request_id, None)
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
        self.take(request_id)
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
        self.take(request_id)
        if future.done() and not future.cancelled():
            future.exception()  # failed by the shutdown the write caused: the caller raises that

    def abandon(self, request_id: RequestId) -> bool:
        """Stop waiting for a call (its late answer is dropped); False when it was not pending."""
        if self.take(request_id) is None:
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
            self.take(request_id)
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
        conn: Engine[Any],
        request_id: int,
        method: str,
        params: Any,
        future: asyncio.Future[Any],
        timeout: float | None,
        policy: Policy,
    ) -> None:
        self.id = request_id
        self.method = method
        self.timeout = timeout
        self._conn = conn
        self._policy = policy  # the rules the call was made under, which check its result
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
                self._conn.abandon(self.id)
            raise
        except TimeoutError:
            if self._future.done() or timeout is None:
                raise  # the answer itself was an error of that kind
            self._conn.abandon(self.id)  # sends $/cancel_request, drops a late answer
            raise RequestTimeoutError(self.method, timeout) from None
        return self._policy.on_result(self.method, self._params, result)

    async def cancel(self) -> None:
        await self._conn.cancel_request(self.id)
