"""How the HTTP client makes its `httpx.AsyncClient`s: TLS contexts made once per process and
shared by every connection, TCP_NODELAY, and a pool without a cap.

An `httpx.AsyncClient` builds a new `ssl.SSLContext` each time it is made (loading the CA bundle:
about 28 ms and 0.8 MiB), even for `http://`, unless it is given one. `connect_agent` gives it one
from here instead:

- `http://` never negotiates TLS: every client shares one bare context, which loads nothing and
  is never used for a handshake;
- `https://` with `verify=True` (the CA bundle) or `verify=False` shares one context per process
  and per ALPN list (httpcore sets the context's ALPN protocols before each handshake, so clients
  that offer HTTP/2 and clients that do not each keep their own);
- a context the caller passes as `verify` is used as it is.

Its sockets set TCP_NODELAY: h11 writes a request's head and body in two writes, and with Nagle's
algorithm the body waits for the peer's delayed ACK of the head (on loopback here: 71 POSTs/s
against Hypercorn without it, 162/s with it).
"""

from __future__ import annotations

import socket
import ssl
from typing import Any

import httpx

_CONTEXTS: dict[tuple[str, bool, bool], ssl.SSLContext] = {}


def tls_context(scheme: str, verify: Any, http2: bool) -> Any:
    """What to pass an `httpx.AsyncClient` as `verify` for a URL of `scheme`: a shared context
    where one fits, else `verify` itself (which httpx then reads as it always does)."""
    if isinstance(verify, ssl.SSLContext):
        return verify
    if scheme.lower() in ("http", "ws"):
        key = ("plain", False, False)
    elif verify is True or verify is False:
        key = ("tls", verify, http2)
    else:  # a path to a CA bundle (httpx's deprecated form): httpx reads it, as before
        return verify
    context = _CONTEXTS.get(key)
    if context is None:
        if key[0] == "plain":
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        else:
            context = httpx.create_ssl_context(verify=verify)
        context = _CONTEXTS.setdefault(key, context)
    return context


_NODELAY = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]


def new_client(scheme: str, *, http2: bool, verify: Any, **options: Any) -> httpx.AsyncClient:
    """An `httpx.AsyncClient` for URLs of `scheme`: the process's shared TLS context, TCP_NODELAY,
    no cap on its pool (on HTTP/1.1 each open SSE stream keeps a TCP connection of it); other
    options (headers, cookies, timeout) go to the client."""
    transport = httpx.AsyncHTTPTransport(
        verify=tls_context(scheme, verify, http2),
        http2=http2,
        limits=httpx.Limits(max_connections=None, max_keepalive_connections=None),
        socket_options=_NODELAY,
    )
    return httpx.AsyncClient(transport=transport, **options)
