"""The HTTP side's answers that reach no connection: `Refused` (a request answered with an error
before it reached a connection: text/plain, or a JSON-RPC error answer), `respond` (one whole
answer), and `Headers` (a request's headers, as `AcpApp` reads them). The ASGI callables' types.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Sequence

import msgspec

from .messages import JSON_TYPE

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
TEXT_TYPE = b"text/plain; charset=utf-8"


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

    async def answer(self, send: Send) -> None:
        await respond(send, self.status, self.headers, self.body)


async def respond(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes = b""
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": headers})
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
