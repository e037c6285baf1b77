"""The checker's raw stdio driver: spawn an implementation, write and read newline-delimited frames
with timeouts, and record every frame both ways (the transcript the reports quote).

It is deliberately not acp_runtime: the checker must see the bytes as they came, including the
ones a runtime would refuse, and must be able to write what no well-behaved peer writes (a line in
two pieces, a huge line, EOF in the middle of a turn).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from typing import Any

from .link import Link, SpawnError, refused

READ_CHUNK = 1 << 16
STDERR_KEPT = 1 << 14
MAX_LINE = 16 << 20  # the longest line (frame) the checker reads


class Wire(Link):
    """One peer over byte streams: a spawned process (its stdin and stdout), or a stream pair
    (a client connecting to the checker through relay.py)."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        process: asyncio.subprocess.Process | None,
        argv: list[str],
    ) -> None:
        super().__init__()
        self.reader = reader
        self.writer = writer
        self.process = process
        self.argv = argv
        self._stderr = bytearray()
        self._tasks = [asyncio.create_task(self._read_stdout())]
        if process is not None and process.stderr is not None:
            self._tasks.append(asyncio.create_task(self._read_stderr(process.stderr)))

    @classmethod
    async def spawn(cls, argv: list[str], env: dict[str, str] | None = None) -> Wire:
        try:
            process = await asyncio.create_subprocess_exec(
                *argv,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=None if env is None else {**os.environ, **env},
                start_new_session=True,  # its own process group: stop() ends its children too
                limit=READ_CHUNK,
            )
        except OSError as exc:
            raise SpawnError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from exc
        assert process.stdout is not None and process.stdin is not None
        return cls(process.stdout, process.stdin, process, argv)

    async def _read_stdout(self) -> None:
        stream = self.reader
        pending = bytearray()
        while self.flood is None:
            try:
                chunk = await stream.read(READ_CHUNK)
            except OSError:  # ConnectionResetError, BrokenPipeError: the peer is gone
                chunk = b""
            if not chunk:
                break
            pending += chunk
            if b"\n" not in chunk:
                if len(pending) > MAX_LINE:
                    self.flooded(f"a line longer than {MAX_LINE >> 20} MiB")
                continue
            *lines, pending = pending.split(b"\n")
            for line in lines:
                self._arrived(bytes(line))
        if self.flood is not None:
            self.kill_group()
            with contextlib.suppress(OSError):  # read to EOF, keeping nothing: the pipe closes
                while await stream.read(READ_CHUNK):
                    pass
            return
        if pending:
            if not self.stdin_closed:  # a line cut short by an exit the checker caused: not one
                self._arrived(bytes(pending))
            else:
                self.transcript.add("received", bytes(pending))
        self._ended()

    async def _read_stderr(self, stream: asyncio.StreamReader) -> None:
        with contextlib.suppress(OSError):
            while chunk := await stream.read(READ_CHUNK):
                self._stderr += chunk
                del self._stderr[:-STDERR_KEPT]

    @property
    def stderr_tail(self) -> str:
        return self._stderr.decode("utf-8", errors="backslashreplace")

    async def write(self, data: bytes, pieces: int = 1, pause: float = 0.0) -> bool:
        """Write one frame's bytes, in `pieces` writes `pause` seconds apart; False when the pipe
        is closed (the implementation is gone)."""
        stdin = self.writer
        self.transcript.add("sent", data.rstrip(b"\n"))
        if stdin.is_closing():  # the peer is gone: asyncio would log each write it drops
            return False
        step = max(1, -(-len(data) // pieces))
        try:
            for start in range(0, len(data), step):
                stdin.write(data[start : start + step])
                await stdin.drain()
                if pause and start + step < len(data):
                    await asyncio.sleep(pause)
        except (BrokenPipeError, ConnectionResetError, RuntimeError):
            return False  # RuntimeError: the transport is already closed
        return True

    def close_stdin(self) -> None:
        self.stdin_closed = True
        if not self.writer.is_closing():
            self.writer.close()

    async def wait_exit(self, timeout: float) -> int | None:
        if self.process is None:
            return None
        try:
            return await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            return None

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """Signal the agent's process group (it was started in a session of its own): the
        agent and every process it started that did not leave the group."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.process.pid, sig)

    async def stop(self, grace: float = 1.0) -> None:
        """Close stdin, give the process `grace` seconds, then terminate, then kill it; then
        kill what is left of its process group (grandchildren)."""
        self.close_stdin()
        if self.process is not None and await self.wait_exit(grace) is None:
            self.kill_group(signal.SIGTERM)
            if await self.wait_exit(grace) is None:
                self.kill_group()
                await self.process.wait()
        self.kill_group()
        for task in self._tasks:
            with contextlib.suppress(Exception):  # a timeout; the reader ends on its own
                await asyncio.wait_for(task, grace)
            task.cancel()
        with contextlib.suppress(Exception):  # closed already, or the peer reset it
            await asyncio.wait_for(self.writer.wait_closed(), grace)


class WebSocketLink(Link):
    """A remote agent over WebSocket (`--url ws://...`): one ACP message per text frame. Needs
    the `websockets` package (the `http` extra)."""

    def __init__(self, socket: Any, url: str) -> None:
        super().__init__()
        self.socket = socket
        self.argv = [url]
        self._tasks = [asyncio.create_task(self._read())]

    @classmethod
    async def connect(
        cls, url: str, timeout: float, headers: dict[str, str] | None = None
    ) -> WebSocketLink:
        try:
            from websockets.asyncio.client import connect
            from websockets.exceptions import InvalidStatus
        except ImportError as exc:
            raise SpawnError(
                f"--url needs the websockets package ({exc.name} is not installed): install the"
                " http extra, pip install -e '.[http]' in the acpgen clone"
            ) from exc
        try:
            socket = await connect(
                url,
                open_timeout=timeout,
                max_size=MAX_LINE,
                compression=None,
                additional_headers=headers or None,
            )
        except InvalidStatus as exc:
            status = exc.response.status_code
            body = exc.response.body[:300].decode("utf-8", errors="backslashreplace")
            if status in (401, 403):
                raise refused(url, f"HTTP {status} {body}".rstrip()) from exc
            raise SpawnError(f"cannot connect to {url}: HTTP {status} {body}".rstrip()) from exc
        except Exception as exc:  # OSError, a timeout, websockets' handshake errors
            raise SpawnError(f"cannot connect to {url}: {exc}") from exc
        return cls(socket, url)

    async def _read(self) -> None:
        try:
            async for message in self.socket:
                data = message.encode("utf-8") if isinstance(message, str) else bytes(message)
                self._arrived(data)
                if self.flood is not None:
                    break
        except Exception as exc:  # closed abnormally: the end, as for a clean close
            if "1009" in str(exc):  # the frame passed max_size
                self.flooded(f"a frame longer than {MAX_LINE >> 20} MiB")
        self._ended()

    async def write(self, data: bytes, pieces: int = 1, pause: float = 0.0) -> bool:
        frame = data.rstrip(b"\n")
        self.transcript.add("sent", frame)
        try:
            await self.socket.send(frame.decode("utf-8"))
        except Exception:  # closed: the agent is gone
            return False
        return True

    def close_stdin(self) -> None:
        self.stdin_closed = True

    async def stop(self, grace: float = 1.0) -> None:
        self.stdin_closed = True
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.socket.close(), grace)
        for task in self._tasks:
            task.cancel()


async def remote_link(url: str, timeout: float, headers: dict[str, str] | None = None) -> Link:
    """A connection to the agent at `url`: Streamable HTTP for http(s)://, else WebSocket;
    `headers` go with every request (the handshake, for WebSocket)."""
    if url.split("://", 1)[0].lower() in ("http", "https"):
        from .http_link import HttpLink

        return await HttpLink.connect(url, timeout, headers)
    return await WebSocketLink.connect(url, timeout, headers)
