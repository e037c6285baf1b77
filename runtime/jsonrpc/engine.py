"""The JSON-RPC 2.0 engine of a connection: ids, pending calls, ordering, serving, cancellation,
timeouts, error answers and the observer, over a transport of whole messages (`transport.py`),
driven by a generated package's codec. It knows no ACP method: ACP's rules ride on it as a
policy (`policy.py`), called through the hooks of `Policy`.

Message flow, which is what makes the ordering and no-deadlock guarantees hold:

- One reader task takes the messages the transport hands on (a newline-framed burst: 64 lines per
  loop turn, `transport.SLICE`) and decodes each once with the package's `MessageDecoder` in that
  turn; it never waits on a handler.
- An incoming request starts its handler as a task at once, so requests run concurrently, and a
  handler that calls back into the peer is answered while it waits.
- Incoming notifications and responses go through one ordered inbox, served by one worker task:
  notification handlers run one at a time in arrival order, and a response resolves its waiting
  call only after every notification that arrived before it has been handled. (A call made from
  inside a notification handler is answered directly, so that handler cannot deadlock itself.)
- Outgoing messages keep the order of the sends (over a byte stream, the `LineWriter` joins the
  ones of one loop turn into one `write`): updates sent by a handler before it returns reach the
  peer before its response.

When the peer's output ends, calls still waiting for an answer fail at once with
`ConnectionClosedError`; requests already received are still served and answered, then the
connection closes.

The path of one received stdio request, from its bytes to the handler and back. On the way in each
stop hands the message up, never back to a layer it came through; on the way back each hands the
answer down:

- in: `framing.PushProtocol.data_received` (or `stdio._AgentProcess.pipe_data_received`) ->
  `framing.PushReader.feed_data` -> `transport.LineTransport._on_data` (`LineReader.split` cuts the
  lines) -> `transport.Inlet.put` -> `Engine._on_messages` -> `Engine.receive` (the package's
  `MessageDecoder.decode`) -> `serving.Server.start` (the policy's
  `received_request` bookkeeping, then the handler's task) -> `Server._serve` ->
  `policy.AcpPolicy.serve` -> `connection.Connection.handle` -> `Connection._dispatch` -> the
  handler's method;
- back: the handler's result returns to `Server._serve` (through `AcpPolicy._checked` when its
  result is checked) -> `sending.Sender.response` (`Envelopes.response`) -> `Engine.write` ->
  `framing.LineWriter.write` -> the asyncio transport's `write`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Generic, Mapping, TypeVar, cast

import msgspec

from . import CANCEL_REQUEST, CANCEL_REQUEST_ID, INTERNAL_ERROR, calls, serving, tracing, wire
from .calls import DEFAULT as DEFAULT
from .calls import EOF, Answer, Inbox, ObservedTransport, PendingCall, PendingCalls, Policy, Step
from .errors import CapabilityError, ConnectionClosedError
from .framing import DEFAULT_MAX_LINE_BYTES, ByteReader, ByteWriter, OversizedLine
from .sending import Envelopes, Sender
from .serving import DEFAULT_MAX_IN_FLIGHT, Refusal, Server, Serving
from .serving import as_rpc_error as as_rpc_error
from .transport import LineTransport

if TYPE_CHECKING:
    from typing_extensions import Self

    from . import RequestId
    from .package import (
        ErrorResponseMessage,
        PackageT,
        RequestMessage,
        ResponseMessage,
        RpcException,
        TypeForm,
    )
    from .transport import Transport
else:  # jsonrpc/package.py is for type checkers: at run time, only the type variable is needed
    PackageT = TypeVar("PackageT")

log = logging.getLogger("acp_runtime")


class Engine(Generic[PackageT]):
    """A JSON-RPC 2.0 engine over a transport of whole messages, driven by a generated package's
    codec; it knows no protocol method. Its `policy` (`Policy`) carries a protocol's rules and
    reaches its handlers; `screen`, when given, reads each received line first (True: taken)."""

    side: str  # whose methods this end receives: the package's codec reads them
    peer_side: str  # the other end's
    results_as_json: frozenset[str] = frozenset()  # methods whose results are not typed for now

    def __init__(
        self,
        reader: ByteReader | Transport,
        writer: ByteWriter | None,
        schema: PackageT,
        *,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        lenient: bool = False,
        strict: bool = True,
        observer: Callable[[str, bytes, Any], None] | None = None,
        tracer: Any = None,
        timeout: float | None = None,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        screen: Callable[[bytes], bool] | None = None,
    ) -> None:
        self.schema: PackageT = schema
        self.screen = screen  # (its owner sets it to None once it takes no more lines)
        self.answer_screen: Callable[[Any], Any] | None = None  # reads each answer first
        self.observer = observer  # observer("in" | "out", raw bytes, decoded message or None)
        self.tracer = tracer  # W3C trace context in _meta, see tracing.py
        self.lenient = lenient
        self.strict = strict  # outgoing values checked strictly against the package's types
        self.timeout = timeout  # seconds a call waits for its answer by default; None: no limit
        self.max_line_bytes = max_line_bytes
        transport: Transport
        if writer is None:  # a transport of whole messages (`acp_runtime.jsonrpc.transport`)
            transport = cast("Transport", reader)
        else:
            transport = LineTransport(
                cast("ByteReader", reader), writer, max_line_bytes, self._on_write_error
            )
        self._transport = (
            ObservedTransport(transport, self._show_sent) if observer is not None else transport
        )
        self._loop = asyncio.get_running_loop()  # once: a getpid() system call each (3.11)
        self.pending = PendingCalls(self._loop)  # our calls awaiting their answers
        self.policy: Policy = Policy()
        self._steps: dict[str, tuple[Step | None, Step | None]] = {}  # by method
        self._sender = Sender()
        self.bind(schema)
        self._inbox = Inbox()  # notifications, `Answer`s, `EOF`: handled in order by _work
        self._server = Server(
            self,
            self._sender,
            self._inbox.items,
            self._maybe_finish,
            self._transport,
            max_in_flight,
        )
        self._busy = False
        self._next_id = 0
        self._eof_error: ConnectionClosedError | None = None
        self._inbox_drained = False
        self._input_ended = False
        self._closed: asyncio.Future[None] = self._loop.create_future()
        self._close_error: ConnectionClosedError | None = None
        self._tasks: list[asyncio.Task[None]] = []
        self.describe_eof: Callable[[], Awaitable[str]] | None = None

    def bind(self, schema: PackageT) -> None:
        """Drive this engine by `schema` from now on: its codec, envelopes, `$/cancel_request`."""
        self.schema = schema
        self._cancel_request_info = schema.NOTIFICATIONS.get(CANCEL_REQUEST)
        self._decoder = schema.MessageDecoder(self.side, self.pending.types, lenient=self.lenient)
        self._sender.bind(schema, Envelopes.of(schema))
        self.checked_params: Callable[[str, Any], Any] = self._sender.params  # for the policy

    def forget_steps(self) -> None:
        """Forget how `_work` handles each method's notifications (asked of the policy again):
        its owner calls it when the policy or the handler changes."""
        self._steps.clear()

    def start_engine(self) -> None:
        self._tasks = [self._loop.create_task(self._work())]
        self._transport.start(self._on_messages, self._on_input_end)

    # --- public API ------------------------------------------------------------------------------

    @property
    def closed(self) -> bool:
        return self._closed.done()

    async def wait_closed(self) -> None:
        await asyncio.shield(self._closed)

    async def close(self, error: Exception | None = None) -> None:
        """Close now: pending calls fail, running handlers are cancelled, the output is closed."""
        reason = error if isinstance(error, ConnectionClosedError) else None
        self.shutdown(
            reason or ConnectionClosedError(f"connection closed{f': {error}' if error else ''}")
        )
        current = asyncio.current_task()
        await asyncio.gather(*(t for t in self._tasks if t is not current), return_exceptions=True)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

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
        direct = calls.in_notification.get() is self
        future = self.pending.open(request_id, method, result_type, direct)
        try:
            await self.write(self._sender.request(request_id, method, params))
        except asyncio.CancelledError:
            # cancelled while the peer reads: the request is on its way, so ask the peer to drop it
            self.abandon(request_id)
            raise
        except BaseException:
            self.pending.drop(request_id, future)
            raise
        if policy.sends_watched is None or method in policy.sends_watched:
            policy.sent(method, params)
        timeout = self.timeout if timeout is DEFAULT else timeout
        return PendingCall(self, request_id, method, params, future, timeout, policy)

    async def notify(self, method: str, params: Any = None) -> None:
        if self._close_error is not None:
            raise self._close_error
        params = self._outgoing(method, params)
        await self.write(self._sender.notification(method, params))
        self.policy.sent(method, params)

    def _outgoing(self, method: str, params: Any) -> Any:
        """Outgoing params as the policy passes them (checked), with the trace context."""
        self._sender.sending = None
        params = self.policy.before_send(method, params)
        return tracing.inject(self.tracer, params) if self.tracer is not None else params

    def after_answer(self, work: Callable[[], Awaitable[Any]]) -> None:
        """From inside a request handler: `work()` once its answer is written (`Server`'s)."""
        self._server.after_answer(work)

    async def cancel_request(self, request_id: RequestId) -> None:
        """Send `$/cancel_request` for a pending call; it stays pending until the peer serving."""
        if self._cancel_request_info is None:
            raise CapabilityError(CANCEL_REQUEST, "the schema defines no such notification")
        await self.notify(CANCEL_REQUEST, self._cancel_params(request_id))

    def _cancel_params(self, request_id: RequestId) -> Any:
        info = self._cancel_request_info
        assert info is not None  # (its callers send no cancel without one)
        return wire.build(self.schema, {CANCEL_REQUEST_ID: request_id}, info.params)

    @property
    def serving(self) -> Mapping[RequestId, Serving]:
        return self._server.requests

    # --- receiving --------------------------------------------------------------------------------

    def _on_messages(self, lines: list[bytes | OversizedLine]) -> None:
        if self._input_ended:  # after a failure below, as after the transport's end
            return
        self._server.alone = len(lines) == 1  # (a request alone in its read may start eagerly)
        try:
            for line in lines:
                if isinstance(line, OversizedLine):
                    self._refuse(serving.oversized(self.schema, line, self.max_line_bytes))
                elif self.screen is None or not self.screen(line):
                    self.receive(line)
        except Exception as exc:  # never a bad message: a bug, read as a broken stream
            self._on_input_end(exc)
        self._server.alone = False

    def _on_input_end(self, error: BaseException | None) -> None:
        if not self._input_ended:  # the transport's end, or a failure above
            self._input_ended = True
            self._tasks.append(self._loop.create_task(self._input_closed(error)))

    async def _input_closed(self, error: BaseException | None) -> None:
        if error is not None:
            log.warning("reading failed: %r", error)
        reason = "the peer closed the connection (end of input)"
        with contextlib.suppress(Exception):  # best effort only
            reason = await self.describe_eof() if self.describe_eof else reason
        self._on_eof(ConnectionClosedError(f"connection closed: {reason}"))

    def receive(self, line: bytes) -> None:
        if not line or line.isspace():
            return
        schema = self.schema
        try:
            message = self._decoder.decode(line)
        except schema.RpcError as err:
            return self._refuse(serving.bad_message(schema, line, as_rpc_error(err)), line)
        except RecursionError:  # msgspec: nested deeper than the decoder goes
            return self._refuse(serving.too_deep(schema, line), line)
        except Exception as exc:  # decode_message must raise RpcError: a generator bug
            log.error("decode_message raised %r instead of an RpcError", exc)
            internal = self.rpc_error(INTERNAL_ERROR, "Internal error")
            return self._refuse(serving.bad_message(schema, line, internal), line)
        if self.observer is not None:
            self.observe("in", line, message)
        if isinstance(message, schema.Notification):  # first: a stream is all notifications
            method = message.method  # (its own method once: a call per update costs)
            if method == CANCEL_REQUEST:
                self._server.cancel(wire.get(message.params, CANCEL_REQUEST_ID), by_peer=True)
            elif not self.policy.received_notification(method, message.params):
                log.debug("ignored %s for an interaction unknown or completed here", method)
                return
            self._inbox.put_nowait(message)
        elif isinstance(message, schema.Request):
            self._server.start(message)
        elif isinstance(message, (schema.Response, schema.ErrorResponse)):
            self._on_response(message)
        else:  # decode_message returns one of the four envelopes: a generator bug
            log.error("decode_message returned %r, not a message envelope", message)

    def serve(self, request: RequestMessage) -> None:
        """Serve a request that arrived: its handler starts at once (`serving.Server.start`)."""
        self._server.start(request)

    def observe(self, direction: str, line: bytes, message: Any) -> None:
        if self.observer is not None:
            try:
                self.observer(direction, line, message)
            except Exception:
                log.exception("the message observer failed")

    def _refuse(self, refusal: Refusal, line: bytes | None = None) -> None:
        """Act on what `serving` decided for a message the package refused (`line`, shown)."""
        if line is not None:
            self.observe("in", line, None)
        if refusal.fails:
            outgoing = self.pending.take(refusal.request_id)
            if outgoing is not None and not outgoing.future.done():
                outgoing.future.set_exception(refusal.err)
        elif refusal.answer:
            self.send_error_nowait(refusal.request_id, refusal.err)

    def _on_response(self, response: ResponseMessage | ErrorResponseMessage) -> None:
        if self.answer_screen is not None:  # an answer read as JSON may choose the package
            response = self.answer_screen(response)
        outgoing = self.pending.find(response.id)
        if outgoing is None:
            if response.id in self.pending.abandoned:
                log.debug("dropped the answer to abandoned request %r", response.id)
            elif isinstance(response, self.schema.ErrorResponse):
                log.warning("peer reported an error for id %r: %s", response.id, response.error)
            else:
                log.warning("dropped a response to unknown id %r", response.id)
            return
        if outgoing.direct or (not self._inbox.items and not self._busy):
            self.pending.settle(response.id, outgoing, response, self.schema)
        else:
            outgoing.answered = True
            self._inbox.put_nowait(Answer(response))

    async def _work(self) -> None:
        """The one worker: notifications' handlers in arrival order, answers behind them."""
        calls.in_notification.set(
            self
        )  # for its whole task: it runs nothing but notification hooks
        inbox = self._inbox
        waiting = inbox.items
        while (item := waiting.popleft() if waiting else await inbox.get()) is not EOF:
            if type(item) is Answer:
                self.pending.resolve(item.response, self.schema)
                continue
            step = self._steps.get(item.method)
            if step is None:
                step = self._steps[item.method] = self.policy.notification_step(item.method)
            self._busy = True
            try:
                if step[0] is not None:
                    step[0](item.params)
                if step[1] is not None and self.tracer is None:  # the handler's own function
                    await step[1](item.params)
                else:
                    await self.policy.handle(item)
            except Exception:
                log.exception("notification handler for %s failed", item.method)
            finally:
                self._busy = False
        self._inbox_drained = True
        self._maybe_finish()

    # --- serving requests -------------------------------------------------------------------------

    def send_error_nowait(self, request_id: RequestId, err: RpcException) -> None:
        """Answer `request_id` with `err` now (best effort: a broken output is logged)."""
        try:
            self._transport.send_nowait(serving.encode_error(self.schema, request_id, err))
        except Exception as exc:
            log.debug("could not send an error answer: %r", exc)

    def write_nowait(self, data: bytes) -> None:
        """Send one encoded message as it is, now (raises when the output is closed or broken)."""
        self._transport.send_nowait(data)

    # --- writing and closing ----------------------------------------------------------------------

    def _on_write_error(self, exc: BaseException) -> ConnectionClosedError:
        """Writing failed (in this call, or messages written in an earlier one): close."""
        err = ConnectionClosedError(f"connection closed: writing failed ({exc!r})")
        self.shutdown(err)
        return err

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

    def abandon(self, request_id: RequestId) -> None:
        """Stop waiting for one of our calls (its late answer dropped); ask the peer to drop it."""
        if not self.pending.abandon(request_id):
            return
        if self._cancel_request_info is None or self._closed.done():
            return
        try:
            note = self.schema.Notification(
                method=CANCEL_REQUEST, params=self._cancel_params(request_id)
            )
            self._transport.send_nowait(self.schema.encode_message(note))
        except Exception as exc:
            log.debug("could not send $/cancel_request: %r", exc)

    def _on_eof(self, error: ConnectionClosedError) -> None:
        if self._eof_error is not None or self._closed.done():
            return
        self._eof_error = error
        self.pending.fail_all(error, keep_answered=True)
        self._inbox.put_nowait(EOF)
        self._maybe_finish()

    def _maybe_finish(self) -> None:
        if self._eof_error is not None and self._inbox_drained and not self._server.requests:
            self.shutdown(self._eof_error)

    def shutdown(self, error: ConnectionClosedError) -> None:
        """Close now, for `error`: pending calls fail with it, running handlers are cancelled."""
        if self._closed.done():
            return
        self._close_error = error
        self.pending.fail_all(error, keep_answered=False)
        self._server.cancel_all()
        current = asyncio.current_task()
        for task in self._tasks:
            if task is not current:
                task.cancel()
        self._transport.close()
        self._closed.set_result(None)

    def rpc_error(self, code: int, message: str, data: Any = msgspec.UNSET) -> RpcException:
        """The package's error of `code` (its -326xx subclass), to raise or to answer with."""
        return serving.error(self.schema, code, message, data)

    def _show_sent(self, message: bytes) -> None:
        """Show an outgoing message to the observer, decoded as the peer will (results untyped)."""
        try:
            decoded = self.schema.decode_message(message, self.peer_side)
        except Exception:
            decoded = None
        self.observe("out", message, decoded)
