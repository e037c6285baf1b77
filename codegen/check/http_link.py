"""A remote agent over Streamable HTTP (`--url http://...`), the checker's raw driver for it.

As the remote-transport RFD (rfds/streamable-http-websocket-transport.mdx) lays it out: every
message the checker sends is one `POST`, in order, one at a time. `initialize` (without
`Acp-Connection-Id`) is answered `200` with the agent's answer in the body and the
`Acp-Connection-Id` header; every later POST carries that header and is answered `202`, the
agent's messages coming on `GET` SSE streams: the connection-scoped one (opened after
initialize) and one per session (opened before the first POST about the session, or when an
answer names a new session). A POST about a session carries `Acp-Session-Id`; so does the
checker's answer to a request the agent sent on a session's stream. Closing is a `DELETE`.

Like `WebSocketLink` it records every frame both ways; a POST the server refuses is recorded
too (`<! HTTP 404 ...`), and a request it carried is answered by that refusal (`on_refused`):
neither a result nor a JSON-RPC error, but not left waiting either. The two SSE streams of a
connection are read at once and the transport sets no order between them: a session/load
answer (connection stream) may overtake the replay (session stream), so `ordered` is False.

Needs `httpx` (the `http` extra). Speaks HTTP/1.1 (each SSE stream holds a TCP connection of the
pool): the RFD asks for HTTP/2, which the checker does not negotiate.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Any, AsyncIterator
from urllib.parse import urlsplit

from .link import Link, SpawnError

CONNECTION_ID = "Acp-Connection-Id"
SESSION_ID = "Acp-Session-Id"
JSON_TYPE = "application/json"
EVENT_STREAM = "text/event-stream"
BODY_SHOWN = 300  # characters of a refusal's body the transcript keeps
MAX_EVENT = 16 << 20  # the longest SSE line the checker reads
REFUSALS = (401, 403)  # statuses that refuse the connection (credentials), not one message


class HttpLink(Link):
    ordered = False

    def __init__(self, client: Any, url: str, timeout: float) -> None:
        super().__init__()
        self.client = client
        self.url = url
        self.argv = [url]
        self.timeout = timeout
        self.connection_id: str | None = None
        self.refusals: list[str] = []  # each POST or GET the server did not accept
        self._lock = asyncio.Lock()  # one POST at a time, in the order they were written
        self._streams: dict[str | None, asyncio.Task[None]] = {}
        self._asked: dict[str, str] = {}  # the agent's request id (JSON) -> its session
        self._closed = False

    @classmethod
    async def connect(
        cls, url: str, timeout: float, headers: dict[str, str] | None = None
    ) -> HttpLink:
        try:
            import httpx
        except ImportError as exc:
            raise SpawnError(
                f"--url http(s):// needs the httpx package ({exc.name} is not installed): install"
                " the http extra, pip install -e '.[http]' in the acpgen clone"
            ) from exc
        await _reachable(url, timeout)
        client = httpx.AsyncClient(
            timeout=httpx.Timeout(timeout, read=None), http2=False, headers=headers or {}
        )
        return cls(client, url, timeout)

    # ---- out

    async def write(self, data: bytes, pieces: int = 1, pause: float = 0.0) -> bool:
        frame = data.rstrip(b"\n")
        self.transcript.add("sent", frame)
        async with self._lock:
            if self._closed:
                return False
            try:
                return await self._post(frame)
            except Exception as exc:  # httpx's network errors: the agent is gone
                self._refused(f"POST failed: {exc!r}")
                self._end()
                return False

    async def _post(self, frame: bytes) -> bool:
        message = _json_object(frame)
        method = message.get("method")
        headers = {"content-type": JSON_TYPE, "accept": f"{JSON_TYPE}, {EVENT_STREAM}"}
        if self.connection_id is None:
            response = await self.client.post(self.url, content=frame, headers=headers)
            connection_id = response.headers.get(CONNECTION_ID)
            if response.status_code != 200:
                if response.status_code in REFUSALS:  # the connection itself is refused
                    self.refusal = f"HTTP {response.status_code} {_body(response)}".rstrip()
                self._refused(_described("POST", method, response), message)
                self._end()
                return True
            if connection_id:
                self.connection_id = connection_id
                self._open(None)
            self._arrived(response.content)
            if not connection_id:  # initialize refused (an error answer): no connection
                self._end()
            return True
        if isinstance(method, str):
            session = _session_of(message)
        else:  # the checker's answer to a request the agent sent on a session's stream
            session = self._asked.pop(json.dumps(message.get("id")), None)
        if session is not None:
            self._open(session)
            headers[SESSION_ID] = session
        headers[CONNECTION_ID] = self.connection_id
        response = await self.client.post(self.url, content=frame, headers=headers)
        if response.status_code == 200 and response.content:
            self._arrived(response.content)
        elif response.status_code not in (200, 202):
            self._refused(_described("POST", method, response), message)
            if response.status_code in (404, 410) and session is None:
                self._end()  # the connection is unknown (with Acp-Session-Id: the session is)
        return True

    def _refused(self, what: str, message: dict[str, Any] | None = None) -> None:
        self.refusals.append(what)
        self.transcript.add("http", what.encode("utf-8"))
        if message is not None and isinstance(message.get("method"), str) and "id" in message:
            if self.on_refused is not None:
                self.on_refused(message["id"], what)

    # ---- in

    def _arrived(self, frame: bytes) -> None:
        message = _json_object(frame)
        result = message.get("result")
        if isinstance(result, dict) and isinstance(result.get("sessionId"), str):
            self._open(result["sessionId"])
        session = _session_of(message)
        if isinstance(message.get("method"), str) and "id" in message and session is not None:
            self._asked[json.dumps(message["id"])] = session
        super()._arrived(frame)

    def _open(self, session: str | None) -> None:
        task = self._streams.get(session)
        if task is None and not self._closed:
            self._streams[session] = asyncio.create_task(self._read(session))

    async def _read(self, session: str | None) -> None:
        assert self.connection_id is not None
        headers = {"accept": EVENT_STREAM, CONNECTION_ID: self.connection_id}
        if session is not None:
            headers[SESSION_ID] = session
        try:
            async with self.client.stream("GET", self.url, headers=headers) as response:
                if response.status_code != 200:
                    await response.aread()
                    self._refused(_described("GET", session or "the connection", response))
                else:
                    async for event in sse_events(response.aiter_bytes()):
                        self._arrived(event)
                        if self.flood is not None:
                            break
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the stream broke
            self._refused(f"GET {session or 'the connection'}'s stream broke: {exc!r}")
        if session is None:
            self._end()

    def _end(self) -> None:
        if not self._closed:
            self._closed = True
            self._ended()

    # ---- closing

    def close_stdin(self) -> None:
        self.stdin_closed = True

    async def stop(self, grace: float = 1.0) -> None:
        self.stdin_closed = True
        for task in self._streams.values():
            task.cancel()
        await asyncio.gather(*self._streams.values(), return_exceptions=True)
        if self.connection_id is not None and not self._closed:
            headers = {CONNECTION_ID: self.connection_id}
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.client.delete(self.url, headers=headers), grace)
        self._end()
        with contextlib.suppress(Exception):
            await self.client.aclose()


async def _reachable(url: str, timeout: float) -> None:
    """SpawnError unless a TCP connection to the URL's host and port opens: nothing is sent
    before the first POST, so an unreachable agent is bad usage, as for a command not found."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
    try:
        _, writer = await asyncio.wait_for(
            asyncio.open_connection(parts.hostname or "localhost", port), timeout
        )
    except (OSError, TimeoutError, ValueError) as exc:
        raise SpawnError(f"cannot connect to {url}: {exc}") from exc
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()


