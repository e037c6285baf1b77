"""Run a coroutine now, from synchronous code: `start(coro)` steps it at once and returns None
when it finished without waiting, or, when it had to wait (a server's flow control), a task that
runs the rest of it.

The server's outbound streams use it to hand a message to the ASGI `send` within the engine's
own write, instead of waking a task per message to do it (`connections.Mailbox`): an ASGI server
such as Hypercorn writes to the socket inside `send` and waits only under back-pressure.
"""

from __future__ import annotations

import asyncio
from typing import Any, Coroutine, Generator


class _Rest:
    """The rest of a coroutine that suspended on `pending` while stepped by hand, awaitable:
    what the task running it sends in (or throws in) goes on to the coroutine."""

    __slots__ = ("_coro", "_pending")

    def __init__(self, coro: Coroutine[Any, Any, None], pending: Any) -> None:
        self._coro = coro
        self._pending = pending

    def __await__(self) -> Generator[Any, Any, None]:
        coro, pending = self._coro, self._pending
        while True:
            try:
                value = yield pending
            except BaseException as exc:  # cancelled, or the awaited future failed
                try:
                    pending = coro.throw(exc)
                except StopIteration:
                    return
            else:
                try:
                    pending = coro.send(value)
                except StopIteration:
                    return


async def _finish(rest: _Rest) -> None:
    await rest


def start(coro: Coroutine[Any, Any, None]) -> asyncio.Task[None] | None:
    """Step `coro` now: None if it ran to its end (its exception, if any, is raised here), else
    the task that finishes it. Call it from code running in the event loop's thread."""
    try:
        pending = coro.send(None)
    except StopIteration:
        return None
    return asyncio.get_running_loop().create_task(_finish(_Rest(coro, pending)))
