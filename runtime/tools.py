"""What an agent's `AgentSession` hands out (`helpers.py` re-exports them): a tool call it reports
(`ToolCall`) and a client terminal it runs (`Terminal`), and `text`, a text content block."""

from __future__ import annotations

import contextlib
from types import TracebackType
from typing import TYPE_CHECKING, Any, Generic, Mapping, Protocol, Sequence

import msgspec

from .jsonrpc import wire
from .jsonrpc.errors import ConnectionClosedError
from .protocol.schema_types import ClientSchemaT, ExitT, OutputT

if TYPE_CHECKING:
    from .protocol.schema_types import (
        KV,
        SV,
        HasToolCall,
        HasToolCallValues,
        K,
        S,
        TypesValues,
        V,
        W,
    )

    # a `ToolCall` whose client proxy's package has these (both versions)
    _CallTypes = TypesValues[HasToolCall[S, V, K, W], HasToolCallValues[SV, KV]]


class Sends(Protocol):
    """The session a tool call or terminal belongs to, as they use it."""

    async def send(self, update: Any) -> None: ...

    async def call(self, method: str, data: dict[str, Any]) -> Any: ...


def given(**values: Any) -> dict[str, Any]:
    """The wire fields a caller gave: those left UNSET (not given) are left out."""
    return {key: value for key, value in values.items() if value is not msgspec.UNSET}


def present(**values: Any) -> dict[str, Any]:
    """The wire fields that have a value: those None are left out."""
    return {key: value for key, value in values.items() if value is not None}


def text(value: str) -> dict[str, Any]:
    """A text content block (wire JSON; every helper takes these as well as generated Structs)."""
    return {"type": "text", "text": value}


class ToolCall(Generic[ClientSchemaT]):
    """A reported tool call: `await call.update(status=..., content=[...], rawOutput=...)` with wire
    field names; `add_text` / `add_diff` / `add_terminal` append to its content (which a tool call
    update replaces as a whole, so the handle keeps what was sent).

    Typed with its session's package (the client proxy `ClientSchemaT` carries it): `update` takes
    its tool call statuses, kinds, content and locations, `status` and `content` read them back."""

    def __init__(self, session: Sends, tool_call_id: str, fields: dict[str, Any]) -> None:
        self.session = session
        self.id = tool_call_id
        self.fields = fields  # wire fields as last sent (any JSON, or the package's Structs)
        # as last sent: the content items, and the status (a wire value or a member)
        self._content: list[Any] = list(fields.get("content", ()))
        self._status: Any = None

    @property
    def status(self: ToolCall[_CallTypes[S, V, K, W, SV, KV]]) -> S | SV | None:
        """The status last sent (None before `async with`)."""
        status: S | SV | None = self._status
        return status

    @property
    def content(self: ToolCall[_CallTypes[S, V, K, W, SV, KV]]) -> list[V | Mapping[str, Any]]:
        """The content last sent (a tool call update replaces it whole)."""
        content: list[V | Mapping[str, Any]] = self._content
        return content

    async def __aenter__(self) -> ToolCall[ClientSchemaT]:
        self._status = "in_progress"
        await self._send("tool_call", {**self.fields, "status": self._status})
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if kind is not None:
            failed = {"rawOutput": {"error": str(exc)}} if isinstance(exc, Exception) else {}
            with contextlib.suppress(ConnectionClosedError):  # the block's own error goes on
                await self._update(status="failed", **failed)
        elif self._status not in ("completed", "failed"):
            await self._update(status="completed")

    async def update(
        self: ToolCall[_CallTypes[S, V, K, W, SV, KV]],
        *,
        status: S | SV | None | msgspec.UnsetType = msgspec.UNSET,
        title: str | None | msgspec.UnsetType = msgspec.UNSET,
        kind: K | KV | None | msgspec.UnsetType = msgspec.UNSET,
        content: Sequence[V | Mapping[str, Any]] | None | msgspec.UnsetType = msgspec.UNSET,
        locations: Sequence[W | Mapping[str, Any]] | None | msgspec.UnsetType = msgspec.UNSET,
        **fields: Any,  # further wire fields (`rawInput`, `rawOutput`, `_meta`): any JSON
    ) -> None:
        """A `tool_call_update` with these wire fields (omitted ones stay as they were; None
        clears one)."""
        changed = given(status=status, title=title, kind=kind, content=content, locations=locations)
        await self._update(**changed, **fields)

    async def _update(self, **fields: Any) -> None:
        self.fields.update(fields)
        self._status = fields.get("status", self._status)
        if "content" in fields:
            self._content = list(fields["content"] or ())  # None: cleared
        await self._send("tool_call_update", fields)

    async def _send(self, kind: str, fields: dict[str, Any]) -> None:
        await self.session.send({"sessionUpdate": kind, "toolCallId": self.id, **fields})

    async def add_text(self, value: str) -> None:
        await self._update(content=[*self._content, {"type": "content", "content": text(value)}])

    async def add_diff(self, path: str, new_text: str, old_text: str | None = None) -> None:
        """A diff of the file at `path` (absolute); `old_text` None for a new file."""
        diff = {"type": "diff", "path": path, "newText": new_text, **present(oldText=old_text)}
        await self._update(content=[*self._content, diff], locations=[{"path": path}])

    async def add_terminal(self, terminal_id: str) -> None:
        """Embed a client terminal's live output."""
        await self._update(
            content=[*self._content, {"type": "terminal", "terminalId": terminal_id}]
        )


class Terminal(Generic[OutputT, ExitT]):
    """A client terminal, created on `async with` entry and always released on exit (v1: a v2
    client has no terminals for its agent)."""

    def __init__(self, session: Sends, data: dict[str, Any]) -> None:
        self.session = session
        self.data = data
        self.id = ""  # the client's terminalId, once created

    async def __aenter__(self) -> Terminal[OutputT, ExitT]:
        result = await self.session.call("terminal/create", self.data)
        self.id = str(wire.get(result, "terminalId"))
        return self

    async def __aexit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        try:
            await self._call("terminal/release")
        except ConnectionClosedError:
            if kind is None:
                raise

    async def output(self) -> OutputT:
        """The output so far (`output`, `truncated`, `exitStatus` once exited)."""
        output: OutputT = await self._call("terminal/output")
        return output

    async def wait_for_exit(self) -> ExitT:
        """Wait for the command to exit: its `exitCode` / `signal`."""
        exit: ExitT = await self._call("terminal/wait_for_exit")
        return exit

    async def kill(self) -> None:
        """Kill the command; the terminal stays until released."""
        await self._call("terminal/kill")

    async def _call(self, method: str) -> Any:
        return await self.session.call(method, {"terminalId": self.id})
