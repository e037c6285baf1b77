"""The JSON-RPC engine's tables and hooks: the hooks through which a protocol rides on the engine
(`Policy`); its observed transport;
its outgoing calls: the calls awaiting an answer, and `PendingCall`, what `send_request` gives its
caller; and `Caller`, the engine's sending half (its transport and package, its calls and
notifications, its writes and its close), which `PendingCall` and `serving.Server` stand on: the
engine (`engine.Engine`) is a `Caller` that also receives."""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Container, Generator, Generic

import msgspec

from . import CANCEL_REQUEST, CANCEL_REQUEST_ID, tracing, wire
from .errors import CapabilityError, ConnectionClosedError, RequestTimeoutError
from .package import PackageT
from .sending import Envelopes, Sender, encode_error, error

if TYPE_CHECKING:
    from . import RequestId
    from .package import NotificationMessage, RpcException, TypeForm
    from .transport import Transport

log = logging.getLogger("acp_runtime")

Step = Callable[[Any], Any]


class Policy:
    """The hooks through which a protocol's rules and handlers ride on the engine, given to it by
    its owner (`acp_runtime.protocol.policy` for ACP's). This one applies no rule and serves
    nothing: values are only checked against the package's types."""

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


class PendingCalls(dict["RequestId", "PendingCall"]):
    """The calls awaiting an answer by request id, and beside them (`types`) each one's result
    type: a plain dict, which the decoder reads on every answer without a Python call."""

    def __init__(self) -> None:
        super().__init__()
        self.types: dict[RequestId, TypeForm] = {}
        self.abandoned: OrderedDict[RequestId, None] = OrderedDict()  # their answers dropped

    def open(self, call: PendingCall) -> None:
        """A call now pending: its future is resolved by its answer."""
        self[call.id] = call
        self.types[call.id] = call.result_type

    def take(self, request_id: RequestId) -> PendingCall | None:
        """The call of `request_id`, no longer pending (None: none). Ids are hashable: the package's
        decoder reads one as a `RequestId` (a string, a number or null), as `sniff` does."""
        self.types.pop(request_id, None)
        outgoing: PendingCall | None = self.pop(request_id, None)
        return outgoing

    def resolve(self, response: Any, schema: Any) -> None:
        """End the call a response answers: no longer pending, its future given the result or the
        error."""
        if isinstance(response, schema.ErrorResponse):
            error = response.error
            return self.fail(response.id, schema.error_for(error.code, error.message, error.data))
        outgoing = self.take(response.id)
        if outgoing is not None and not outgoing.future.done():
            outgoing.future.set_result(response.result)

    def drop(self, call: PendingCall) -> None:
        """A call whose message could not be written: no longer pending."""
        self.take(call.id)
        if call.future.done() and not call.future.cancelled():
            call.future.exception()  # failed by the shutdown the write caused: raised instead

    def abandon(self, request_id: RequestId) -> bool:
        """Stop waiting for a call (its late answer is dropped); False when it was not pending."""
        if self.take(request_id) is None:
            return False
        self.abandoned[request_id] = None
        while len(self.abandoned) > 1024:
            self.abandoned.popitem(last=False)
        return True

    def fail(self, request_id: RequestId, error: BaseException) -> None:
        """End the call of `request_id` (if pending) with `error`."""
        outgoing = self.take(request_id)
        if outgoing is not None and not outgoing.future.done():
            outgoing.future.set_exception(error)

    def fail_all(self, error: BaseException, *, keep_answered: bool) -> None:
        """Fail every call (but those answered already, with `keep_answered`) with `error`."""
        for request_id, outgoing in list(self.items()):
            if not (keep_answered and outgoing.answered):
                self.fail(request_id, error)


