"""Runs `async def` tests with asyncio.run (no plugin needed); see tests/runtime/aio.py."""

from tests.runtime.aio import pytest_pyfunc_call  # noqa: F401
