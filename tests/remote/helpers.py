"""Servers and peers for the remote transport tests (loopback only)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from typing import Any, AsyncIterator

from acp_runtime.http import AcpApp, serve


def listening_socket() -> socket.socket:
    """A TCP socket listening on a free loopback port (connections queue until the server runs)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(128)
    return sock


@contextlib.asynccontextmanager
async def served(app: AcpApp) -> AsyncIterator[str]:
    """Serve `app` with Hypercorn in this event loop; yields its base URL `http://127.0.0.1:PORT`."""
    sock = listening_socket()
    stop = asyncio.Event()
    task = asyncio.create_task(serve(app, sock, shutdown=stop))
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        await task
        sock.close()


def ws(url: str) -> str:
    return "ws" + url[4:]


class Stream:
    """One SSE GET stream read in the background; `await next()` gives each event's message."""

    def __init__(self, client: Any, url: str, headers: dict[str, str]) -> None:
        self.events: asyncio.Queue[Any] = asyncio.Queue()
        self.status: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._task = asyncio.create_task(self._read(client, url, headers))

    async def _read(self, client: Any, url: str, headers: dict[str, str]) -> None:
        from acp_runtime.http.streamable import EventParser

        try:
            async with client.stream(
                "GET", url, headers={"accept": "text/event-stream", **headers}
            ) as response:
                self.status.set_result(response.status_code)
                parser = EventParser(1 << 30)
                async for chunk in response.aiter_bytes():
                    for event in parser.feed(chunk):
                        self.events.put_nowait(json.loads(event))
        finally:
            if not self.status.done():
                self.status.set_result(0)
            self.events.put_nowait(None)

    async def next(self) -> Any:
        return await asyncio.wait_for(self.events.get(), 10)

    async def close(self) -> None:
        self._task.cancel()
        with contextlib.suppress(BaseException):
            await self._task


class RawClient:
    """Speaks the RFD by hand over HTTP/2 (h2c), to check the wire: headers, statuses, streams."""

    def __init__(self, base: str, http2: bool = True) -> None:
        import httpx

        self.url = base + "/acp"
        self.http = httpx.AsyncClient(
            http1=not http2, http2=http2, timeout=httpx.Timeout(10, read=None)
        )
        self.connection_id: str | None = None
        self.streams: list[Stream] = []
        self.clients: list[Any] = []
        self.http2 = http2

    def ids(self, session: str | None = None) -> dict[str, str]:
        headers = {"acp-connection-id": self.connection_id} if self.connection_id else {}
        if session is not None:
            headers["acp-session-id"] = session
        return headers

    async def post(self, message: Any, session: str | None = None, **headers: str) -> Any:
        body = message if isinstance(message, bytes) else json.dumps(message).encode()
        sent = {"content-type": "application/json", **self.ids(session), **headers}
        return await self.http.post(self.url, content=body, headers=sent)

    async def initialize(self) -> Any:
        response = await self.post(INIT)
        assert response.status_code == 200, response.text
        self.connection_id = response.headers["acp-connection-id"]
        return response

    async def open(self, session: str | None = None) -> Stream:
        # One HTTP/2 connection per stream: httpcore 1.0.9 lets a second idle streaming response
        # on one connection block other requests' answers (see connect_agent).
        import httpx

        http = httpx.AsyncClient(
            http1=not self.http2, http2=self.http2, timeout=httpx.Timeout(10, read=None)
        )
        self.clients.append(http)
        stream = Stream(http, self.url, self.ids(session))
        self.streams.append(stream)
        assert await stream.status == 200
        return stream

    async def aclose(self) -> None:
        for stream in self.streams:
            await stream.close()
        for http in (self.http, *self.clients):
            await http.aclose()


INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {}},
}


def request(request_id: Any, method: str, params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def prompt(request_id: Any, session: str, text: str) -> dict[str, Any]:
    return request(
        request_id,
        "session/prompt",
        {"sessionId": session, "prompt": [{"type": "text", "text": text}]},
    )


def chunk_text(message: Any) -> str:
    return message["params"]["update"]["content"]["text"]


class ServerProcess:
    """A server in a process of its own, on a loopback port this process picked and hands over as
    an inherited listening socket. By default `peers/serve.py NAME ARGS`; `command` is any other
    server, with "{fd}" standing for the socket's descriptor. It prints "ready" when it serves."""

    def __init__(self, name: str, *args: str, command: list[str] | None = None) -> None:
        import sys
        from pathlib import Path

        script = Path(__file__).parent / "peers" / "serve.py"
        self.command = command or [sys.executable, str(script), "{fd}", name, *args]
        self.sock = listening_socket()
        self.port = self.sock.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}"
        self.url = self.base + "/acp"
        self.process: Any = None

    async def start(self) -> "ServerProcess":
        fd = self.sock.fileno()
        argv = [part.replace("{fd}", str(fd)) for part in self.command]
        self.process = await asyncio.create_subprocess_exec(
            *argv, pass_fds=(fd,), stdout=asyncio.subprocess.PIPE
        )
        assert await self.process.stdout.readline() == b"ready\n"
        self.sock.close()  # the server holds it now; once it dies, the port refuses connections
        return self

    async def kill(self) -> None:
        if self.process is not None and self.process.returncode is None:
            self.process.kill()
        if self.process is not None:
            await self.process.wait()

    async def stop(self) -> None:
        await self.kill()
        self.sock.close()
