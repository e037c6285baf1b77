"""The POSTs of one connection over HTTP/1.1, on a keep-alive TCP connection of their own.

A connection sends its messages one at a time, each one POST whose answer is a status and a small
body, so `connect_agent` needs no pool, no redirects and no streaming for them. `Poster` writes
each request, head and body, in one write (httpx writes the head and the body apart: two
segments and two wake-ups of the server per message), and reads the answer with h11, the parser
httpx itself uses. Cookies go through the connection's `httpx.Cookies` jar both ways.

It is used for `http://` over HTTP/1.1 when `connect_agent` makes its own clients and no proxy is
configured in the environment (httpx would honour one); everything else goes through httpx.
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.request
from typing import NamedTuple, Sequence
from urllib.parse import urlsplit

import h11
import httpx

_READ_BYTES = 1 << 16


class Origin(NamedTuple):
    """Where the requests to an `http://` URL go, and what their heads name."""

    host: str
    port: int
    target: str  # the path and query
    authority: str  # host[:port] as the URL writes it (no user info)


def origin(url: str) -> Origin:
    parts = urlsplit(url)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    authority = parts.netloc.rpartition("@")[2]
    return Origin(parts.hostname or "localhost", parts.port or 80, target, authority)


def fixed_headers(headers: httpx.Headers) -> dict[str, str]:
    """The headers every request carries, as httpx sends them, then the caller's."""
    fixed = {"accept": "*/*", "user-agent": f"python-httpx/{httpx.__version__}"}
    fixed.update((name.lower(), value) for name, value in headers.items())
    return fixed


class PostFailed(Exception):
    """The POST could not be sent or its answer not read (the connection broke)."""


RawHeaders = Sequence[tuple[bytes, bytes]]


class Answer:
    """What the server answered a POST: what `connect_agent` reads of an `httpx.Response`. Its
    `headers` are made from the raw ones when first read (`connect_agent` reads them of an
    `initialize` answer, not of the 202 of every other message)."""

    __slots__ = ("status_code", "reason_phrase", "_raw", "_headers", "content")

    def __init__(
        self, status_code: int, reason_phrase: str, headers: RawHeaders, content: bytes
    ) -> None:
        self.status_code = status_code
        self.reason_phrase = reason_phrase
        self._raw = headers
        self._headers: httpx.Headers | None = None
        self.content = content

    @property
    def headers(self) -> httpx.Headers:
        if self._headers is None:
            self._headers = httpx.Headers(list(self._raw))
        return self._headers


def sets_cookie(headers: RawHeaders) -> bool:
    """Whether raw response headers hold a Set-Cookie."""
    return any(name.lower() == b"set-cookie" for name, _ in headers)


def usable(url: str, http2: bool | None) -> bool:
    """Whether `Poster` carries the POSTs to `url`: plain `http://` over HTTP/1.1, and no proxy
    for it in the environment."""
    parts = urlsplit(url)
    if parts.scheme.lower() != "http" or http2 is True:
        return False
    if not ({"http", "all"} & urllib.request.getproxies().keys()):  # what httpx reads
        return True
    return bool(urllib.request.proxy_bypass(parts.hostname or ""))


class Poster:
    """Sends POSTs to `url` one at a time on one keep-alive connection (reopened when the server
    closed it between two POSTs); `headers` go on every request."""

    def __init__(
        self, url: str, headers: httpx.Headers, cookies: httpx.Cookies, connect_timeout: float
    ) -> None:
        where = origin(url)
        self._url = url
        self._address = (where.host, where.port)
        self._target = where.target
        self._fixed = {"host": where.authority, **fixed_headers(headers)}
        self._cookies = cookies
        self._connect_timeout = connect_timeout
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._parser = h11.Connection(h11.CLIENT)

    async def post(self, body: bytes, headers: dict[str, str], limit: int) -> Answer:
        """POST `body` with `headers` (on top of the fixed ones); the server's answer, whose body
        may not pass `limit` bytes (`PostFailed`, the connection closed: nothing more is read)."""
        head = dict(self._fixed)
        head.update((name.lower(), value) for name, value in headers.items())
        if self._cookies.jar:
            cookie = self._cookie_header()
            if cookie:
                head["cookie"] = cookie
        head["content-length"] = str(len(body))
        try:
            return await self._exchange(head, body, limit)
        except (OSError, EOFError, h11.ProtocolError, asyncio.TimeoutError) as exc:
            await self.aclose()
            raise PostFailed(f"POST {self._url}: {exc!r}") from exc

    async def _exchange(self, head: dict[str, str], body: bytes, limit: int) -> Answer:
        reader, writer = await self._connected()
        parser = self._parser
        request = h11.Request(method="POST", target=self._target, headers=list(head.items()))
        data = parser.send(request) or b""
        data += parser.send(h11.Data(data=body)) or b""
        data += parser.send(h11.EndOfMessage()) or b""
        writer.write(data)  # head and body in one write
        response: h11.Response | None = None
        content = bytearray()
        while True:
            event = parser.next_event()
            if event is h11.NEED_DATA:
                parser.receive_data(await reader.read(_READ_BYTES))  # b"": the server closed
            elif isinstance(event, h11.Response):
                response = event
            elif isinstance(event, h11.Data):
                content += event.data
                if len(content) > limit:
                    raise EOFError(f"the answer's body passed {limit} bytes")
            elif isinstance(event, h11.EndOfMessage):
                break
            elif isinstance(event, h11.ConnectionClosed):
                raise EOFError("the server closed the connection before answering")
            # h11.InformationalResponse (1xx): skipped, the final answer follows
        assert response is not None
        raw = list(response.headers.raw_items())
        answer = Answer(response.status_code, response.reason.decode(), raw, bytes(content))
        if sets_cookie(raw):
            self._cookies.extract_cookies(
                httpx.Response(answer.status_code, headers=answer.headers, request=self._request())
            )
        if parser.our_state is h11.MUST_CLOSE or parser.their_state is h11.MUST_CLOSE:
            await self.aclose()
        else:
            parser.start_next_cycle()
        return answer

    async def _connected(self) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        """The open connection; a new one when there is none or the server closed it while idle
        (as httpcore checks before it reuses one)."""
        if self._writer is not None and self._reader is not None:
            if not self._reader.at_eof() and not self._writer.is_closing():
                return self._reader, self._writer
            await self.aclose()
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(*self._address, limit=_READ_BYTES), self._connect_timeout
        )
        self._reader, self._writer = reader, writer
        self._parser = h11.Connection(h11.CLIENT)
        return reader, writer

    def _request(self) -> httpx.Request:
        return httpx.Request("POST", self._url)

    def _cookie_header(self) -> str | None:
        request = self._request()
        self._cookies.set_cookie_header(request)
        cookie: str | None = request.headers.get("cookie")
        return cookie

    async def aclose(self) -> None:
        writer, self._writer, self._reader = self._writer, None, None
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
