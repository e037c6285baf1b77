"""The runtime's layers (issues 21, 35): each layer's folder (`jsonrpc/`, then `protocol/`) reaches
nothing above it, so the JSON-RPC engine reaches no module of the ACP layer; and a transport hands
the engine whole messages (HTTP bodies and WebSocket frames are never re-split into lines)."""

from __future__ import annotations

import ast
import asyncio
from pathlib import Path

import pytest

from acp_runtime.jsonrpc.framing import OversizedLine
from acp_runtime.jsonrpc.transport import MessageTransport

RUNTIME = Path(__file__).resolve().parents[2] / "runtime"
# lowest first: each layer's modules import only from their own layer and those below it
LAYERS = ("jsonrpc", "protocol")


def _reached(path: Path) -> set[str]:
    """The runtime packages and top-level modules `path` imports, as `acp_runtime`'s children
    (every import statement: under TYPE_CHECKING and in functions too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level >= 1:
            parts = path.relative_to(RUNTIME).parent.parts[: max(0, 2 - node.level)]
            names = [node.module] if node.module else [alias.name for alias in node.names]
            found.update((*parts, *name.split("."))[0] for name in names)
    return found


@pytest.mark.parametrize("layer", LAYERS)
def test_a_layer_reaches_nothing_above_it(layer: str) -> None:
    allowed = set(LAYERS[: LAYERS.index(layer) + 1])
    for path in sorted((RUNTIME / layer).glob("*.py")):
        above = _reached(path) - allowed
        assert not above, f"{path.relative_to(RUNTIME)} reaches {sorted(above)}"


def test_the_check_sees_an_import_from_above(tmp_path: Path) -> None:
    assert "protocol" in _reached(RUNTIME / "protocol" / "policy.py")
    assert _reached(RUNTIME / "jsonrpc" / "engine.py") <= {"jsonrpc"}
    assert "protocol" in _reached(RUNTIME / "stdio.py")


async def test_a_message_transport_hands_over_each_message_whole() -> None:
    sent: list[bytes] = []
    closed: list[bool] = []
    transport = MessageTransport(sent.append, lambda: closed.append(True), max_message_bytes=64)
    pretty = b'{\n  "jsonrpc": "2.0",\n  "method": "_x",\n  "params": {}\n}'
    transport.feed(pretty)
    transport.feed(b'{"jsonrpc":"2.0","method":"_y","params":{"a":"' + b"z" * 100 + b'"}}')
    received: list[bytes | OversizedLine] = []
    ends: list[BaseException | None] = []
    transport.start(received.extend, ends.append)
    await asyncio.sleep(0)
    assert received[0] == pretty  # whole: its newlines stay inside
    big = b'{"jsonrpc":"2.0","method":"_y","params":{"a":"' + b"z" * 100 + b'"}}'
    assert received[1] == OversizedLine(len(big), big)  # over the limit: its size and head
    transport.send_nowait(b"{}")
    assert sent == [b"{}"]
    transport.close()
    transport.close()
    assert closed == [True]
    with pytest.raises(ConnectionResetError):
        transport.send_nowait(b"{}")
    transport.feed_eof()
    assert ends == []  # closed: the end of input is handed on no more
