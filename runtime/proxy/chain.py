"""The components of a chain as processes: spawned, read line by line, and stopped with no orphan.

Each component runs in a session (and process group) of its own, as `spawn_agent`'s agent does, so
that a wrapper (`npx`, a shell script) and what it started stop with it: its stdin is closed, it
gets `shutdown_timeout` seconds, then its group gets SIGTERM and, after as long again, SIGKILL.
"""

from __future__ import annotations

import asyncio
import contextlib
import shlex
from collections.abc import Sequence

from ..jsonrpc.framing import LineReader
from ..stdio import exit_code, own_group, reap


class Component:
    """One process of the chain: `label` names it in errors and traces ("proxy 1", "agent")."""

    def __init__(self, label: str, command: Sequence[str], process: asyncio.subprocess.Process):
        self.label = label
        self.command = list(command)
        self.process = process
        assert process.stdin is not None and process.stdout is not None  # pipes
        self._stdin = process.stdin
        self.lines = LineReader(process.stdout)

    @classmethod
    async def spawn(cls, label: str, command: Sequence[str]) -> Component:
        """Start `command`; raises `OSError` naming the component when it cannot be started."""
        try:
            process = await asyncio.create_subprocess_exec(
                *command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                limit=1 << 20,
                **own_group(),
            )
        except OSError as exc:
            raise OSError(f"cannot start the {label} ({shlex.join(command)}): {exc}") from exc
        return cls(label, command, process)

    @property
    def name(self) -> str:
        """The label and the command, for error messages: `proxy 1 (python p.py)`."""
        return f"{self.label} ({shlex.join(self.command)})"

    def write(self, data: bytes) -> None:
        if not self._stdin.is_closing():
            self._stdin.write(data)

    async def drain(self) -> None:
        with contextlib.suppress(ConnectionError):
            await self._stdin.drain()

    async def ended(self) -> str:
        """Why its output ended, once it has: its exit code if it exits soon after."""
        try:
            code = await asyncio.wait_for(exit_code(self.process), 0.5)
        except asyncio.TimeoutError:
            return f"the {self.name} closed its stdout"
        return f"the {self.name} exited with code {code}"

    async def stop(self, timeout: float) -> None:
        """Close its stdin, wait up to `timeout`, then end its process group (always reaped)."""
        await reap(self.process, timeout)
