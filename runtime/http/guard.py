"""Who may reach an `AcpApp`, and what is answered before a connection: the Host and Origin
checks, what the authentication hook sees (`admit`), `Refused` (a request answered with an error
before it reached a connection: text/plain, or a JSON-RPC error answer), `respond` (one whole
answer), `Headers` (a request's headers, as `AcpApp` reads them), the ASGI callables' types, and
the names both sides of the remote transport share: its headers and media types.

- **Host** (DNS rebinding): a page on `evil.example` whose name the attacker points at 127.0.0.1
  sends `Host: evil.example`. `allowed_hosts=None` (the default) takes only loopback names
  (`localhost`, `127.0.0.1`, `::1`, any port) on a request that reached the server over a
  loopback address, and any name otherwise (a server reached on a public address is named by
  its operator: set `allowed_hosts` there). `"*"` in the list takes any name.
- **Origin** (cross-site requests; browsers apply no CORS to WebSockets): a browser sends
  `Origin` with every WebSocket handshake and cross-origin POST. A request without `Origin` is
  not from a page and passes. `allowed_origins=None` (the default) takes only loopback origins
  (`http(s)://localhost|127.0.0.1|[::1]`, any port); list others as `"https://app.example"`
  (scheme, host and port, as browsers send them), or `"*"` for any.
"""

from __future__ import annotations

import functools
import inspect
import ipaddress
import logging
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Mapping, Sequence, Union
from urllib.parse import urlsplit

import msgspec

CONNECTION_ID_HEADER = "Acp-Connection-Id"
SESSION_ID_HEADER = "Acp-Session-Id"
JSON_TYPE = "application/json"
EVENT_STREAM_TYPE = "text/event-stream"
TEXT_TYPE = b"text/plain; charset=utf-8"
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]

log = logging.getLogger("acp_runtime.http")


class Refused(Exception):
    """A request answered with an error before it reached a connection: text/plain, or a
    JSON-RPC error answer (`code`, `data`, the `request_id` it answers) when `code` is given."""

    def __init__(
        self,
        status: int,
        text: str,
        code: int | None = None,
        data: Any = None,
        *,
        request_id: Any = None,
        headers: Sequence[tuple[bytes, bytes]] = (),
    ) -> None:
        super().__init__(text)
        self.status, self.text = status, text
        if code is None:
            self.body, kind = text.encode(), TEXT_TYPE
        else:
            error = {"code": code, "message": text} | ({} if data is None else {"data": data})
            self.body = msgspec.json.encode({"jsonrpc": "2.0", "id": request_id, "error": error})
            kind = JSON_TYPE.encode()
        self.headers = [(b"content-type", kind), *headers]


async def respond(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes = b""
) -> None:
    # with its length, the answer goes out unchunked: on HTTP/1.1 one write less, no end chunk
    length = (b"content-length", str(len(body)).encode())
    await send({"type": "http.response.start", "status": status, "headers": [*headers, length]})
    await send({"type": "http.response.body", "body": body})