async def sse_events(chunks: AsyncIterator[bytes]) -> AsyncIterator[bytes]:
    """The data of each server-sent event (the lines of a multi-line `data` joined with
    newlines; comments and other fields skipped). An event the stream ends in the middle of
    (before its blank line) is not one, as the SSE specification says."""
    buffer = b""
    data: list[bytes] = []
    async for chunk in chunks:
        buffer += chunk
        if len(buffer) > MAX_EVENT:
            raise ValueError(f"an SSE line longer than {MAX_EVENT >> 20} MiB")
        *lines, buffer = buffer.split(b"\n")
        for raw in lines:
            line = raw.rstrip(b"\r")
            if not line:
                if data:
                    yield b"\n".join(data)
                    data = []
            elif line.startswith(b"data:"):
                value = line[5:]
                data.append(value[1:] if value.startswith(b" ") else value)


def _json_object(frame: bytes) -> dict[str, Any]:
    try:
        value = json.loads(frame)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _session_of(message: dict[str, Any]) -> str | None:
    params = message.get("params")
    session = params.get("sessionId") if isinstance(params, dict) else None
    return session if isinstance(session, str) else None


def _body(response: Any) -> str:
    return str(response.content[:BODY_SHOWN].decode("utf-8", errors="backslashreplace"))


def _described(verb: str, what: Any, response: Any) -> str:
    body = _body(response)
    return f"HTTP {response.status_code} for {verb} {what}: {body or response.reason_phrase}"
