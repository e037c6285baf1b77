"""A tiny replacement for pytest-asyncio: each `async def` test runs in its own event loop, under a
time limit, so a hang fails the test instead of the suite."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import pytest

TEST_TIMEOUT = 30.0


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: Any) -> bool | None:
    fn = pyfuncitem.obj
    if not inspect.iscoroutinefunction(fn):
        return None
    kwargs = {name: pyfuncitem.funcargs[name] for name in pyfuncitem._fixtureinfo.argnames}
    limit = getattr(fn, "timeout", TEST_TIMEOUT)

    async def run() -> None:
        await asyncio.wait_for(fn(**kwargs), limit)

    asyncio.run(run())
    return True
