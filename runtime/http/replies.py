"""The HTTP side's replies that reach no connection: `Refused` (a request answered with an error
before it reached a connection), `plain` (a text/plain answer), `json_error` (a JSON-RPC error
answer), and `Headers` (a request's headers, as `AcpApp` reads them). The ASGI callables' types.
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Sequence

import msgspec

from .messages import JSON_TYPE

Scope = dict[str, Any]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Send = Callable[[dict[str, Any]], Awaitable[None]]


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
        self.status, self.text, self.code, self.data = status, text, code, data
        self.request_id, self.headers = request_id, headers

    async def answer(self, send: Send) -> None:
        if self.code is None:
            await plain(send, self.status, self.text, self.headers)
        else:
            await json_error(send, self.status, self.code, self.text, self.data, self.request_id)


class Headers(dict[str, str]):
    """A request's headers by lower-case name (a repeated header: its last value), and whether
    it came over TLS."""

    def __init__(self, scope: Scope) -> None:
        raw: list[tuple[bytes, bytes]] = scope["headers"]
        super().__init__((k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in raw)
        self.tls = scope.get("scheme") in ("https", "wss")

    def get(self, name: str, default: Any = None) -> Any:
        return super().get(name.lower(), default)


async def plain(
    send: Send, status: int, text: str, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    start = [(b"content-type", b"text/plain; charset=utf-8"), *headers]
    await send({"type": "http.response.start", "status": status, "headers": start})
    await send({"type": "http.response.body", "body": text.encode()})


async def json_error(
    send: Send, status: int, code: int, text: str, data: Any = None, request_id: Any = None
) -> None:
    error: dict[str, Any] = {"code": code, "message": text}
    if data is not None:
        error["data"] = data
    body = msgspec.json.encode({"jsonrpc": "2.0", "id": request_id, "error": error})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", JSON_TYPE.encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
