"""Waits with a short bound that fail as assertions naming what did not happen, so a break reads
as "turn not cancelled", not as the 30-second limit of the whole test (aio.py)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable
from typing import TypeVar

T = TypeVar("T")

BOUND = 3.0
"""Seconds: far above what any of these waits takes, far below the test's own limit."""


async def within(awaitable: Awaitable[T], what: str, seconds: float = BOUND) -> T:
    """The result of `awaitable`, or an AssertionError saying `what` did not happen in time.

    The awaitable's own exceptions (a TimeoutError among them) pass through unchanged."""
    task = asyncio.ensure_future(awaitable)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if not done:
        task.cancel()
        raise AssertionError(f"{what} (nothing within {seconds} s)")
    return task.result()