class PendingCall:
    """An outgoing request in flight. `await call` gives its result or raises its error.

    Cancelling the task that awaits it sends `$/cancel_request` to the peer and drops the answer;
    `await call.cancel()` asks the peer to cancel and lets the call end with the peer's answer
    (typically the generated -32800 error).
    """

    def __init__(
        self,
        conn: Caller[Any],
        request_id: int,
        method: str,
        params: Any,
        result_type: TypeForm,
        timeout: float | None,
        policy: Policy,
        future: asyncio.Future[Any],
    ) -> None:
        self.id = request_id
        self.method = method
        self.result_type = result_type
        self.timeout = timeout
        self.future = future  # resolved by its answer
        self.direct = in_notification.get() is conn  # made in a notification handler: on arrival
        self.answered = False  # its answer waits in the inbox behind notifications
        self._conn = conn
        self._policy = policy  # the rules the call was made under, which check its result
        self._params = params

    def __await__(self) -> Generator[Any, None, Any]:
        return self._wait().__await__()

    async def _wait(self) -> Any:
        timeout = self.timeout
        try:
            if timeout is None:
                result = await self.future
            else:
                result = await asyncio.wait_for(asyncio.shield(self.future), timeout)
        except asyncio.CancelledError:
            if not self.future.done() or self.future.cancelled():
                self._conn.abandon(self.id)
            raise
        except TimeoutError:
            if self.future.done() or timeout is None:
                raise  # the answer itself was an error of that kind
            self._conn.abandon(self.id)  # sends $/cancel_request, drops a late answer
            raise RequestTimeoutError(self.method, timeout) from None
        return self._policy.on_result(self.method, self._params, result)

    async def cancel(self) -> None:
        await self._conn.cancel_request(self.id)


