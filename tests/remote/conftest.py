"""Runs `async def` tests with asyncio.run, like tests/runtime."""

from tests.runtime.aio import pytest_pyfunc_call  # noqa: F401
