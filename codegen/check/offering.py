"""The checker as a client that offers the file system and terminals (surfaces.py uses it on a
connection of its own), answering every call without touching the machine."""

from __future__ import annotations

from collections.abc import Mapping
from types import ModuleType
from typing import Any

from .client import AgentPeer
from .link import Link

FILE_TEXT = "acpgen check: a file the checker serves without reading the disk\n"


class OfferingPeer(AgentPeer):
    """The checker as a client offering the file system and terminals: fs/read_text_file gets a
    fixed text, fs/write_text_file is acknowledged without writing, terminal/create gets an id
    whose command is never run (it exits 0 at once, with no output), and a permission request
    is answered with its first allow option. Every call is recorded in `calls`."""

    def __init__(
        self,
        wire: Link,
        package: ModuleType,
        timeout: float,
        version: int | None = None,
        others: Mapping[int, ModuleType] | None = None,
    ) -> None:
        super().__init__(wire, package, timeout, version=version, others=others)
        self.calls: list[str] = []
        self.created: list[str] = []
        self.released: list[str] = []

    async def _answer(self, request: dict[str, Any]) -> None:
        method = request["method"]
        params = request.get("params")
        params = params if isinstance(params, dict) else {}
        self.calls.append(method)
        result: Any = {}
        if method == "fs/read_text_file":
            result = {"content": FILE_TEXT}
        elif method == "terminal/create":
            terminal = f"acpgen-check-terminal-{len(self.created) + 1}"
            self.created.append(terminal)
            result = {"terminalId": terminal}
        elif method == "terminal/output":
            result = {"output": "", "truncated": False, "exitStatus": {"exitCode": 0}}
        elif method == "terminal/wait_for_exit":
            result = {"exitCode": 0}
        elif method == "terminal/release":
            self.released.append(str(params.get("terminalId")))
        elif method == "session/request_permission":
            listed = params.get("options")
            options: list[Any] = listed if isinstance(listed, list) else []
            allow = [o for o in options if isinstance(o, dict) and "allow" in str(o.get("kind"))]
            if allow:
                result = {"outcome": {"outcome": "selected", "optionId": allow[0].get("optionId")}}
            else:
                result = {"outcome": {"outcome": "cancelled"}}
        elif method not in ("fs/write_text_file", "terminal/kill"):
            await super()._answer(request)
            return
        await self.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
