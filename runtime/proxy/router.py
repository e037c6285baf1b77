"""The proxy's router: one connection to the conductor, two directions, forwarding by the envelope.

Every message from the conductor is read as an envelope whose `params`, `result` and `error` stay
raw bytes. What the predecessor sends arrives plain; what the successor sends arrives inside a
`proxy/successor` envelope (its `_meta` is hop-local: dropped here). A method the proxy class
does not define goes on, its params and its answer unchanged: toward the successor wrapped in
`proxy/successor`, toward the predecessor plain, each under a fresh id of this connection.
`proxy/initialize` is forwarded as `initialize` to the successor before it is answered, and
answered with the successor's result unchanged (so `protocolVersion` is never rewritten). A proxy
class that defines `initialize` builds its answer from `await self.successor.initialize(params)`
(the chain's capabilities from itself onward); an answer given before that call, or with another
`protocolVersion` than the successor's, becomes an error answer saying so.
A `$/cancel_request` is only ever sent on this hop, for this connection's own id.

Messages are handled one at a time in arrival order, so the order of each direction is kept; only
typed request handlers run as tasks. A notification handler must not await a call (its answer
would queue behind it); it may notify.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
from types import ModuleType
from typing import Any, Awaitable, Callable

import msgspec

from ..jsonrpc import (
    CANCEL_REQUEST,
    CANCEL_REQUEST_ID,
    INTERNAL_ERROR,
    INVALID_PARAMS,
    REQUEST_CANCELLED,
    wire,
)
from ..jsonrpc.framing import LineReader, OversizedLine
from ..protocol.connection import default_schema
from ..protocol.rules import PROTOCOL_VERSION
from ..stdio import stdio_streams
from .base import Proxy
from .envelope import (
    INITIALIZE_PROXY,
    NO_PARAMS,
    SUCCESSOR,
    UNSET,
    Envelope,
    answer,
    decode,
    decode_wrapped,
    encode,
    error_answer,
    initialize_method,
    message,
    wrap,
)


class _Error(msgspec.Struct):
    code: int
    message: str
    data: Any = UNSET


class _SidePeer:
    """The generated `Peer` protocol for one side: typed calls become messages of this hop."""

    def __init__(self, router: ProxyRouter, toward_successor: bool) -> None:
        self._router = router
        self._toward_successor = toward_successor

    async def request(self, method: str, params: Any, result_type: Any) -> Any:
        codec = self._router.codec
        raw = msgspec.Raw(codec.encode(params))
        envelope = await self._router.call(self._toward_successor, method, raw)
        if envelope.error:
            raise self._router.error_from(envelope.error)
        result = codec.decode(envelope.result or b"null", result_type, lenient=True)
        if self._toward_successor and method == self._router.initialize_method:
            self._router.successor_version = wire.get(result, PROTOCOL_VERSION)
        return result

    async def notify(self, method: str, params: Any) -> None:
        codec = self._router.codec
        raw = msgspec.Raw(codec.encode(params)) if params is not None else NO_PARAMS
        self._router.send_on(self._toward_successor, UNSET, method, raw)


class ProxyRouter:
    """Routes the messages of one proxy's connection to its conductor (see the module doc)."""

    def __init__(self, proxy: Proxy[Any, Any], schema: ModuleType, send: Callable[[bytes], None]):
        declared = {m: i.side for m, i in schema.methods.METHODS.items()}
        for method in (INITIALIZE_PROXY, SUCCESSOR):
            if declared.get(method) != "proxy":
                raise ValueError(f"{schema.__name__} declares no proxy-side method {method!r}")
        self._schema = schema
        self.codec: Any = schema.codec
        self._send = send
        self._ids = itertools.count(1)
        self._waiting: dict[Any, asyncio.Future[Envelope]] = {}
        self._forwarded: dict[Any, Any] = {}  # our outgoing id -> the incoming id it answers
        self._outgoing_of: dict[Any, Any] = {}  # incoming id -> our outgoing id
        self._tasks: dict[Any, asyncio.Task[None]] = {}
        self.initialize_method = initialize_method(schema)
        self.successor_version: Any = UNSET  # in the successor's initialize answer, once typed
        self._typed = (
            self._handlers(proxy, schema, "agent"),
            self._handlers(proxy, schema, "client"),
        )
        proxy.bind(
            schema.AgentProxy(_SidePeer(self, True)), schema.ClientProxy(_SidePeer(self, False))
        )

    @staticmethod
    def _handlers(proxy: object, schema: ModuleType, side: str) -> dict[str, tuple[Any, Any]]:
        """The methods received by `side` that the proxy class defines, by wire name."""
        found = {}
        for method, info in schema.methods.METHODS.items():
            if info.side == side and callable(getattr(type(proxy), info.handler, None)):
                found[method] = (info, getattr(proxy, info.handler))
        return found

    def error_from(self, raw: msgspec.Raw) -> Exception:
        err = msgspec.json.decode(raw, type=_Error)
        return self._schema.errors.RpcError(err.message, err.data, code=err.code)  # type: ignore[no-any-return]

    def send_on(self, toward_successor: bool, request_id: Any, method: str, params: Any) -> None:
        if toward_successor:
            self._send(encode(message(request_id, SUCCESSOR, wrap(method, params))))
        else:
            self._send(encode(message(request_id, method, params)))

    def call(self, toward_successor: bool, method: str, params: msgspec.Raw) -> Awaitable[Envelope]:
        out_id = next(self._ids)
        future: asyncio.Future[Envelope] = asyncio.get_running_loop().create_future()
        self._waiting[out_id] = future
        self.send_on(toward_successor, out_id, method, params)
        return future

    async def receive(self, line: bytes) -> None:
        """Handle one message from the conductor; returns once it is routed (or, for a typed
        notification, handled)."""
        env = decode(line)
        if env.method is UNSET:
            self._answered(env)
        elif env.method == CANCEL_REQUEST:
            self._cancel(msgspec.json.decode(env.params or b"{}").get(CANCEL_REQUEST_ID))
        elif env.method == INITIALIZE_PROXY:  # served as the agent's initialize, see _serve
            await self._route(True, env.id, self.initialize_method, env.params)
        elif env.method == SUCCESSOR:
            inner = decode_wrapped(env.params)
            await self._route(False, env.id, inner.method, inner.params)
        else:
            await self._route(True, env.id, env.method, env.params)

    async def _route(
        self, toward_successor: bool, request_id: Any, method: str, params: Any
    ) -> None:
        typed = self._typed[0 if toward_successor else 1].get(method)
        if typed is None:
            self._forward(toward_successor, request_id, method, params)
            return
        info, handler = typed
        try:
            value = self.codec.decode(params or b"null", info.params, lenient=True)
        except msgspec.ValidationError as exc:
            if request_id is UNSET:  # what it cannot read, a proxy passes on as it came
                self._forward(toward_successor, request_id, method, params)
            else:
                text = f"Invalid params for {method}: {exc}"
                self._send(error_answer(request_id, INVALID_PARAMS, text))
            return
        if request_id is UNSET:
            await handler(value)
            return
        if method == self.initialize_method:
            handler = self._initialize_checked(handler)
        self._tasks[request_id] = asyncio.ensure_future(self._serve(request_id, handler, value))

    def _initialize_checked(self, handler: Any) -> Callable[[Any], Awaitable[Any]]:
        """A typed `initialize` of the proxy class, held to `proxy/initialize`'s sentences: it
        must have forwarded `initialize` to its successor before it answers, and answer the
        successor's `protocolVersion`; else the answer is an error saying which."""
        rpc_error = self._schema.errors.RpcError

        async def checked(value: Any) -> Any:
            self.successor_version = UNSET
            answer = await handler(value)
            ours, theirs = wire.get(answer, PROTOCOL_VERSION), self.successor_version
            if theirs is UNSET:
                text = f"the proxy answered {INITIALIZE_PROXY} before forwarding initialize"
                raise rpc_error(text, code=INTERNAL_ERROR)
            if ours != theirs:
                text = (
                    f"the proxy changed protocolVersion to {ours!r}; its successor's is {theirs!r}"
                )
                raise rpc_error(text, code=INTERNAL_ERROR)
            return answer

        return checked

    def _forward(self, toward_successor: bool, request_id: Any, method: str, params: Any) -> None:
        if request_id is UNSET:
            self.send_on(toward_successor, UNSET, method, params)
            return
        out_id = next(self._ids)
        self._forwarded[out_id] = request_id
        self._outgoing_of[request_id] = out_id
        self.send_on(toward_successor, out_id, method, params)

    async def _serve(self, request_id: Any, handler: Any, value: Any) -> None:
        reply: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id}
        try:
            reply["result"] = msgspec.Raw(self.codec.encode(await handler(value)))
        except asyncio.CancelledError:
            reply["error"] = {"code": REQUEST_CANCELLED, "message": "Request cancelled"}
        except self._schema.errors.RpcError as exc:
            reply["error"] = {"code": exc.code, "message": exc.message}
            if exc.data is not UNSET:
                reply["error"]["data"] = exc.data
        except Exception as exc:  # noqa: BLE001 - any failure is an error answer, never a hang
            reply["error"] = {"code": INTERNAL_ERROR, "message": f"{type(exc).__name__}: {exc}"}
        finally:
            self._tasks.pop(request_id, None)
        self._send(encode(reply))

    def _answered(self, env: Envelope) -> None:
        incoming = self._forwarded.pop(env.id, UNSET)
        if incoming is not UNSET:
            self._outgoing_of.pop(incoming, None)
            self._send(answer(incoming, env.result, env.error))
            return
        future = self._waiting.pop(env.id, None)
        if future is not None and not future.done():
            future.set_result(env)

    def _cancel(self, request_id: Any) -> None:
        out_id = self._outgoing_of.get(request_id, UNSET)
        if out_id is not UNSET:  # cancel our own call of this hop, never the wrapped one
            params = msgspec.Raw(encode({CANCEL_REQUEST_ID: out_id}))
            self._send(encode(message(UNSET, CANCEL_REQUEST, params)))
        task = self._tasks.get(request_id)
        if task is not None:
            task.cancel()

    def close(self) -> None:
        for task in list(self._tasks.values()):
            task.cancel()
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(ConnectionError("the conductor closed the connection"))


async def serve_proxy(proxy: Proxy[Any, Any], schema: ModuleType) -> None:
    """Serve `proxy` on this process's stdio until the conductor closes it."""
    async with stdio_streams() as (reader, writer):
        router = ProxyRouter(proxy, schema, lambda data: writer.write(data + b"\n"))
        lines = LineReader(reader)
        try:
            while (line := await lines.readline()) is not None:
                if not isinstance(line, OversizedLine):
                    await router.receive(line)
                with contextlib.suppress(Exception):
                    await writer.drain()
        finally:
            router.close()


def run_proxy(proxy_class: Callable[[], Proxy[Any, Any]], schema: ModuleType | None = None) -> None:
    """Run `proxy_class()` (a class, or any factory) as a proxy on stdio (the default schema
    package is `acp_schema`)."""
    asyncio.run(serve_proxy(proxy_class(), schema if schema is not None else default_schema()))
