"""The checker playing a client to a spawned agent: requests with timeouts, a record of every
notification and request the agent sends, and every frame validated on the way in.

The checker offers the agent no file system and no terminal (its clientCapabilities are all
false), so any fs/* or terminal/* request the agent makes is recorded and refused with -32601;
a permission request is answered `cancelled`.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Mapping

from .frames import Problem, Validator, _key
from .link import Closed, Link

EVIDENCE_FRAMES = 24
REFUSED = "acpgen_check_transport_refusal"  # in place of result / error: see AgentPeer._refused


@dataclass(frozen=True)
class Reply:
    """An answer to a request the checker sent; `message` None when none came in time."""

    message: dict[str, Any] | None
    closed: bool = False
    flooded: bool = False  # the checker stopped reading the connection (a bound was passed)

    @property
    def result(self) -> Any:
        return self.message.get("result") if self.message is not None else None

    @property
    def ok(self) -> bool:
        return self.message is not None and "result" in self.message

    @property
    def error_code(self) -> Any:
        if self.message is None or not isinstance(self.message.get("error"), dict):
            return None
        return self.message["error"].get("code")

    def describe(self) -> str:
        if self.message is None and self.flooded:
            return "the checker stopped reading the connection (transport.bounded)"
        if self.message is None:
            return "the agent closed its output" if self.closed else "no answer in time"
        if REFUSED in self.message:
            return f"refused by the transport: {self.message[REFUSED]}"
        if "error" in self.message:
            return f"error {json.dumps(self.message['error'])[:200]}"
        return f"result {json.dumps(self.message.get('result'))[:200]}"


@dataclass(frozen=True)
class Received:
    index: int  # position in the connection's transcript
    at: float
    message: dict[str, Any]


class AgentPeer:
    def __init__(
        self,
        wire: Link,
        package: ModuleType,
        timeout: float,
        side: str = "client",
        version: int | None = None,
        others: Mapping[int, ModuleType] | None = None,
    ) -> None:
        self.wire = wire
        self.package = package
        self.timeout = timeout
        self.validator = Validator(package, side, version, others)  # side: the checker's
        self.problems: list[Problem] = []
        self.notifications: list[Received] = []
        self.agent_requests: list[Received] = []
        self.stray: list[Received] = []  # answers to ids the checker never sent (or null ids)
        self.methods_seen: set[str] = set()
        self.probes: set[Any] = set()  # ids of requests for methods the agent does not advertise
        self.probe_problems: list[Problem] = []  # what is off the schema in their answers
        self.batches = 0  # answer arrays received (v2 batches)
        self.closed = asyncio.Event()
        self._waiting: dict[Any, asyncio.Future[dict[str, Any] | None]] = {}
        self._arrived = asyncio.Event()
        self._next_id = 0
        wire.on_refused = self._refused
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            try:
                line = await self.wire.receive(3600.0)
            except Closed:
                break
            if line is None:
                continue
            index = len(self.wire.transcript.frames) - 1
            value, method, problem = self.inspect(line)
            if self._batch(value):
                self.batches += 1
                for item in value:
                    await self._take(index, json.dumps(item).encode("utf-8"))
            else:
                await self._take(index, line, (value, method, problem))
            self._arrived.set()
        self.closed.set()
        for future in self._waiting.values():
            if not future.done():
                future.set_result(None)
        self._arrived.set()

    def _batch(self, value: Any) -> bool:
        """An array of objects on v2, where batches exist: each item is a message."""
        return (
            self.validator.version == 2
            and isinstance(value, list)
            and bool(value)
            and all(isinstance(item, dict) for item in value)
        )

    async def _take(
        self, index: int, line: bytes, seen: tuple[Any, str | None, Problem | None] | None = None
    ) -> None:
        value, method, problem = seen or self.inspect(line)
        if method is not None:
            self.methods_seen.add(method)
        if problem is not None:
            probe = isinstance(value, dict) and "method" not in value
            if probe and _key(value.get("id")) in self.probes:
                self.probe_problems.append(problem)
            else:
                self.problems.append(problem)
        if isinstance(value, dict):
            await self._dispatch(Received(index, time.monotonic(), value))

    def inspect(self, line: bytes) -> tuple[Any, str | None, Problem | None]:
        return self.validator.inspect(line)

    async def _dispatch(self, got: Received) -> None:
        message = got.message
        if isinstance(message.get("method"), str):
            if "id" in message:
                self.agent_requests.append(got)
                await self._answer(message)
            else:
                self.notifications.append(got)
            return
        rid = message.get("id")
        self.validator.answered(rid)
        future = self._waiting.pop(_key(rid), None)
        if future is None or future.done():
            self.stray.append(got)
        else:
            future.set_result(message)

    def _refused(self, rid: Any, what: str) -> None:
        """The transport refused to carry request `rid`: that refusal is its answer."""
        self.validator.answered(rid)
        future = self._waiting.pop(_key(rid), None)
        if future is not None and not future.done():
            future.set_result({"jsonrpc": "2.0", "id": rid, REFUSED: what})

    async def _answer(self, request: dict[str, Any]) -> None:
        method = request["method"]
        if method == "session/request_permission":
            answer: dict[str, Any] = {"result": {"outcome": {"outcome": "cancelled"}}}
        else:
            message = f"the checker offers no {method}"
            answer = {"error": {"code": -32601, "message": message}}
        await self.send({"jsonrpc": "2.0", "id": request["id"], **answer})

    # ---- sending

    async def send(self, message: Any, pieces: int = 1, pause: float = 0.0) -> bool:
        data = json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"
        return await self.wire.write(data, pieces, pause)

    def new_id(self) -> int:
        self._next_id += 1
        return self._next_id

    async def start(
        self, method: str, params: Any, rid: Any = None, **kw: Any
    ) -> asyncio.Future[dict[str, Any] | None]:
        """Send a request; the future resolves with its answer (None when the agent is gone)."""
        rid = self.new_id() if rid is None else rid
        future = self.expect(rid, method)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
        if params is not None:
            message["params"] = params
        if (self.closed.is_set() or not await self.send(message, **kw)) and not future.done():
            future.set_result(None)  # (the reader may have ended it as the agent went)
        return future

    def expect(self, rid: Any, method: str) -> asyncio.Future[dict[str, Any] | None]:
        """A future for the answer to request `rid`, sent some other way (in a batch)."""
        future: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        self.validator.expect(rid, method)
        self._waiting[_key(rid)] = future
        return future

    async def probe(self, method: str, params: Any) -> Reply:
        """A request for a method the agent does not advertise: the client must not send it,
        so what is off the schema in its answer is kept apart (probe_problems), never a frame
        failure."""
        rid = self.new_id()
        self.probes.add(_key(rid))
        return await self.request(method, params, rid)

    async def request(self, method: str, params: Any, rid: Any = None, **kw: Any) -> Reply:
        future = await self.start(method, params, rid, **kw)
        return await self.wait(future)

    async def wait(self, future: asyncio.Future[dict[str, Any] | None]) -> Reply:
        try:
            message = await asyncio.wait_for(asyncio.shield(future), self.timeout)
        except TimeoutError:
            return Reply(None)
        flooded = message is None and self.wire.flood is not None
        return Reply(message, closed=message is None, flooded=flooded)

    async def notify(self, method: str, params: Any) -> bool:
        return await self.send({"jsonrpc": "2.0", "method": method, "params": params})

    async def barrier(self) -> Reply:
        """A round trip: everything the agent wrote before answering this has been read."""
        return await self.request("_acpgen_check/barrier", {})

    async def quiet(self, seconds: float) -> None:
        await asyncio.sleep(seconds)

    # ---- reading what came

    def updates(self, session_id: Any, after: float = 0.0) -> list[Received]:
        return [
            n
            for n in self.notifications
            if n.message.get("method") == "session/update"
            and isinstance(n.message.get("params"), dict)
            and n.message["params"].get("sessionId") == session_id
            and n.at > after
        ]

    async def wait_for_update(
        self,
        session_id: Any,
        after: float,
        timeout: float,
        until: asyncio.Future[Any] | None = None,
    ) -> bool:
        """Wait for a session/update of the session (True), or until `until` is done, the agent
        is gone or `timeout` passes (False)."""
        deadline = time.monotonic() + timeout
        while not self.updates(session_id, after):
            left = deadline - time.monotonic()
            if left <= 0 or self.closed.is_set() or (until is not None and until.done()):
                return False
            self._arrived.clear()
            try:
                await asyncio.wait_for(self._arrived.wait(), left)
            except TimeoutError:
                return False
        return True

    def evidence(self, since: int = 0) -> list[str]:
        frames = self.wire.transcript.frames[since:]
        shown = [f.show() for f in frames[-EVIDENCE_FRAMES:]]
        if len(frames) > EVIDENCE_FRAMES:
            shown.insert(0, f"... ({len(frames) - EVIDENCE_FRAMES} earlier frames)")
        return shown

    def mark(self) -> int:
        return len(self.wire.transcript.frames)

    async def close(self) -> None:
        await self.wire.stop()
        self._reader.cancel()
