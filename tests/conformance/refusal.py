"""`refused`: a call the connection under test must refuse locally, raced against its raw peer.

A request the runtime should refuse but sends instead would wait for an answer the raw peer never
gives, so the break would read as a timeout. Here the call runs beside the peer's `recv()`: a
message that reaches the peer first fails the test at once, quoting it; a refusal passes as soon
as it is raised, and a probe then shows nothing was written behind it.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any, Awaitable

from tests.runtime.helpers import RawPeer

# Seconds a refusal may take before the test calls it hung: a guard, not a claim about speed.
# A refusal is raised before anything is written; a call that goes out arrives at once.
REFUSED_WITHIN = 10.0
# How long a call that returned without refusing is given to show what it wrote, so the failure
# can quote it (a notification returns once written; the peer reads it on a later loop turn).
SETTLE = 1.0


async def refused(
    peer: RawPeer,
    call: Awaitable[Any],
    error: type[BaseException] | tuple[type[BaseException], ...],
    match: str = "",
    *,
    what: str = "sent although it must be refused",
) -> BaseException:
    """Await `call`, which must raise `error` (its message matching the regex `match`) without
    writing anything to `peer`; the error. A message the peer receives first fails with
    "`what`: {message}", naming the behaviour instead of waiting for a timeout."""
    attempt = asyncio.ensure_future(call)
    arrival = asyncio.ensure_future(peer.recv(timeout=REFUSED_WITHIN))
    try:
        await asyncio.wait(
            {attempt, arrival}, timeout=REFUSED_WITHIN, return_when=asyncio.FIRST_COMPLETED
        )
        if attempt.done() and not arrival.done() and attempt.exception() is None:
            await asyncio.wait({arrival}, timeout=SETTLE)
        if arrival.done() and arrival.exception() is None:
            raise AssertionError(f"{what}: {arrival.result()}")
        assert attempt.done(), f"neither refused nor sent within {REFUSED_WITHIN:.0f} s"
        raised = attempt.exception()
        assert raised is not None, f"not refused: the call returned {attempt.result()!r}"
        assert isinstance(raised, error) and re.search(match, str(raised)), (
            f"refused with {type(raised).__name__}: {raised}, expected {_names(error)} matching"
            f" {match!r}"
        )
    finally:
        for task in (attempt, arrival):
            task.cancel()
        await asyncio.gather(attempt, arrival, return_exceptions=True)
    await _nothing_behind(peer, what)
    return raised


def _names(error: type[BaseException] | tuple[type[BaseException], ...]) -> str:
    return " or ".join(e.__name__ for e in (error if isinstance(error, tuple) else (error,)))


async def _nothing_behind(peer: RawPeer, what: str) -> None:
    """The next message the peer gets is the answer to a probe sent now: nothing was written
    after the refusal either (a connection writes what a message makes it write before it reads
    the next)."""
    peer.send({"jsonrpc": "2.0", "id": "refusal-probe", "method": "_probe", "params": {}})
    message = await peer.recv(timeout=REFUSED_WITHIN)
    assert message.get("id") == "refusal-probe" and "method" not in message, f"{what}: {message}"
