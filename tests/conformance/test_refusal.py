"""`refused` (refusal.py) itself: what it lets pass and what it fails, and with which words."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from acp_runtime import CapabilityError, ProtocolError

from .refusal import refused
from .sides import raw_agent

pytest_plugins = ("tests.runtime.aio",)


async def test_a_local_refusal_passes_and_is_returned(acp_v1: Any) -> None:
    conn, peer = await raw_agent(acp_v1)
    error = await refused(peer, conn.request("rpc.discover", {}), ProtocolError, "reserved")
    assert isinstance(error, ProtocolError) and "reserved" in str(error)


async def test_a_request_that_goes_out_fails_at_once_quoting_it(acp_v1: Any) -> None:
    conn, peer = await raw_agent(acp_v1)
    start = asyncio.get_running_loop().time()
    with pytest.raises(AssertionError, match="sent although it must be refused: .*'_ext/call'"):
        await refused(peer, conn.request("_ext/call", {"n": 1}), ProtocolError)
    # not after the connection's own 5 s wait for an answer, which would read as a timeout
    assert asyncio.get_running_loop().time() - start < 4.0


async def test_a_notification_that_goes_out_fails_quoting_it(acp_v1: Any) -> None:
    conn, peer = await raw_agent(acp_v1)
    with pytest.raises(AssertionError, match="sent although it must be refused: .*'_ext/note'"):
        await refused(peer, conn.notify("_ext/note", {"n": 1}), ProtocolError)


async def test_the_behaviour_words_replace_the_default(acp_v1: Any) -> None:
    conn, peer = await raw_agent(acp_v1)
    with pytest.raises(AssertionError, match="relative path sent: "):
        await refused(peer, conn.notify("_ext/note", {}), ProtocolError, what="relative path sent")


async def test_another_error_or_message_fails_naming_both(acp_v1: Any) -> None:
    conn, peer = await raw_agent(acp_v1)
    with pytest.raises(
        AssertionError, match="refused with ProtocolError.*expected CapabilityError"
    ):
        await refused(peer, conn.request("rpc.discover", {}), CapabilityError)
    with pytest.raises(AssertionError, match="expected ProtocolError matching 'absolute'"):
        await refused(peer, conn.request("rpc.discover", {}), ProtocolError, "absolute")


async def test_a_call_that_neither_raises_nor_sends_fails(acp_v1: Any) -> None:
    conn, peer = await raw_agent(acp_v1)
    with pytest.raises(AssertionError, match="not refused: the call returned 'done'"):
        await refused(peer, asyncio.sleep(0, "done"), ProtocolError)
