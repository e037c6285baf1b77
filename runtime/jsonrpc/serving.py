"""The JSON-RPC layer's serving of requests: each received request's handler runs as a task at
once, is answered when it returns (its result, its error, or -32800 when cancelled), and work
asked for `after_answer` starts once that answer is written. A `Server` belongs to one engine.

And the layer's answers, worked out without the engine's state: the answer to a cancelled request,
and what becomes of a message the package could not decode (a `Refusal`: fail one of our calls,
answer with an error, or drop it). Error answers are encoded by `sending.encode_error`."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import sys
from typing import TYPE_CHECKING, Any, Awaitable, Callable, NamedTuple, Sized

import msgspec

from . import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, REQUEST_CANCELLED, classify, sniff, wire
from .errors import ConnectionClosedError, ProtocolError
from .framing import SNIFF, OversizedLine
from .sending import as_rpc_error, encode_error, error

if TYPE_CHECKING:
    from . import RequestId
    from .calls import Caller
    from .package import RequestMessage, RpcException
    from .transport import Transport

log = logging.getLogger("acp_runtime")


class Serving(msgspec.Struct):
    """A request being served."""

    request: RequestMessage
    server: Server
    task: asyncio.Task[None] | None = None
    cancel_result: dict[str, Any] | None = None  # wire result to answer when a turn cancel ended it
    cancelled_by_peer: bool = False
    # `after_answer` work (None: none yet; no list per request)
    after: list[Callable[[], Awaitable[Any]]] | None = None
    answered: bool = False
    started: bool = False  # its handler's task has begun `Server._serve`
    cancelled: bool = False  # cancelled before its task started: `_serve` answers so at once

    def cancel(self) -> None:
        """Cancel its handler's task. A task cancelled before it started would never run `_serve`,
        which answers the request: such a task is left to start, and `_serve` answers it as
        cancelled at once (no done callback, no loop callback per request)."""
        if not self.started:
            self.cancelled = True
            return
        # None yet: its handler runs in its eager first step, in this very task (`Server.start`)
        task = self.task or asyncio.current_task()
        if task is not None:
            task.cancel()


DEFAULT_MAX_IN_FLIGHT = 1024
"""Requests from the peer in flight at most (received, their answer not yet written): at this many,
the connection reads no more of the peer until half of them are answered (backpressure)."""

EAGER = sys.version_info >= (3, 12)  # `asyncio.Task(..., eager_start=True)`
_Task: Any = asyncio.Task  # (its `eager_start` is unknown to the checkers' 3.11 stubs)

_now_serving: contextvars.ContextVar[Serving | None] = contextvars.ContextVar(
    "acp_runtime_now_serving", default=None
)


class Server:
    """The requests one engine is serving, by id."""

    def __init__(
        self,
        engine: Caller[Any],
        waiting: Sized,
        finished: Callable[[], None],
        transport: Transport,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
    ) -> None:
        self.engine = engine
        self._sender = engine.sender  # it encodes the answers
        self._waiting = waiting  # the notifications waiting to be handled
        self._finished = finished  # told after each request served (it may close the engine)
        self._transport = transport  # paused while `max_in_flight` are in flight
        self.max_in_flight = max_in_flight
        self.in_flight = 0  # requests received whose answer is not written yet
        self._stopped = False  # reading stopped: `max_in_flight` were in flight
        self.requests: dict[RequestId, Serving] = {}
        self._loop = asyncio.get_running_loop()  # once: each lookup costs a getpid() (3.11)
        self._after_tasks: set[asyncio.Task[None]] = set()
        self.alone = False  # set by the engine while it takes a read of one line (`start`)

    def start(self, request: RequestMessage) -> None:
        """Serve a request that arrived: its handler starts as a task at once.

        On Python 3.12 and later the task starts eagerly (its handler runs in this call up to its
        first wait: a handler that answers at once costs no loop turn) when the request came
        alone in its read (`alone`: no later line of that read is taken before its handler runs,
        a `$/cancel_request` say) and no notification that came before it waits to be handled;
        else it waits its turn in the loop, behind them. Its handler sees what a task's first step
        would: its own task as `current_task()`, a context of its own."""
        engine = self.engine
        if EAGER and engine.closed:  # an eager handler closed the connection
            return  # while this read was handed on: as a task the close cancelled before it began
        if request.id in self.requests:  # (a `RequestId` as the package decodes one: hashable)
            err = engine.rpc_error(
                INVALID_REQUEST, "Invalid request: duplicate id of a request in progress"
            )
            engine.send_error_nowait(request.id, err)
            return
        policy = engine.policy
        watched = policy.requests_watched
        if watched is None or request.method in watched:
            policy.received_request(request.method, request.params)
        serving = Serving(request, self)
        self.requests[request.id] = serving
        self.in_flight += 1
        if self.in_flight >= self.max_in_flight and not self._stopped:
            self._stopped = True  # backpressure: read no more of the peer until half are answered
            self._transport.pause_reading()
        if EAGER and self.alone and not self._waiting:
            serving.task = _Task(self._serve(request, serving), loop=self._loop, eager_start=True)
        else:
            serving.task = self._loop.create_task(self._serve(request, serving))

    def cancel(self, request_id: Any, *, by_peer: bool) -> None:
        """Cancel the handler of a request being served (`$/cancel_request` from the peer)."""
        serving = self.requests.get(request_id)
        if serving is not None and serving.task is not None:
            serving.cancelled_by_peer = by_peer
            serving.cancel()

    def cancel_all(self) -> None:
        for serving in list(self.requests.values()):
            serving.cancel()

    async def _serve(self, request: RequestMessage, serving: Serving) -> None:
        serving.started = True
        engine = self.engine
        schema = engine.schema
        _now_serving.set(serving)
        succeeded = False
        try:
            try:
                if serving.cancelled:  # before it started (`Serving.cancel`)
                    raise asyncio.CancelledError
                result = await engine.policy.serve(request)
                data = self._sender.response(request, result, strict=engine.strict)
                succeeded = True
            except asyncio.CancelledError:
                if engine.closed:
                    self._answered()
                    return
                data = _cancelled(schema, serving)
            except Exception as exc:
                if serving.cancel_result is not None or isinstance(exc, TimeoutError):
                    # a cancelled turn's errors mean "cancelled"; an internal timeout cancels as
                    # the peer would (131)
                    data = _cancelled(schema, serving)
                else:
                    data = encode_error(schema, request.id, _refused(engine, request, exc))
        finally:
            self.requests.pop(request.id, None)
            # the handler is done: this task's context forgets `serving` (which holds this task),
            # so that no request leaves a reference cycle for the garbage collector to find
            _now_serving.set(None)
        try:
            await engine.write(data)
        except ConnectionClosedError as closed:
            log.debug("could not answer %s: %s", request.method, closed)
            return
        else:
            serving.answered = True
            if succeeded and serving.after is not None:
                self._start_after(request.method, serving.after)
        finally:
            self._answered()
            self._finished()  # (the last request served after the end of input closes)

    def _answered(self) -> None:
        """A request in flight was answered (or can no longer be): read on below half the bound."""
        self.in_flight -= 1
        if self._stopped and self.in_flight <= self.max_in_flight // 2:
            self._stopped = False
            self._transport.resume_reading()

    def after_answer(self, work: Callable[[], Awaitable[Any]]) -> None:
        """From inside a request handler: start `work()` once that request's answer has been
        written (say, the commands of a session, sent right after answering `session/new`; a v1
        `session/load` replays its history *before* answering). Nothing else moves: the
        answer goes out when the handler returns, as always. The work is dropped when the answer is
        an error or cannot be written; its own errors are logged."""
        serving = _now_serving.get()
        if serving is None or serving.server is not self:
            raise ProtocolError(
                "after_answer: call it from a handler of a request this connection serves"
            )
        if serving.answered:
            self._start_after(serving.request.method, [work])
        else:
            serving.after = [*(serving.after or ()), work]

    def _start_after(self, method: str, works: list[Callable[[], Awaitable[Any]]]) -> None:
        for work in works:
            task = asyncio.get_running_loop().create_task(self._run_after(method, work))
            self._after_tasks.add(task)
            task.add_done_callback(self._after_tasks.discard)

    async def _run_after(self, method: str, work: Callable[[], Awaitable[Any]]) -> None:
        try:
            await work()
        except ConnectionClosedError as exc:
            log.debug("work after the %s answer stopped: %s", method, exc)
        except Exception:
            log.exception("work after the %s answer failed", method)


def _refused(engine: Caller[Any], request: RequestMessage, exc: Exception) -> RpcException:
    """The error answering a request whose handler raised `exc`."""
    if isinstance(exc, engine.schema.RpcError):
        return as_rpc_error(exc)
    if isinstance(exc, ProtocolError):  # a runtime rule refused it: no crash, no traceback
        log.error("refused the %s answer: %s", request.method, exc)
        return engine.rpc_error(INTERNAL_ERROR, "Internal error", {"message": str(exc)})
    log.exception("handler for %s failed", request.method)
    return engine.rpc_error(INTERNAL_ERROR, "Internal error")


def _cancelled(schema: Any, serving: Serving) -> bytes:
    """The answer to a request whose handler was cancelled: what the protocol answers when its own
    cancel ended the request (`cancel_result`, unless the peer cancelled it) as the method's
    result, else -32800."""
    request, cancel_result = serving.request, serving.cancel_result
    info = schema.REQUESTS.get(request.method)
    if cancel_result is not None and not serving.cancelled_by_peer and info is not None:
        result = wire.build(schema, cancel_result, info.result)
        data: bytes = schema.encode_message(schema.Response(id=request.id, result=result))
        return data
    return encode_error(schema, request.id, error(schema, REQUEST_CANCELLED, "Request cancelled"))


class Refusal(NamedTuple):
    """What becomes of a message the package refused: `fails` the id of one of our calls to fail
    with `err` (a response), or `answer` it with `err` (under `request_id`), or neither: drop it."""

    err: RpcException
    request_id: RequestId = None
    fails: bool = False
    answer: bool = False


def bad_message(schema: Any, line: bytes, err: RpcException) -> Refusal:
    kind, request_id = classify(line)
    if kind == "response":  # fail its call; a response is never answered
        log.warning("dropped an invalid response (id %r): %s", request_id, err)
        return Refusal(err, request_id, fails=True)
    if kind == "notification" and err.code != PARSE_ERROR:
        log.warning("dropped an invalid notification: %s", err)
        return Refusal(err)
    if kind == "unparsable" and err.code != PARSE_ERROR:  # e.g. a truncated array
        err = error(schema, PARSE_ERROR, "Parse error", {"message": err.message})
    return Refusal(err, err.id, answer=True)


def too_deep(schema: Any, line: bytes) -> Refusal:
    """A message nested deeper than the JSON decoder goes: a request whose id can be read from its
    first bytes is answered -32600 with that id, a response fails its call, a notification is
    dropped, anything else is answered -32700 (never a traceback, and the connection lives on)."""
    kind, request_id = sniff(line[:SNIFF])
    text = "the message is nested deeper than the JSON decoder can take"
    if kind == "response":
        log.warning("dropped a response (id %r): %s", request_id, text)
        err = error(schema, INVALID_REQUEST, f"Invalid response: {text}")
        return Refusal(err, request_id, fails=True)
    if kind == "notification":
        log.warning("dropped a notification: %s", text)
        return Refusal(error(schema, INVALID_REQUEST, text))
    if kind == "request" and request_id is not None:
        err = error(schema, INVALID_REQUEST, f"Invalid request: {text}")
        return Refusal(err, request_id, answer=True)
    return Refusal(error(schema, PARSE_ERROR, "Parse error", {"message": text}), answer=True)


def oversized(schema: Any, line: OversizedLine, limit: int) -> Refusal:
    kind, request_id = sniff(line.head)
    message = f"Message of {line.size} bytes exceeds the limit of {limit} bytes"
    err = error(schema, INVALID_REQUEST, message, {"limit": limit, "size": line.size})
    log.warning("%s (a %s, id %r)", message, kind, request_id)
    answer = kind not in ("response", "notification")  # a response fails its call instead
    return Refusal(err, request_id, fails=kind == "response", answer=answer)
