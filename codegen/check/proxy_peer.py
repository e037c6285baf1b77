"""The checker's one connection to a proxy it checks: it is the proxy's conductor (what it sends
plain comes from the client's direction) and, through `proxy/successor`, the proxy's successor
(what it sends wrapped comes from the agent's direction). Every line the proxy writes is kept,
classified (not UTF-8, not a JSON-RPC message, a wrong `jsonrpc` member) and queued for the
scenario (proxy_mode.py) to take in order.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .client import EVIDENCE_FRAMES
from .frames import _key
from .link import Closed, Link

SUCCESSOR = "proxy/successor"  # the RFD's envelope method (the schema declares it, x-side proxy)
INITIALIZE_PROXY = "proxy/initialize"
CANCEL = "$/cancel_request"


@dataclass(frozen=True)
class Message:
    """One JSON-RPC message the proxy wrote, and where its line sits in the transcript."""

    index: int
    value: dict[str, Any]

    @property
    def method(self) -> str | None:
        method = self.value.get("method")
        return method if isinstance(method, str) else None

    @property
    def params(self) -> Any:
        return self.value.get("params")

    @property
    def is_request(self) -> bool:
        return self.method is not None and "id" in self.value

    @property
    def wrapped(self) -> tuple[str, Any] | None:
        """(method, params) of the message a `proxy/successor` envelope carries."""
        params = self.params
        if self.method != SUCCESSOR or not isinstance(params, dict):
            return None
        return str(params.get("method")), params.get("params")

    def answers(self, rid: Any) -> bool:
        return self.method is None and _key(self.value.get("id")) == _key(rid)


@dataclass
class Findings:
    """What is wrong with lines the proxy wrote, by kind: shown with the line."""

    not_utf8: list[str] = field(default_factory=list)
    not_message: list[str] = field(default_factory=list)
    bad_version: list[str] = field(default_factory=list)


class ProxyPeer:
    def __init__(self, wire: Link, timeout: float) -> None:
        self.wire = wire
        self.timeout = timeout
        self.messages: list[Message] = []
        self.findings = Findings()
        self.sent_ids: set[Any] = set()  # keys of the ids of the checker's requests
        self.closed = asyncio.Event()
        self._taken: set[int] = set()  # positions in `messages` the scenario has taken
        self._arrived = asyncio.Event()
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            try:
                line = await self.wire.receive(3600.0)
            except Closed:
                break
            if line is not None:
                self._classify(len(self.wire.transcript.frames) - 1, line)
                self._arrived.set()
        self.closed.set()
        self._arrived.set()

    def _classify(self, index: int, line: bytes) -> None:
        shown = line[:300].decode("utf-8", errors="backslashreplace")
        try:
            value = json.loads(line.decode("utf-8"))
        except UnicodeDecodeError:
            self.findings.not_utf8.append(shown)
            return
        except ValueError:
            self.findings.not_message.append(f"not JSON: {shown}")
            return
        if not isinstance(value, dict) or not ("method" in value or "id" in value):
            self.findings.not_message.append(f"not a JSON-RPC message: {shown}")
            return
        if value.get("jsonrpc") != "2.0":
            self.findings.bad_version.append(shown)
        self.messages.append(Message(index, value))

    async def send(self, message: dict[str, Any]) -> bool:
        if "id" in message and "method" in message:
            self.sent_ids.add(_key(message["id"]))
        data = json.dumps({"jsonrpc": "2.0", **message}, ensure_ascii=False)
        return await self.wire.write(data.encode("utf-8") + b"\n")

    async def next(
        self, wanted: Callable[[Message], bool], wait: float | None = None
    ) -> Message | None:
        """The first message not yet taken that `wanted` accepts, waiting at most `wait`
        seconds (--timeout when None) for it; None when none came."""
        deadline = time.monotonic() + (self.timeout if wait is None else wait)
        while True:
            for position, message in enumerate(self.messages):
                if position not in self._taken and wanted(message):
                    self._taken.add(position)
                    return message
            left = deadline - time.monotonic()
            if left <= 0 or self.closed.is_set():
                return None
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), left)
            except TimeoutError:
                return None

    def strays(self) -> list[dict[str, Any]]:
        """Answers naming an id the checker never sent."""
        return [
            m.value
            for m in self.messages
            if m.method is None and _key(m.value.get("id")) not in self.sent_ids
        ]

    def own_ids(self) -> set[Any]:
        """Keys of the ids of the requests the proxy sent on this connection (either way)."""
        return {_key(m.value["id"]) for m in self.messages if m.is_request}

    def evidence(self, since: int = 0) -> list[str]:
        frames = self.wire.transcript.frames[since:]
        shown = [f.show() for f in frames[-EVIDENCE_FRAMES:]]
        if len(frames) > EVIDENCE_FRAMES:
            shown.insert(0, f"... ({len(frames) - EVIDENCE_FRAMES} earlier frames)")
        return shown

    async def close(self) -> None:
        await self.wire.stop()
        self._reader.cancel()
