"""The hooks through which a protocol rides on the JSON-RPC engine (`Policy`), and the engine's
ordered inbox of notifications and answers, and its observed transport."""

from __future__ import annotations

import asyncio
from collections import deque
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Container

if TYPE_CHECKING:
    from .package import ErrorResponseMessage, NotificationMessage, ResponseMessage
    from .transport import Transport


Step = Callable[[Any], Any]


class Policy:
    """The hooks through which a protocol's rules and handlers ride on the engine, given to it by
    its owner (`acp_runtime.protocol.policy` for ACP's). This one applies no rule and serves
    nothing: values are only checked against the package's types."""

    # the methods whose results `on_result` reads (None: all); any other result is given as it is
    results_read: Container[str] | None = None
    # the methods of requests `received_request` acts on (None: all); it is not called for others
    requests_watched: Container[str] | None = None
    # the methods of calls `sent` acts on (None: all); it is not called for others
    sends_watched: Container[str] | None = None

    def before_send(self, method: str, params: Any) -> Any:
        """An outgoing call or notification: raise to refuse it; returns the params to send."""
        return params

    def sent(self, method: str, params: Any) -> None:
        """An outgoing call or notification went out."""

    def received_request(self, method: str, params: Any) -> None:
        """A request arrived (its handler starts next)."""

    def received_notification(self, method: str, params: Any) -> bool:
        """A notification arrived; False: drop it."""
        return True

    def notification_step(self, method: str) -> tuple[Step | None, Step | None]:
        """What the worker does with notifications of `method`, asked once per method and kept:
        a step before the handler, and the handler itself, each a function of the params (None:
        no step; no handler function, so the worker awaits `handle(message)`)."""
        return None, None

    def handle(self, message: NotificationMessage) -> Awaitable[Any]:
        """The handler's awaitable for a notification."""
        raise NotImplementedError

    def serve(self, request: Any) -> Awaitable[Any]:
        """The handler's answer to a request, checked: raise to refuse it."""
        raise NotImplementedError

    def on_result(self, method: str, params: Any, result: Any) -> Any:
        """The peer's result for one of our calls, checked; returns what the call gives."""
        return result


EOF: Any = object()  # the end of the inbox: the peer's output ended


class Answer:
    """An answer that arrived after notifications still to be handled: it waits its turn."""

    __slots__ = ("response",)

    def __init__(self, response: ResponseMessage | ErrorResponseMessage) -> None:
        self.response = response


class Inbox:
    """The received notifications and answers (`Answer`), in arrival order, for the one worker
    task that handles them (an `asyncio.Queue` without its bookkeeping: a deque, and a wake-up
    future only while the worker waits)."""

    __slots__ = ("items", "waiter")

    def __init__(self) -> None:
        self.items: deque[Any] = deque()
        self.waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: Any) -> None:
        self.items.append(item)
        if self.waiter is not None:
            self.wake()

    def wake(self) -> None:
        waiter, self.waiter = self.waiter, None  # once: the items after it find none to wake
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def get(self) -> Any:
        while not self.items:
            self.waiter = asyncio.get_running_loop().create_future()
            try:
                await self.waiter
            finally:
                self.waiter = None
        return self.items.popleft()


class ObservedTransport:
    """The connection's transport, showing each outgoing message to `show` first."""

    def __init__(self, transport: Transport, show: Callable[[bytes], None]) -> None:
        self._transport = transport
        self._show = show
        self.start = transport.start
        self.close = transport.close
        self.pause_reading = transport.pause_reading
        self.resume_reading = transport.resume_reading

    def send_nowait(self, message: bytes) -> None:
        self._show(message)
        self._transport.send_nowait(message)

    async def send(self, message: bytes) -> None:
        self._show(message)
        await self._transport.send(message)