class Headers(dict[str, str]):
    """A request's headers by lower-case name (a repeated header: its last value), and whether
    it came over TLS."""

    def __init__(self, scope: Scope) -> None:
        raw: list[tuple[bytes, bytes]] = scope["headers"]
        super().__init__((k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in raw)
        self.tls = scope.get("scheme") in ("https", "wss")

    def get(self, name: str, default: Any = None) -> Any:
        return super().get(name.lower(), default)


@dataclass(frozen=True)
class RequestInfo:
    """What `authenticate` sees of a request (an HTTP POST, GET or DELETE, or a WebSocket
    handshake), before anything reaches a connection.

    `headers` has lower-case names (the last value of a repeated header); `client` is the peer's
    (host, port); `tls` is True over https / wss, and `tls_info` is the ASGI `tls` extension
    when the server gives one (Hypercorn: the client certificate chain, `client_cert_chain`);
    `scope` is the whole ASGI scope, for anything else."""

    transport: str  # "http" or "websocket"
    method: str  # "POST", "GET", "DELETE", or "GET" for a WebSocket handshake
    headers: Mapping[str, str]
    client: tuple[str, int] | None
    tls: bool
    tls_info: Mapping[str, Any] | None = None
    scope: Mapping[str, Any] = field(default_factory=dict, repr=False)

    @property
    def bearer_token(self) -> str | None:
        """The token of an `Authorization: Bearer TOKEN` header (None without one)."""
        scheme, _, token = (self.headers.get("authorization") or "").partition(" ")
        if scheme.lower() != "bearer":
            return None
        return token.strip() or None


Authenticate = Callable[[RequestInfo], Union[Any, Awaitable[Any]]]
"""`authenticate(request) -> principal`, or None to refuse (401); may be async. A principal is
any value compared with `==` (a user name, a key id): a connection belongs to the principal that
opened it, and every later request on it must come from an equal one."""


async def admit(app: Any, scope: Scope, headers: Headers) -> Any:
    """The request's principal (None without the `authenticate` of `app`, an `AcpApp`), or
    `Refused` 403 (its `allowed_hosts` or `allowed_origins` refuse it) / 401 (the hook does) /
    404 (it is not for the app's `path`, below the ASGI `root_path` of a mount, whether the server
    left that in `path`, as ASGI says, or not)."""
    reason = foreign(app, scope, headers)
    if reason is not None:
        raise Refused(403, f"forbidden: {reason}")
    principal = None
    if app.authenticate is not None:
        kind = "websocket" if scope["type"] == "websocket" else "http"
        peer = (scope["client"][0], scope["client"][1]) if scope.get("client") else None
        tls_info = (scope.get("extensions") or {}).get("tls")
        method = scope.get("method", "GET")
        request = RequestInfo(kind, method, headers, peer, headers.tls, tls_info, scope)
        try:
            principal = app.authenticate(request)
            if inspect.isawaitable(principal):
                principal = await principal
        except Exception:  # a broken hook lets no one in
            log.exception("the authenticate hook failed")
            raise Refused(500, "Internal error: the authentication hook failed") from None
        if principal is None:
            raise Refused(401, "unauthorized: this agent needs credentials")
    root, path = scope.get("root_path") or "", scope.get("path") or ""
    if root and path.startswith(root):
        path = path[len(root) :]
    if path != app.path:
        raise Refused(404, f"not found: ACP is served at {root + app.path}")
    return principal


@functools.lru_cache(maxsize=256)
def is_loopback(host: str) -> bool:
    """Whether an address (or name) is a loopback one (remembered: a server sees few)."""
    host = host.strip("[]").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def host_name(host_header: str) -> str:
    """The name of a Host header, without its port or IPv6 brackets, lower-case."""
    host = host_header.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def foreign(app: Any, scope: Scope, headers: Headers) -> str | None:
    """Why a request is refused 403 by the Host and Origin checks of `app` (its `allowed_hosts`
    and `allowed_origins`; None: it passes). The reason names the header, never its value."""
    host = headers.get("host") or headers.get(":authority")
    name = None if host is None else host_name(host)
    if app.allowed_hosts is None:
        server = scope.get("server")
        if server and isinstance(server[0], str) and is_loopback(server[0]):
            if name not in LOOPBACK_NAMES:
                return "Host is not a loopback name (this server is reached over loopback)"
    elif "*" not in app.allowed_hosts and name not in {host.lower() for host in app.allowed_hosts}:
        return "Host is not one this server answers to"
    origin = headers.get("origin")
    if origin is None:
        return None  # not a browser page
    origin = origin.strip().lower()
    if app.allowed_origins is None:
        parts = urlsplit(origin)
        taken = parts.scheme in ("http", "https") and (parts.hostname or "") in LOOPBACK_NAMES
    else:
        wanted = {allowed.lower().rstrip("/") for allowed in app.allowed_origins}
        taken = "*" in wanted or origin.rstrip("/") in wanted
    return None if taken else "a page of another origin may not call this agent"
