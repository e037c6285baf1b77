"""The runtime's layers (issue 21): the JSON-RPC engine reaches no module of the ACP layer, and a
transport hands the engine whole messages (HTTP bodies and WebSocket frames are never re-split
into lines)."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

from acp_runtime.framing import OversizedLine
from acp_runtime.transport import MessageTransport

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"
ACP_LAYER = {"rules", "policy", "turns", "plan", "negotiation", "connection", "agent", "client"}


def _imports(module: str) -> set[str]:
    """The runtime modules `module` imports (every import statement: under TYPE_CHECKING and in
    functions too)."""
    tree = ast.parse((RUNTIME / f"{module}.py").read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
    return {name for name in found if (RUNTIME / f"{name}.py").exists()}


def test_the_engine_reaches_no_module_of_the_acp_layer() -> None:
    seen: set[str] = set()
    todo = ["engine"]
    while todo:
        module = todo.pop()
        if module not in seen:
            seen.add(module)
            todo.extend(_imports(module))
    assert not seen & ACP_LAYER, f"engine.py reaches {sorted(seen & ACP_LAYER)}"
    assert "transport" in seen and "jsonrpc" in seen


async def test_a_message_transport_hands_over_each_message_whole() -> None:
    sent: list[bytes] = []
    closed: list[bool] = []
    transport = MessageTransport(sent.append, lambda: closed.append(True), max_message_bytes=64)
    pretty = b'{\n  "jsonrpc": "2.0",\n  "method": "_x",\n  "params": {}\n}'
    transport.feed(pretty)
    transport.feed(b'{"jsonrpc":"2.0","method":"_y","params":{"a":"' + b"z" * 100 + b'"}}')
    received = await transport.receive()
    assert received is not None and received[0] == pretty  # whole: its newlines stay inside
    big = b'{"jsonrpc":"2.0","method":"_y","params":{"a":"' + b"z" * 100 + b'"}}'
    assert received[1] == OversizedLine(len(big), big)  # over the limit: its size and head
    transport.send_nowait(b"{}")
    assert sent == [b"{}"]
    transport.close()
    transport.close()
    assert closed == [True]
    with pytest.raises(ConnectionResetError):
        transport.send_nowait(b"{}")
    waiting = asyncio.ensure_future(transport.receive())
    await asyncio.sleep(0)
    transport.feed_eof()
    assert await waiting is None
