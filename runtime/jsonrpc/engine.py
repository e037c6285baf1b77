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
  `policy.AcpPolicy.serve` -> `AcpPolicy.dispatch` -> the handler's method;
- back: the handler's result returns to `Server._serve` (through `AcpPolicy._checked` when its
  result is checked) -> `sending.Sender.response` (`Envelopes.response`) -> `calls.Caller.write` ->
  `framing.LineWriter.write` -> the asyncio transport's `write`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import deque
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Mapping, cast

from . import CANCEL_REQUEST, CANCEL_REQUEST_ID, calls, serving, wire
from .calls import Caller, Step
from .errors import ConnectionClosedError
from .framing import DEFAULT_MAX_LINE_BYTES, ByteReader, ByteWriter, OversizedLine
from .package import PackageT
from .sending import as_rpc_error as as_rpc_error
from .serving import DEFAULT_MAX_IN_FLIGHT, Refusal, Server, Serving
from .transport import LineTransport

if TYPE_CHECKING:
    from typing_extensions import Self

    from . import RequestId
    from .package import ErrorResponseMessage, RequestMessage, ResponseMessage
    from .transport import Transport

log = logging.getLogger("acp_runtime")


EOF: Any = object()  # the end of the inbox: the peer's output ended


class Inbox:
    """The received notifications and answers (an answer as a 1-tuple), in arrival order, for the
    one worker task that handles them (an `asyncio.Queue` without its bookkeeping: a deque, and a
    wake-up future only while the worker waits)."""

    __slots__ = ("items", "waiter")

    def __init__(self) -> None:
        self.items: deque[Any] = deque()
        self.waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self.items.append(item)
        waiter = self.waiter
        if waiter is not None:
            self.waiter = None  # woken once: the items after it find none to wake
            if not waiter.done():
                waiter.set_result(None)

    async def get(self) -> Any:
        # (`put_nowait` forgets the waiter it wakes; one a cancelled `get` left is done: not woken)
        while not self.items:
            self.waiter = asyncio.get_running_loop().create_future()
            await self.waiter
        return self.items.popleft()


class Engine(Caller[PackageT]):
    """A JSON-RPC 2.0 engine over a transport of whole messages, driven by a generated package's
    codec; it knows no protocol method. What it sends is its `Caller` half's; here, what it
    receives: messages decoded, requests served (`serving.Server`), notifications and answers
    handled in order. Its `policy` (`Policy`) carries a protocol's rules and reaches its handlers;
    `screen`, when given, reads each received line first (True: taken)."""

    side: str  # whose methods this end receives: the package's codec reads them

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
        self.screen = screen  # (its owner sets it to None once it takes no more lines)
        self.answer_screen: Callable[[Any], Any] | None = None  # reads each answer first
        self.lenient = lenient
        self.max_line_bytes = max_line_bytes
        self._steps: dict[str, tuple[Step | None, Step | None]] = {}  # by method
        transport: Transport
        if writer is None:  # a transport of whole messages (`acp_runtime.jsonrpc.transport`)
            transport = cast("Transport", reader)
        else:
            transport = LineTransport(
                cast("ByteReader", reader), writer, max_line_bytes, self._on_write_error
            )
        super().__init__(
            transport, schema, strict=strict, observer=observer, tracer=tracer, timeout=timeout
        )
        self._inbox = Inbox()  # notifications, (answer,)s, `EOF`: handled in order by _work
        self._server = Server(
            self, self._inbox.items, self._maybe_finish, self._transport, max_in_flight
        )
        self._busy = False
        self._inbox_drained = False
        self._input_ended = False
        self._tasks: list[asyncio.Task[None]] = []
        self.describe_eof: Callable[[], Awaitable[str]] | None = None

    def bind(self, schema: PackageT) -> None:
        """Drive this engine by `schema` from now on: its codec, envelopes, `$/cancel_request`."""
        super().bind(schema)
        self._decoder = schema.MessageDecoder(self.side, self.pending.types, lenient=self.lenient)

    def forget_steps(self) -> None:
        """Forget how `_work` handles each method's notifications (asked of the policy again):
        its owner calls it when the policy or the handler changes."""
        self._steps.clear()

    def start_engine(self) -> None:
        self._tasks = [self._loop.create_task(self._work())]
        self._transport.start(self._on_messages, self._on_input_end)

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

    def after_answer(self, work: Callable[[], Awaitable[Any]]) -> None:
        """From inside a request handler: `work()` once its answer is written (`Server`'s)."""
        self._server.after_answer(work)

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
        # (decode_message raises nothing else: another error is a bug, which `_on_messages` reads
        # as a broken stream)
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

    def _refuse(self, refusal: Refusal, line: bytes | None = None) -> None:
        """Act on what `serving` decided for a message the package refused (`line`, shown)."""
        if line is not None:
            self.observe("in", line, None)
        if refusal.fails:
            self.pending.fail(refusal.request_id, refusal.err)
        elif refusal.answer:
            self.send_error_nowait(refusal.request_id, refusal.err)

    def _on_response(self, response: ResponseMessage | ErrorResponseMessage) -> None:
        if self.answer_screen is not None:  # an answer read as JSON may choose the package
            response = self.answer_screen(response)
        outgoing = self.pending.get(response.id)
        if outgoing is None:
            if response.id in self.pending.abandoned:
                log.debug("dropped the answer to abandoned request %r", response.id)
            elif isinstance(response, self.schema.ErrorResponse):
                log.warning("peer reported an error for id %r: %s", response.id, response.error)
            else:
                log.warning("dropped a response to unknown id %r", response.id)
            return
        if outgoing.direct or (not self._inbox.items and not self._busy):
            self.pending.resolve(response, self.schema)
        else:
            outgoing.answered = True
            self._inbox.put_nowait((response,))  # behind the notifications: it waits its turn

    async def _work(self) -> None:
        """The one worker: notifications' handlers in arrival order, answers behind them."""
        # for its whole task: it runs nothing but notification hooks
        calls.in_notification.set(self)
        inbox = self._inbox
        waiting = inbox.items
        while (item := waiting.popleft() if waiting else await inbox.get()) is not EOF:
            if type(item) is tuple:  # an answer that arrived after notifications
                self.pending.resolve(item[0], self.schema)
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
        if not self._closed.done():
            self._server.cancel_all()
            current = asyncio.current_task()
            for task in self._tasks:
                if task is not current:
                    task.cancel()
        super().shutdown(error)
