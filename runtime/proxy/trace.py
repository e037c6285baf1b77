"""`--trace FILE`: every message of every hop, as JSON lines.

Each line is `{"time": SECONDS, "hop": HOP, "direction": "in" | "out", "message": MESSAGE}`:
`time` is the Unix time, `hop` the connection ("client", "proxy 1", ..., "agent"; "parent" when
the conductor is itself a proxy), `direction` "in" for what the conductor received on that hop
and "out" for what it sent, `message` the JSON-RPC message as it crossed the wire (a line that
was not JSON is written as a string).
"""

from __future__ import annotations

import time
from typing import BinaryIO

import msgspec

_encode = msgspec.json.Encoder().encode


class Trace:
    def __init__(self, file: BinaryIO) -> None:
        self._file = file

    def write(self, hop: str, direction: str, line: bytes, is_json: bool = True) -> None:
        body: msgspec.Raw | str = msgspec.Raw(line) if is_json else line.decode("utf-8", "replace")
        entry = {"time": time.time(), "hop": hop, "direction": direction, "message": body}
        self._file.write(_encode(entry) + b"\n")

    def close(self) -> None:
        self._file.close()
