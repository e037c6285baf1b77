"""The loopback HTTP bridge: each `acp` MCP server a client declared, as a Streamable HTTP MCP
endpoint (MCP 2026-07-28, stateless) on 127.0.0.1, for an agent whose MCP client only takes a URL.
Each POSTed request is one `mcp/message` request of `caller`; its request-scoped notifications
and its answer come back as one SSE stream (or, to a client that takes only JSON, the answer as
JSON). Served by Hypercorn (its public `serve`), the `mcp` extra.

    async with McpBridge(caller) as bridge:                  # closed with the session
        endpoint = bridge.expose(server)                     # an AcpServer of session/new
        ... hand the MCP client endpoint.url and endpoint.headers ...

Each server has its own bearer token (`Authorization: Bearer ...`, compared in constant time):
a request without it, or with another server's, is refused 401. The bridge listens on 127.0.0.1
only and answers only to a loopback Host (421 otherwise, against DNS rebinding); a request that
carries an `Origin` is from a browser page and is refused 403 (an MCP client sends none). A body
over `max_body_bytes` (default 4 MiB) is refused 413, unread when its Content-Length says so.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import os
import secrets
import socket
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any

from hypercorn.asyncio import serve as hypercorn_serve
from hypercorn.config import Config

from .caller import AcpServer, McpCaller, McpNotification
from .limits import McpProtocolError

log = logging.getLogger("acp_runtime.mcp")

MAX_BODY_BYTES = 4 * 1024 * 1024
"""The largest request body the bridge reads."""

LOOPBACK = "127.0.0.1"
_LOOPBACK_HOSTS = frozenset({"127.0.0.1", "localhost"})

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


class BridgeRefusal(Exception):
    """A request the bridge refuses: its HTTP status and what is wrong."""

    def __init__(self, status: int, message: str, headers: list[tuple[bytes, bytes]] | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or []


@dataclass(frozen=True)
class BridgeEndpoint:
    """One exposed server: its URL and the header its MCP client must send."""

    server_id: str
    url: str
    token: str = field(repr=False)

    @property
    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"}


class McpBridge:
    """Streamable HTTP MCP endpoints on 127.0.0.1 for the `acp` servers `caller` reaches."""

    def __init__(self, caller: McpCaller, *, max_body_bytes: int = MAX_BODY_BYTES) -> None:
        if max_body_bytes < 1:
            raise ValueError("max_body_bytes must be a positive integer")
        self.caller = caller
        self.max_body_bytes = max_body_bytes
        self.endpoints: dict[str, BridgeEndpoint] = {}  # by the path's key
        self.refused = 0  # requests refused before reaching a server
        self._socket: socket.socket | None = None
        self._stop = asyncio.Event()
        self._serving: asyncio.Task[None] | None = None

    @property
    def port(self) -> int:
        if self._socket is None:
            raise RuntimeError("the bridge is not open")
        port: int = self._socket.getsockname()[1]
        return port

    async def open(self) -> None:
        """Listen on 127.0.0.1 (a free port) and serve until `close`."""
        self.open_now()

    def open_now(self) -> None:
        """`open`, for a caller that cannot await (a running event loop is needed): the port is
        bound when this returns, and served from the loop's next turn."""
        if self._socket is not None:
            raise RuntimeError("the bridge is open already")
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.bind((LOOPBACK, 0))
        sock.listen(128)
        self._socket = sock
        config = Config()
        config.bind = [f"fd://{os.dup(sock.fileno())}"]  # Hypercorn takes (and closes) the fd
        config.accesslog = None
        config.errorlog = "-"
        config.loglevel = "WARNING"
        config.graceful_timeout = 1.0
        asgi: Any = self  # an ASGI 3 app; Hypercorn's types are TypedDicts where it has dicts
        self._serving = asyncio.ensure_future(
            hypercorn_serve(asgi, config, shutdown_trigger=self._stop.wait)
        )

    async def close(self) -> None:
        """Stop serving: the endpoints are gone, their tokens with them."""
        self.endpoints.clear()
        self._stop.set()
        if self._serving is not None:
            await self._serving
            self._serving = None
        if self._socket is not None:
            self._socket.close()

    async def __aenter__(self) -> McpBridge:
        await self.open()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    def expose(self, server: AcpServer | str) -> BridgeEndpoint:
        """An endpoint for one `acp` server, with a token of its own."""
        server_id = server if isinstance(server, str) else server.server_id
        key = secrets.token_urlsafe(12)
        endpoint = BridgeEndpoint(
            server_id, f"http://{LOOPBACK}:{self.port}/mcp/{key}", secrets.token_urlsafe(32)
        )
        self.endpoints[key] = endpoint
        return endpoint

    # --- the ASGI application -----------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # (a WebSocket: no handshake is answered, Hypercorn closes it)
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        try:
            endpoint = self._admitted(scope, headers)
            message = await self._body(receive, headers)
        except BridgeRefusal as refusal:
            self.refused += 1
            await _reply(send, refusal.status, {"error": refusal.message}, refusal.headers)
            return
        await self._serve(endpoint, message, headers, send)

    def _admitted(self, scope: Scope, headers: dict[str, str]) -> BridgeEndpoint:
        host = headers.get("host", "")
        if host.rsplit(":", 1)[0].lower() not in _LOOPBACK_HOSTS:
            raise BridgeRefusal(421, "Host is not a loopback name: this bridge serves 127.0.0.1")
        if "origin" in headers:
            raise BridgeRefusal(403, "a request with an Origin is a browser page's: refused")
        path: str = scope.get("path", "")
        endpoint = (
            self.endpoints.get(path.removeprefix("/mcp/")) if path.startswith("/mcp/") else None
        )
        if endpoint is None:
            raise BridgeRefusal(404, f"no MCP server at {path}")
        scheme, _, token = headers.get("authorization", "").partition(" ")
        given = token.strip().encode()
        if scheme.lower() != "bearer" or not hmac.compare_digest(given, endpoint.token.encode()):
            challenge = [(b"www-authenticate", b"Bearer")]
            raise BridgeRefusal(401, "a bearer token of this server is required", challenge)
        if scope.get("method") != "POST":
            raise BridgeRefusal(
                405, "this stateless endpoint takes POST only", [(b"allow", b"POST")]
            )
        return endpoint

    async def _body(self, receive: Receive, headers: dict[str, str]) -> dict[str, Any]:
        limit = self.max_body_bytes
        declared = headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise BridgeRefusal(413, f"the body is {declared} bytes, over the limit of {limit}")
        chunks: list[bytes] = []
        size = 0
        while True:
            event = await receive()
            if event["type"] == "http.disconnect":
                raise BridgeRefusal(400, "the client left before its body ended")
            chunk: bytes = event.get("body", b"")
            size += len(chunk)
            if size > limit:
                raise BridgeRefusal(413, f"the body is over the limit of {limit} bytes")
            chunks.append(chunk)
            if not event.get("more_body", False):
                break
        try:
            message = json.loads(b"".join(chunks))
        except ValueError as exc:
            raise BridgeRefusal(400, f"the body is not JSON: {exc}") from None
        if not isinstance(message, dict) or not isinstance(message.get("method", ""), str):
            raise BridgeRefusal(400, "the body is not one JSON-RPC request or notification")
        return message

    async def _serve(
        self, endpoint: BridgeEndpoint, message: dict[str, Any], headers: dict[str, str], send: Send
    ) -> None:
        if "method" not in message or "id" not in message:
            # a notification (initialized, cancelled: the carrier has no way to send them) or a
            # response (the bridge sends no requests): accepted, nothing to answer
            await _reply(send, 202, None)
            return
        params = message.get("params")
        if params is not None and not isinstance(params, dict):
            await _reply(send, 200, _error(message["id"], -32602, "params must be an object"))
            return
        streaming = "text/event-stream" in headers.get("accept", "")
        if not streaming:
            answer = await self._answer(endpoint, message, None)
            await _reply(send, 200, answer)
            return
        await send(_start(200, "text/event-stream"))

        def notified(note: McpNotification) -> None:
            event: dict[str, Any] = {"jsonrpc": "2.0", "method": note.method}
            if note.params is not None:
                event["params"] = note.params
            pending.append(asyncio.ensure_future(_event(send, event)))

        pending: list[asyncio.Future[None]] = []
        answer = await self._answer(endpoint, message, notified)
        if pending:
            await asyncio.gather(*pending)
        await _event(send, answer)
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    async def _answer(
        self,
        endpoint: BridgeEndpoint,
        message: dict[str, Any],
        notified: Callable[[McpNotification], None] | None,
    ) -> dict[str, Any]:
        request_id = message["id"]
        rpc_error = self.caller.conn.schema.RpcError
        try:
            result = await self.caller.request(
                endpoint.server_id,
                message["method"],
                message.get("params"),
                on_notification=notified,
            )
        except McpProtocolError as exc:
            return {"jsonrpc": "2.0", "id": request_id, "error": exc.to_error()}
        except rpc_error as exc:  # the binding's outer error: its code and text, to the client
            return _error(request_id, exc.code, exc.message, getattr(exc, "data", None))
        return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _error(request_id: Any, code: int, message: str, data: Any = None) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": McpProtocolError(code, message, data).to_error(),
    }


def _start(status: int, content_type: str, extra: list[tuple[bytes, bytes]] | None = None) -> Any:
    headers = [(b"content-type", content_type.encode()), (b"cache-control", b"no-store")]
    return {"type": "http.response.start", "status": status, "headers": headers + (extra or [])}


async def _reply(
    send: Send, status: int, body: Any, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send(_start(status, "application/json", extra))
    data = b"" if body is None else json.dumps(body).encode()
    await send({"type": "http.response.body", "body": data, "more_body": False})


async def _event(send: Send, message: dict[str, Any]) -> None:
    data = b"event: message\ndata: " + json.dumps(message).encode() + b"\n\n"
    await send({"type": "http.response.body", "body": data, "more_body": True})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        event = await receive()
        if event["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif event["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return
