"""How an `AcpApp`'s answers leave over Hypercorn's HTTP/2 (`serve.py` installs this on each
HTTP/2 connection whose application is an `AcpApp`; other applications keep Hypercorn's ways).

Hypercorn 0.18 sends every answer through a task of its own: a response's head goes out at once,
in a write of its own, and each piece of its body, and its end, is put in a buffer that the
connection's sending task takes, a loop turn later, for a write of its own. A `202` to a POST
thus cost two writes (HEADERS, then an empty DATA frame ending the stream) and two wake-ups of
that task, and each SSE event one more of each; the client read each write on its own. Here,
per stream, while nothing of it waits in Hypercorn's buffer:

- a response's head is held until the app's next message: a body that ends at once goes out
  with it, a `202` being one HEADERS frame that ends the stream (one write); a head with no
  message after it within the loop turn goes out on its own then (an SSE stream's head);
- a piece of body that fits the stream's flow-control window is handed to h2 (in frames of the
  peer's frame size) and written at once, in the app's own task;
- the end of a body is handed to h2 at once, and the stream is done with (its buffer and its
  place in the priority tree go, as the sending task would drop them); it is written a loop turn
  later (`_flush_soon`), after the tasks that were ready before it: a POST's handler answering at
  once (a `ping` prompt) sends its answer on the SSE stream in that turn, and the `202` and the
  answer reach the client in one write, one wake-up of the client instead of two.

Anything else (a piece larger than the window, trailers, server push) takes Hypercorn's own path,
and once a stream took it, every later message of that stream does: the sending task may then be
working on the stream, and the two paths must not both end it.
"""

from __future__ import annotations

import asyncio
from typing import Any, Coroutine

import h2.exceptions
from hypercorn.protocol import h2 as h2_protocol
from hypercorn.protocol.events import Body, Data, EndBody, EndData, Response, StreamClosed

_QUICK = (Body, Data)
_ENDS = (EndBody, EndData)
_GONE = (KeyError, h2.exceptions.ProtocolError)  # priority's MissingStreamError is a KeyError


def install(protocol: h2_protocol.H2Protocol) -> None:
    """Send the answers of `protocol`'s streams as the module says (instance attributes: other
    connections keep Hypercorn's methods)."""
    state = _State(protocol)
    attributes: Any = protocol.__dict__
    attributes["stream_send"] = state.stream_send


class _State:
    """The held heads and the streams that took Hypercorn's own path, of one connection."""

    __slots__ = ("protocol", "original", "held", "slow", "sending", "flush_due")

    def __init__(self, protocol: h2_protocol.H2Protocol) -> None:
        self.protocol = protocol
        self.original = protocol.stream_send
        self.held: dict[int, list[tuple[bytes, bytes]]] = {}
        self.slow: set[int] = set()
        self.sending: set[asyncio.Task[None]] = set()  # writes of ours to come (kept alive)
        self.flush_due = False  # a `_flush_soon` task is made and has not started

    async def stream_send(self, event: Any) -> None:
        protocol = self.protocol
        stream_id: int = getattr(event, "stream_id", 0)
        if stream_id in self.slow:
            await self._slow(event)
            return
        if type(event) is Response:
            self.held[stream_id] = [
                (b":status", b"%d" % event.status_code),
                *event.headers,
                *protocol.config.response_headers("h2"),
            ]
            asyncio.get_running_loop().call_soon(self._release, stream_id)
            return
        head = self.held.pop(stream_id, None)
        connection = protocol.connection
        try:
            if isinstance(event, _QUICK):
                buffer = protocol.stream_buffers[stream_id]
                data = event.data
                if not buffer.buffer and len(data) <= connection.local_flow_control_window(
                    stream_id
                ):
                    if head is not None:
                        connection.send_headers(stream_id, head)
                    size = connection.max_outbound_frame_size
                    for start in range(0, len(data), size):
                        connection.send_data(stream_id, data[start : start + size])
                    await protocol._flush()
                    return
            elif isinstance(event, _ENDS):
                buffer = protocol.stream_buffers[stream_id]
                if not buffer.buffer:
                    if head is not None:
                        connection.send_headers(stream_id, head, end_stream=True)
                    else:
                        connection.end_stream(stream_id)
                    self._drop(stream_id)
                    self._flush_soon()
                    return
        except _GONE:  # the stream or the connection closed: as Hypercorn's sending task does
            self._drop(stream_id)
            return
        if head is not None:
            try:
                connection.send_headers(stream_id, head)
            except _GONE:
                return
            await protocol._flush()
        await self._slow(event)

    async def _slow(self, event: Any) -> None:
        """Hypercorn's own path, for this stream from now on."""
        stream_id = getattr(event, "stream_id", None)
        if isinstance(event, StreamClosed):
            self.slow.discard(event.stream_id)
        elif stream_id is not None:
            self.slow.add(stream_id)
        await self.original(event)

    def _drop(self, stream_id: int) -> None:
        """The stream is ended (or gone): forget its buffer and its place in the priority tree,
        as Hypercorn's sending task does once it ended a stream."""
        protocol = self.protocol
        protocol.stream_buffers.pop(stream_id, None)
        try:
            protocol.priority.remove_stream(stream_id)
        except KeyError:  # priority's MissingStreamError
            pass

    def _flush_soon(self) -> None:
        """Write what h2 holds a loop turn from now, in a task made now: tasks made before it
        (the request's handler, fed by this very POST) take their turn first, and an answer
        they send at once goes out in the same write as this stream's end."""
        if not self.flush_due:
            self.flush_due = True
            self._spawn(self._flush_now())

    async def _flush_now(self) -> None:
        self.flush_due = False  # what comes from now on needs a write of its own
        await self.protocol._flush()

    def _spawn(self, work: Coroutine[Any, Any, None]) -> None:
        task = asyncio.get_running_loop().create_task(work)
        self.sending.add(task)
        task.add_done_callback(self.sending.discard)

    def _release(self, stream_id: int) -> None:
        """A loop turn after a head was held: send it if no message of the stream took it."""
        if stream_id in self.held:
            self._spawn(self._send_held(stream_id))

    async def _send_held(self, stream_id: int) -> None:
        head = self.held.pop(stream_id, None)
        if head is None:
            return
        try:
            self.protocol.connection.send_headers(stream_id, head)
        except _GONE:
            return
        await self.protocol._flush()
