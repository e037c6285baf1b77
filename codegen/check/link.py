"""What the checks need of a connection to the implementation, whatever carries it: `Link` (write
a frame, receive the next one), the `Transcript` of every frame both ways, and the errors a link
raises (`Closed`, `SpawnError`). `wire.py` (stdio, WebSocket) and `http_link.py` (Streamable HTTP)
implement it.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Callable

SHOWN = 600  # characters of a frame a transcript keeps
FRAMES_KEPT = 20_000  # frames one connection may send before the checker stops reading it
BYTES_KEPT = 32 << 20  # bytes one connection may send before the checker stops reading it


@dataclass(frozen=True)
class Frame:
    """One line on the wire: `sent` by the checker or `received` from the implementation; or
    `http`: a request of the Streamable HTTP transport the server refused (http_link.py)."""

    direction: str
    at: float
    text: str
    size: int

    def show(self) -> str:
        arrow = {"sent": "->", "received": "<-"}.get(self.direction, "<!")
        return f"{arrow} {self.text}"


def _shown(data: bytes) -> str:
    text = data.decode("utf-8", errors="backslashreplace")
    if len(text) > SHOWN:
        return f"{text[:SHOWN]}... ({len(data)} bytes)"
    return text


@dataclass
class Transcript:
    frames: list[Frame] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)

    def add(self, direction: str, data: bytes) -> Frame:
        frame = Frame(direction, time.monotonic() - self.started, _shown(data), len(data))
        self.frames.append(frame)
        return frame


class Closed(Exception):
    """The implementation closed its stdout (it exited, or will)."""


class Link:
    """What the checks need of a connection: `write` a frame, `receive` the next one, a
    transcript; `Wire` (a process or a stream pair), `WebSocketLink` and `HttpLink` (--url).
    `ordered`: the frames arrive in the order the implementation wrote them (False over Streamable
    HTTP, whose streams are read at once)."""

    ordered = True

    def __init__(self) -> None:
        self.transcript = Transcript()
        self._lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        self.stdin_closed = False
        self._tasks: list[asyncio.Task[None]] = []
        # told when the transport itself refused to carry a request (HTTP: its POST's status):
        # the request id and what the refusal said
        self.on_refused: Callable[[Any, str], None] | None = None
        # the transport refused the connection itself (HTTP 401 or 403): what it said
        self.refusal: str | None = None
        self.flood: str | None = None  # why the checker stopped reading (a bound was passed)
        self._frames_in = 0
        self._bytes_in = 0

    @property
    def stderr_tail(self) -> str:
        return ""

    def _arrived(self, frame: bytes) -> None:
        if self.flood is not None:
            return
        self._frames_in += 1
        self._bytes_in += len(frame)
        if self._frames_in > FRAMES_KEPT or self._bytes_in > BYTES_KEPT:
            self.flooded(
                f"more than {FRAMES_KEPT} frames or {BYTES_KEPT >> 20} MiB on one connection"
                f" ({self._frames_in} frames, {self._bytes_in} bytes when the checker stopped)"
            )
            return
        self.transcript.add("received", frame)
        self._lines.put_nowait(frame)

    def flooded(self, why: str) -> None:
        """A bound was passed: keep nothing more, and end the connection (the drivers stop
        reading when `flood` is set)."""
        if self.flood is None:
            self.flood = why
            self.transcript.add("http", f"the checker stopped reading: {why}".encode())
            self._ended()

    def _ended(self) -> None:
        self._lines.put_nowait(None)

    async def write(self, data: bytes, pieces: int = 1, pause: float = 0.0) -> bool:
        raise NotImplementedError

    async def receive(self, timeout: float) -> bytes | None:
        """The next frame (a line, without its newline), None on timeout; Closed at the end."""
        if self.flood is not None:  # what is still queued is dropped: nothing more is read
            raise Closed
        try:
            line = await asyncio.wait_for(self._lines.get(), timeout)
        except TimeoutError:
            return None
        if line is None:
            self._lines.put_nowait(None)  # every later receive sees the end too
            raise Closed
        return line

    def close_stdin(self) -> None:
        raise NotImplementedError

    async def wait_exit(self, timeout: float) -> int | None:
        return None

    async def stop(self, grace: float = 1.0) -> None:
        raise NotImplementedError


class SpawnError(Exception):
    """The command could not be started (not found, not executable), or the remote agent could
    not be reached or refused the connection."""


def refused(url: str, said: str) -> SpawnError:
    """The one error both remote transports give for a refused connection (exit 2)."""
    return SpawnError(
        f"{url}: the server refused the connection ({said}); give credentials with --token"
        " TOKEN or --header NAME:VALUE"
    )
