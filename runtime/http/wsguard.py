"""The runtime's one adapter to a library's internals (issue 35): what safety needs of Hypercorn's
WebSocket that no public API offers. Hypercorn has no setting that turns permessage-deflate off
(a compressed frame is inflated whole before its size is checked: 1 MiB on the wire can become
1 GiB), and after it closes a WebSocket for size (1009) it keeps reading and holding the rest.

While an `AcpApp` accepts a WebSocket (`guarded(on_too_big)` around its `websocket.accept`),
Hypercorn's handshake answers as if the client offered no extension, and the connection it
drives is a `GuardedConnection`: wsproto's own `Connection` (its public methods), which

- once Hypercorn closes it for size, drops whatever else arrives and reports the connection
  closed at the next read (Hypercorn then closes the socket), and tells the app (`on_too_big`);
- on a frame wsproto refuses (unmasked, bad UTF-8, a reserved bit) lets Hypercorn answer it with
  the close frame (1002 / 1007) instead of dropping the socket silently.

The shape relied on: `hypercorn.protocol.ws_stream.Handshake.accept(self, subprotocol,
additional_headers) -> (status, headers, connection)` reading the offered extensions from
`self.extensions`; `WSStream` answering a `CloseConnection` event with `event.response()` when
the connection's `state` is `REMOTE_CLOSING`, and closing the stream after it. `check()` runs a
handshake at import; when the shape has moved, `problem` names Hypercorn's and wsproto's versions,
and `serve` refuses to start: never a server without the guard.
"""

from __future__ import annotations

import contextlib
import contextvars
import inspect
from importlib.metadata import version
from typing import Any, Callable, Iterator

from hypercorn.protocol import ws_stream
from wsproto.connection import Connection, ConnectionState, ConnectionType
from wsproto.events import CloseConnection, Event
from wsproto.frame_protocol import CloseReason

_GUARD: contextvars.ContextVar[Callable[[], None] | None] = contextvars.ContextVar(
    "acp_websocket_guard", default=None
)


class GuardedConnection(Connection):
    """wsproto's server connection, bounded after a close for size and answering bad frames."""

    def __init__(self, on_too_big: Callable[[], None]) -> None:
        self.on_too_big = on_too_big
        self.too_big = False  # closed for size: nothing more is read
        self.refused: CloseConnection | None = None  # a frame wsproto refused, not yet answered
        super().__init__(ConnectionType.SERVER)

    @property
    def state(self) -> ConnectionState:
        if self.refused is not None:  # Hypercorn answers a close it sees in this state
            return ConnectionState.REMOTE_CLOSING
        return super().state

    def send(self, event: Event) -> bytes:
        if isinstance(event, CloseConnection):
            self.refused = None
            if event.code == CloseReason.MESSAGE_TOO_BIG and not self.too_big:
                self.too_big = True
                self.on_too_big()
        return super().send(event)

    def receive_data(self, data: bytes | None) -> None:
        if not self.too_big:  # else dropped: this WebSocket is closing for size
            super().receive_data(data)

    def events(self) -> Iterator[Event]:  # type: ignore[override]
        if self.too_big:
            yield CloseConnection(code=CloseReason.MESSAGE_TOO_BIG)
            return
        for event in super().events():
            if isinstance(event, CloseConnection) and super().state is ConnectionState.OPEN:
                self.refused = event  # a frame wsproto could not take: no close came with it
            yield event


def _accept(self: Any, subprotocol: str | None, additional_headers: Any) -> Any:
    on_too_big = _GUARD.get()
    if on_too_big is None:  # not an AcpApp's: Hypercorn's behaviour
        return _ORIGINAL(self, subprotocol, additional_headers)
    self.extensions = None  # as if the client offered none
    status, headers, _ = _ORIGINAL(self, subprotocol, additional_headers)
    return status, headers, GuardedConnection(on_too_big)


@contextlib.contextmanager
def guarded(on_too_big: Callable[[], None]) -> Iterator[None]:
    """Accept the WebSocket within this block guarded (see the module)."""
    token = _GUARD.set(on_too_big)
    try:
        yield
    finally:
        _GUARD.reset(token)


def check() -> str | None:
    """Why the guard cannot work with the installed libraries (None: it works)."""
    offer = [
        (b"connection", b"Upgrade"),
        (b"upgrade", b"websocket"),
        (b"sec-websocket-key", b"dGhlIHNhbXBsZSBub25jZQ=="),
        (b"sec-websocket-version", b"13"),
        (b"sec-websocket-extensions", b"permessage-deflate"),
    ]
    try:
        params = list(inspect.signature(_ORIGINAL).parameters)
        if params != ["self", "subprotocol", "additional_headers"]:
            return f"Handshake.accept takes {params}"
        plain = ws_stream.Handshake(offer, "1.1").accept(None, [])
        if not any(name == b"sec-websocket-extensions" for name, _ in plain[1]):
            return "its handshake no longer negotiates permessage-deflate as the guard expects"
        with guarded(lambda: None):
            status, headers, connection = ws_stream.Handshake(offer, "1.1").accept(None, [])
    except Exception as exc:  # any change of shape
        return f"its WebSocket handshake changed ({exc!r})"
    if any(name == b"sec-websocket-extensions" for name, _ in headers):
        return "permessage-deflate is still negotiated"
    if status != 101 or not isinstance(connection, GuardedConnection):
        return "the handshake ignores the guard's connection"
    return None


_ORIGINAL = ws_stream.Handshake.accept
ws_stream.Handshake.accept = _accept  # type: ignore[method-assign]
_why = check()
problem = (
    None
    if _why is None
    else f"acp_runtime.http refuses to serve WebSockets under Hypercorn {version('hypercorn')} "
    f"with wsproto {version('wsproto')}: the WebSocket guard (runtime/http/wsguard.py) no longer "
    f"fits: {_why}"
)
"""Why `serve` refuses to start (None: the guard holds)."""
