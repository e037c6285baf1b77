"""The agent the checker plays for `--client`: it advertises nothing, answers initialize and
session/new, and during the first prompt's turn probes the client (an unknown `_` request, odd
ids, an unknown notification, a permission request for an announced tool call) before ending the
turn, in the shape of the protocol version it plays (v1: the prompt's answer ends the turn; v2:
the prompt is answered on accept, and the turn reports user_message, running, then idle).

The version: `version` when given (it answers that to any initialize, as an agent supporting only
it must), else the one the client asks for (1 or 2; anything else is answered 2, its latest).
The client's initialize is decoded with the package of the version it asks for, every later frame
with the package of the version played.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from .. import __version__
from .client import AgentPeer, Received
from .frames import Problem, Validator
from .link import Link

SESSION = "acpgen-check-session"
ODD_IDS: tuple[Any, ...] = ("7", "acpgen check ✓", 0, -3)
LATEST = 2


class CheckerAgent(AgentPeer):
    def __init__(
        self,
        wire: Link,
        packages: Mapping[int, ModuleType],
        timeout: float,
        version: int | None = None,
    ) -> None:
        self.packages = packages
        self.forced = version
        self.version: int | None = version  # None until the client's initialize says
        super().__init__(wire, packages[version or 1], timeout, side="agent")
        self.turn_done = asyncio.Event()
        self.probes: dict[str, Any] = {}
        self.prompted = False
        self.first_method: str | None = None
        self.last_method: str | None = None
        self.asked: int | None = None  # the protocol version the client's initialize asked for
        self.chosen = False  # the client's (first) initialize has been read
        self.answered_initialize = False
        self.set_up: set[str] = set()  # sessions the checker has answered session/new with
        self.early_prompts: list[str] = []  # why a session/prompt came before its set-up

    def inspect(self, line: bytes) -> tuple[Any, str | None, Problem | None]:
        asked = None if self.chosen else _asked_version(line)
        if asked is None:
            return super().inspect(line)
        self.chosen = True
        self.asked = asked
        package = self.packages.get(asked, self.packages[self.version or LATEST])
        found = Validator(package, "agent").inspect(line)
        if self.version is None:
            self.version = asked if asked in self.packages else LATEST
        self.validator = Validator(self.packages[self.version], "agent")
        return found

    async def _dispatch(self, got: Received) -> None:
        method = got.message.get("method")
        if isinstance(method, str) and self.first_method is None:
            self.first_method = method
        if isinstance(method, str):
            self.last_method = method
        await super()._dispatch(got)

    async def _answer(self, request: dict[str, Any]) -> None:
        method, rid = request["method"], request["id"]
        params = request.get("params")
        params = params if isinstance(params, dict) else {}
        result: Any
        if method == "initialize":
            info = {"name": "acpgen-check", "version": __version__}
            if self.version is None:  # an initialize the checker could not read a version from
                self.version = self.forced or LATEST
            if self.version == 1:
                result = {"protocolVersion": 1, "agentCapabilities": {}, "agentInfo": info}
            else:
                result = {"protocolVersion": self.version, "info": info, "capabilities": {}}
            self.answered_initialize = True
        elif method == "session/new":
            self.set_up.add(SESSION)
            result = {"sessionId": SESSION}
        elif method == "session/prompt":
            early = self._early(params)
            if early is not None:
                self.early_prompts.append(early)
                error = {"code": -32602, "message": f"Invalid params: {early}"}
                await self.send({"jsonrpc": "2.0", "id": rid, "error": error})
                return
            if not self.prompted:
                self.prompted = True
                asyncio.create_task(self._turn(rid))
                return
            result = self._ended(rid)
            if result is None:
                return
        else:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            await self.send({"jsonrpc": "2.0", "id": rid, "error": error})
            return
        await self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def _early(self, params: dict[str, Any]) -> str | None:
        """Why a prompt comes too early (None: it does not)."""
        if not self.answered_initialize:
            return "session/prompt before initialize was answered"
        session = params.get("sessionId")
        if session not in self.set_up:
            return f"session/prompt for {json.dumps(session)[:80]}, a session never set up"
        return None

    def _ended(self, rid: Any) -> dict[str, Any] | None:
        """The answer to a later prompt: a turn that ends at once."""
        if self.version == 1:
            return {"stopReason": "end_turn"}
        asyncio.create_task(self._idle_after(rid))
        return None

    async def _idle_after(self, rid: Any) -> None:
        await self.send({"jsonrpc": "2.0", "id": rid, "result": {"messageId": f"user-{rid}"}})
        await self._update({"sessionUpdate": "state_update", "state": "running"})
        idle = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
        await self._update(idle)

    async def _update(self, update: dict[str, Any]) -> None:
        await self.notify("session/update", {"sessionId": SESSION, "update": update})

    async def _turn(self, rid: Any) -> None:
        v2 = self.version != 1
        if v2:
            accepted = {"messageId": "acpgen-check-user-1"}
            await self.send({"jsonrpc": "2.0", "id": rid, "result": accepted})
            content = [{"type": "text", "text": "(the client's prompt)"}]
            user = {"sessionUpdate": "user_message", "messageId": "acpgen-check-user-1"}
            await self._update({**user, "content": content})
            await self._update({"sessionUpdate": "state_update", "state": "running"})
        text = {"type": "text", "text": "acpgen check is probing this client."}
        chunk: dict[str, Any] = {"sessionUpdate": "agent_message_chunk", "content": text}
        await self._update({**chunk, "messageId": "acpgen-check-agent-1"} if v2 else chunk)
        mark = self.mark()
        self.probes["unknown"] = (await self.request("_acpgen_check/no_such_method", {}), mark)
        mark = self.mark()
        futures = [(i, await self.start("_acpgen_check/id", {}, i)) for i in ODD_IDS]
        await self.barrier()
        await asyncio.sleep(0.2)
        self.probes["ids"] = ([i for i, f in futures if not f.done()], mark)
        mark = self.mark()
        strays = len(self.stray)
        await self.notify("_acpgen_check/notice", {})
        await self.barrier()
        await asyncio.sleep(0.2)
        self.probes["notice"] = ([s.message for s in self.stray[strays:]], mark)
        call = {"toolCallId": "check-1", "title": "Probe"}
        await self._update({"sessionUpdate": "tool_call", **call, "status": "pending"})
        mark = self.mark()
        reply = await self.request("session/request_permission", _permission(call, v2))
        self.probes["permission"] = (reply, mark)
        done = {"sessionUpdate": "tool_call_update", "toolCallId": "check-1", "status": "completed"}
        await self._update(done)
        if v2:
            idle = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
            await self._update(idle)
        else:
            await self.send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        self.turn_done.set()


def _permission(call: dict[str, Any], v2: bool) -> dict[str, Any]:
    options = [
        {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
        {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
    ]
    if v2:
        subject = {"type": "tool_call", "toolCall": call}
        return {"sessionId": SESSION, "title": "Probe", "subject": subject, "options": options}
    return {"sessionId": SESSION, "toolCall": call, "options": options}


def _asked_version(line: bytes) -> int | None:
    """The protocol version an initialize request asks for (None: the line is no such request)."""
    try:
        message = json.loads(line)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("method") != "initialize":
        return None
    params = message.get("params")
    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    return asked if isinstance(asked, int) and not isinstance(asked, bool) else LATEST
