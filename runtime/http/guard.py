"""Who may reach an `AcpApp`: the Host and Origin checks, and what the authentication hook sees.

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
import ipaddress
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Collection, Mapping, Union
from urllib.parse import urlsplit

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


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


def request_info(scope: Mapping[str, Any], headers: Mapping[str, str]) -> RequestInfo:
    transport = "websocket" if scope["type"] == "websocket" else "http"
    client = scope.get("client")
    extensions = scope.get("extensions") or {}
    return RequestInfo(
        transport=transport,
        method=scope.get("method", "GET"),
        headers=headers,
        client=(client[0], client[1]) if client else None,
        tls=scope.get("scheme") in ("https", "wss"),
        tls_info=extensions.get("tls"),
        scope=scope,
    )


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


def foreign(
    scope: Mapping[str, Any],
    headers: Mapping[str, str],
    allowed_hosts: Collection[str] | None,
    allowed_origins: Collection[str] | None,
) -> str | None:
    """Why a request is refused 403 by the Host and Origin checks (None: it passes). The reason
    names the header, never its value."""
    host = headers.get("host") or headers.get(":authority")
    if allowed_hosts is None:
        server = scope.get("server")
        if server and isinstance(server[0], str) and is_loopback(server[0]):
            if host is None or host_name(host) not in LOOPBACK_NAMES:
                return "Host is not a loopback name (this server is reached over loopback)"
    elif "*" not in allowed_hosts:
        names = {name.lower() for name in allowed_hosts}
        if host is None or host_name(host) not in names:
            return "Host is not one this server answers to"
    origin = headers.get("origin")
    if origin is None:
        return None  # not a browser page
    if allowed_origins is None:
        parts = urlsplit(origin.strip().lower())
        if parts.scheme in ("http", "https") and (parts.hostname or "") in LOOPBACK_NAMES:
            return None
        return "a page of another origin may not call this agent"
    if "*" in allowed_origins or origin.strip().lower().rstrip("/") in {
        o.lower().rstrip("/") for o in allowed_origins
    }:
        return None
    return "a page of another origin may not call this agent"