class Caller(Generic[PackageT]):
    """The sending half of a JSON-RPC engine, over a transport of whole messages, driven by a
    generated package: requests (their ids, the calls pending, timeouts, `$/cancel_request`),
    notifications, the messages written, the observer of what is sent, and the close. Its
    `policy` (`Policy`) checks what goes out and the results that come back."""

    peer_side: str  # the other end's: the observer is shown what is sent as that end decodes it
    results_as_json: frozenset[str] = frozenset()  # methods whose results are not typed for now

    def __init__(
        self,
        transport: Transport,
        schema: PackageT,
        *,
        strict: bool,
        observer: Callable[[str, bytes, Any], None] | None,
        tracer: Any,
        timeout: float | None,
    ) -> None:
        self.observer = observer  # observer("in" | "out", raw bytes, decoded message or None)
        self.tracer = tracer  # W3C trace context in _meta, see tracing.py
        self.strict = strict  # outgoing values checked strictly against the package's types
        self.timeout = timeout  # seconds a call waits for its answer by default; None: no limit
        self._transport = (
            ObservedTransport(transport, self._show_sent) if observer is not None else transport
        )
        self._loop = asyncio.get_running_loop()  # once: a getpid() system call each (3.11)
        self.pending = PendingCalls()  # our calls awaiting their answers
        self.policy: Policy = Policy()
        self.sender = Sender()
        self._next_id = 0
        self._eof_error: ConnectionClosedError | None = None  # the peer's output ended
        self._closed: asyncio.Future[None] = self._loop.create_future()
        self._close_error: ConnectionClosedError | None = None
        self.bind(schema)

    def bind(self, schema: PackageT) -> None:
        """Send by `schema` from now on: its envelopes, its checks, its `$/cancel_request`."""
        self.schema: PackageT = schema
        self._cancel_request_info = schema.NOTIFICATIONS.get(CANCEL_REQUEST)
        self.sender.bind(schema, Envelopes.of(schema))
        self.checked_params: Callable[[str, Any], Any] = self.sender.params  # for the policy

    @property
    def closed(self) -> bool:
        return self._closed.done()

    async def wait_closed(self) -> None:
        await asyncio.shield(self._closed)

    async def request(
        self,
        method: str,
        params: Any = None,
        result_type: TypeForm = DEFAULT,
        *,
        timeout: Any = DEFAULT,
    ) -> Any:
        """Send a request and wait for its typed result (or raise the peer's typed error).
        `timeout` (seconds; default the connection's, None: no limit): when no answer came in
        time, `$/cancel_request` is sent, a late answer dropped, and `RequestTimeoutError` raised.
        """
        return await (await self.send_request(method, params, result_type, timeout=timeout))

    async def send_request(
        self,
        method: str,
        params: Any = None,
        result_type: TypeForm = DEFAULT,
        *,
        timeout: Any = DEFAULT,
    ) -> PendingCall:
        """Send a request; returns the `PendingCall` at once (its `.id`, `.cancel()`, `await`)."""
        error = self._close_error or self._eof_error  # no call once either end closed
        if error is not None:
            raise error
        policy = self.policy
        params = self._outgoing(method, params)
        if method in self.results_as_json:
            result_type = None
        elif result_type is DEFAULT:
            info = self.schema.REQUESTS.get(method)
            result_type = info.result if info is not None else None
        request_id = self._next_id
        self._next_id = request_id + 1
        timeout = self.timeout if timeout is DEFAULT else timeout
        future = self._loop.create_future()
        call = PendingCall(self, request_id, method, params, result_type, timeout, policy, future)
        self.pending.open(call)
        try:
            await self.write(self.sender.request(request_id, method, params))
        except asyncio.CancelledError:
            # cancelled while the peer reads: the request is on its way, so ask the peer to drop it
            self.abandon(request_id)
            raise
        except BaseException:
            self.pending.drop(call)
            raise
        if policy.sends_watched is None or method in policy.sends_watched:
            policy.sent(method, params)
        return call

    async def notify(self, method: str, params: Any = None) -> None:
        if self._close_error is not None:
            raise self._close_error
        params = self._outgoing(method, params)
        await self.write(self.sender.notification(method, params))
        self.policy.sent(method, params)

    def _outgoing(self, method: str, params: Any) -> Any:
        """Outgoing params as the policy passes them (checked), with the trace context."""
        self.sender.sending = None
        params = self.policy.before_send(method, params)
        return tracing.inject(self.tracer, params) if self.tracer is not None else params

    async def cancel_request(self, request_id: RequestId) -> None:
        """Send `$/cancel_request` for a pending call; it stays pending until the peer serving."""
        if self._cancel_request_info is None:
            raise CapabilityError(CANCEL_REQUEST, "the schema defines no such notification")
        await self.notify(CANCEL_REQUEST, self._cancel_params(request_id))

    def _cancel_params(self, request_id: RequestId) -> Any:
        info = self._cancel_request_info
        assert info is not None  # (its callers send no cancel without one)
        return wire.build(self.schema, {CANCEL_REQUEST_ID: request_id}, info.params)

    def abandon(self, request_id: RequestId) -> None:
        """Stop waiting for one of our calls (its late answer dropped); ask the peer to drop it."""
        if not self.pending.abandon(request_id):
            return
        if self._cancel_request_info is None or self._closed.done():
            return
        try:
            params = self._cancel_params(request_id)
            self._transport.send_nowait(self.sender.notification(CANCEL_REQUEST, params))
        except Exception as exc:
            log.debug("could not send $/cancel_request: %r", exc)

    async def write(self, data: bytes) -> None:
        """Send one encoded message, waiting while the peer reads too slowly; a failed write raises
        `ConnectionClosedError` (the peer's going away, when it came first)."""
        if self._closed.done():
            raise self._close_error or ConnectionClosedError("connection closed")
        try:
            await self._transport.send(data)
        except (ConnectionError, OSError, RuntimeError) as exc:
            known = self._eof_error or self._close_error
            if known is not None:
                raise known from exc
            raise self._on_write_error(exc) from exc

    def send_error_nowait(self, request_id: RequestId, err: RpcException) -> None:
        """Answer `request_id` with `err` now (best effort: a broken output is logged)."""
        try:
            self._transport.send_nowait(encode_error(self.schema, request_id, err))
        except Exception as exc:
            log.debug("could not send an error answer: %r", exc)

    def rpc_error(self, code: int, message: str, data: Any = msgspec.UNSET) -> RpcException:
        """The package's error of `code` (its -326xx subclass), to raise or to answer with."""
        return error(self.schema, code, message, data)

    def _on_write_error(self, exc: BaseException) -> ConnectionClosedError:
        """Writing failed (in this call, or messages written in an earlier one): close."""
        err = ConnectionClosedError(f"connection closed: writing failed ({exc!r})")
        self.shutdown(err)
        return err

    def shutdown(self, error: ConnectionClosedError) -> None:
        """Close now, for `error`: pending calls fail with it, the output is closed."""
        if self._closed.done():
            return
        self._close_error = error
        self.pending.fail_all(error, keep_answered=False)
        self._transport.close()
        self._closed.set_result(None)

    def observe(self, direction: str, line: bytes, message: Any) -> None:
        if self.observer is not None:
            try:
                self.observer(direction, line, message)
            except Exception:
                log.exception("the message observer failed")

    def _show_sent(self, message: bytes) -> None:
        """Show an outgoing message to the observer, decoded as the peer will (results untyped)."""
        try:
            decoded = self.schema.decode_message(message, self.peer_side)
        except Exception:
            decoded = None
        self.observe("out", message, decoded)
