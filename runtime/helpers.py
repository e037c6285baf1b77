"""Agent-side helpers: what an agent sends its client for one session, in one line each.

    async def session_prompt(self, params):
        session = AgentSession(self.conn, params.session_id)
        await session.say("Looking at it")
        async with session.tool_call("Run tests", kind="execute") as call:
            async with session.terminal("pytest", ["-q"]) as term:
                await call.add_terminal(term.id)
                exit_status = await term.wait_for_exit()
        ...

Every helper is one ACP message built by wire name through the connection's package, and goes
through the runtime like any call: the capability guards still apply (`fs/*` and `terminal/*` to a
client that did not advertise them raise `CapabilityError`, nothing sent; `client_offers` asks
first), and so do the path rules (absolute paths only).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Generic, Mapping, Sequence, overload

import msgspec

from .jsonrpc import INTERNAL_ERROR, wire
from .jsonrpc.errors import ProtocolError
from .protocol import rules
from .protocol.agent import AgentSideConnection
from .protocol.schema_types import (
    AnswerT,
    ClientSchemaT,
    ContentT,
    EntryT,
    ExitT,
    KindT,
    KindValueT,
    OptionT,
    OutputT,
    StopT,
    StopValueT,
    UpdateT,
)

if TYPE_CHECKING:
    from .protocol.schema_types import (
        KV,
        SV,
        TE,
        TO,
        A,
        C,
        E,
        HasClient,
        HasPlanEntry,
        HasPlanEntryValues,
        HasStateFields,
        K,
        Opt,
        ProxyV1,
        ProxyV2,
        S,
        Types,
        TypesValues,
        U,
        V,
        W,
        X,
    )

    # a plan entry's status and priority, as members or wire values (both versions)
    _PlanTypes = TypesValues[HasPlanEntry[S, V], HasPlanEntryValues[SV, W]]

from .routing import connection_of, params_of
from .tools import Terminal as Terminal
from .tools import ToolCall as ToolCall
from .tools import given, present
from .tools import text as text

log = logging.getLogger("acp_runtime")

DEFAULT_PERMISSION_OPTIONS = (
    {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
    {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
)


class AgentSession(
    Generic[
        ContentT,
        EntryT,
        KindT,
        KindValueT,
        OptionT,
        UpdateT,
        StopT,
        StopValueT,
        AnswerT,
        OutputT,
        ExitT,
        ClientSchemaT,
    ]
):
    """An agent's handle on one session of a connection: updates, tool calls, permission, files
    and terminals for that session.

    Typed with the connection's package (read off `conn.client`, see
    `acp_runtime.protocol.schema_types`): `say` takes its content blocks, `plan` its plan entries,
    `tool_call` its tool kinds (members or wire values), `ask_permission` gives its permission
    options, and `turn` takes its stop reasons and gives its prompt answer. The last parameter is
    the client proxy itself, which carries the rest of the package's types (`ToolCall.update`'s,
    `state`'s: see `schema_types`).
    """

    if TYPE_CHECKING:

        @overload
        def __init__(
            self: AgentSession[C, E, K, KV, Opt, U, S, SV, A, TO, TE, X],
            conn: HasClient[ProxyV1[C, E, K, KV, Opt, U, S, SV, A, object, TO, TE, Any], X],
            session_id: str,
        ) -> None: ...

        @overload
        def __init__(
            self: AgentSession[C, E, K, KV, Opt, U, str, str, A, object, object, X],
            conn: HasClient[ProxyV2[C, E, K, KV, Opt, U, A, object, Any], X],
            session_id: str,
        ) -> None: ...

    def __init__(self, conn: object, session_id: str) -> None:
        self.conn: AgentSideConnection[ClientSchemaT] = connection_of(
            conn, AgentSideConnection, "AgentSession"
        )
        self.id = session_id
        # v2 (a package requiring `messageId` on messages): the agent message and thought that
        # `say` / `think` append to: new ids with each AgentSession (one a prompt) or `new_message`
        self.new_message()

    def new_message(self) -> None:
        """Start a new agent message (and thought): later `say` / `think` chunks belong to it."""
        self.message_id = _new_id("msg")
        self.thought_id = _new_id("msg")

    # --- the prompt turn, as the connection's protocol version runs it ---

    async def turn(
        self, prompt: Sequence[ContentT], work: Callable[[], Awaitable[StopT | StopValueT]]
    ) -> AnswerT:
        """Run a prompt turn: `work()` does the turn's work and returns its stop reason
        (`"end_turn"` ...). Returns the `session/prompt` answer of the connection's version:

        - v1 (the answer carries the stop reason): runs `work()` now and answers its stop reason;
          `session/cancel` cancels it and the runtime answers `cancelled`.
        - v2 (the answer only acknowledges): answers `{messageId}` (the user message's id) at
          once; after the answer it sends `user_message` (that id, the prompt), `state_update`
          `running`, runs `work()`, and ends the turn `state_update` `idle` with its stop reason.
          `session/cancel` (or `session/close`) cancels `work()`, and the turn ends `idle`
          `cancelled`. A `work()` that raises is logged and ends the turn `idle` `error` (-32603,
          no details) where the schema has that stop reason.
        """
        if not self.conn.policy.plan.v2:  # the package's plan: `rules.turn_ends_by_update`
            return self._answer({rules.STOP_REASON: await work()})
        user_message_id = _new_id("msg")

        async def run() -> None:
            task = asyncio.current_task()
            assert task is not None
            self.conn.track_turn(self.id, task)
            try:
                await self.send(self._message("user_message", list(prompt), user_message_id))
                await self._state(rules.RUNNING, None)
                stop: object = await work()
                if self.conn.turn_cancelled(self.id):  # cancelled as the work was ending
                    stop = rules.CANCELLED
            except asyncio.CancelledError:
                if self.conn.closed:
                    raise
                task.uncancel()
                stop = rules.CANCELLED
            except Exception:
                log.exception("the turn of session %s failed", self.id)
                error = {"code": INTERNAL_ERROR, "message": "Internal error"}
                with contextlib.suppress(ProtocolError):  # a schema without the `error` reason
                    await self._state(rules.IDLE, "error", error=error)
                return
            await self._state(rules.IDLE, stop)

        self.conn.after_answer(run)
        return self._answer({rules.MESSAGE_ID: user_message_id})

    def _answer(self, data: dict[str, Any]) -> AnswerT:
        """The `session/prompt` answer, typed by the connection's package, from wire data."""
        schema, method = self.conn.schema, rules.SESSION_PROMPT
        result_type = schema.METHODS[method].result
        answer: AnswerT = wire.build(schema, data, result_type, method=method, at="result")
        return answer

    async def state(
        self: AgentSession[
            Any, Any, Any, Any, Any, Any, S, SV, Any, Any, Any, Types[HasStateFields[V, W, X]]
        ],
        state: str,
        stop_reason: S | SV | None = None,
        *,
        usage: V | Mapping[str, Any] | None | msgspec.UnsetType = msgspec.UNSET,
        background: Sequence[W | Mapping[str, Any]] | None | msgspec.UnsetType = msgspec.UNSET,
        error: X | Mapping[str, Any] | None | msgspec.UnsetType = msgspec.UNSET,
        **fields: Any,  # further wire fields (`_meta` ...): any JSON
    ) -> None:
        """A v2 `state_update`: `running`, `requires_action`, or `idle` with its stop reason (and
        `usage`, `background` work, `error`: omitted when not given). A package without state
        updates (v1: no `BackgroundWork`) has no such method for the checker."""
        reported = given(usage=usage, background=background, error=error)
        await self._state(state, stop_reason, **reported, **fields)

    async def _state(self, state: str, stop_reason: object, **fields: Any) -> None:
        update: dict[str, Any] = {"sessionUpdate": rules.STATE_UPDATE, rules.STATE: state, **fields}
        if stop_reason is not None:
            update[rules.STOP_REASON] = stop_reason
        await self.send(update)

    # --- session/update ---

    async def send(self, update: UpdateT | Mapping[str, Any]) -> None:
        """Send one session update: a generated update Struct, or wire JSON with `sessionUpdate`.
        A value that breaks the schema raises `SchemaMismatchError` (its path and value); nothing
        is sent."""
        params: Any = {rules.SESSION_ID: self.id, rules.SESSION_UPDATE_FIELD: update}
        if not self.conn.enforce_protocol:  # else the connection checks and types it on the way out
            params = params_of(self.conn, rules.SESSION_UPDATE, params)
        await self.conn.notify(rules.SESSION_UPDATE, params)

    async def say(self, message: str | ContentT) -> None:
        """An `agent_message_chunk`: a string is one text block (v2: of `self.message_id`)."""
        await self.send(self._message("agent_message_chunk", message, self.message_id))

    async def think(self, thought: str | ContentT) -> None:
        """An `agent_thought_chunk` (v2: of `self.thought_id`)."""
        await self.send(self._message("agent_thought_chunk", thought, self.thought_id))

    def _message(self, kind: str, content: object, message_id: str) -> dict[str, Any]:
        """A message update of `kind`: its content (a string is one text block), its id where the
        package requires one (v2)."""
        block = text(content) if isinstance(content, str) else content
        update = {"sessionUpdate": kind, "content": block}
        if kind in self.conn.policy.plan.message_kinds:
            update[rules.MESSAGE_ID] = message_id
        return update

    async def plan(
        self: AgentSession[
            Any, E, Any, Any, Any, Any, Any, Any, Any, Any, Any, _PlanTypes[S, V, SV, W]
        ],
        entries: Sequence[E | Mapping[str, Any] | tuple[str, S | SV] | tuple[str, S | SV, V | W]],
    ) -> None:
        """The whole plan (`plan`): each entry a PlanEntry, wire JSON, or a `(content, status)` /
        `(content, status, priority)` tuple (priority "medium" when not given)."""
        await self.send({"sessionUpdate": "plan", "entries": [_entry(e) for e in entries]})

    def tool_call(
        self, title: str, *, kind: KindT | KindValueT | None = None, **fields: Any
    ) -> ToolCall[ClientSchemaT]:
        """A tool call to report, as `async with session.tool_call(title) as call:`. It is sent
        `in_progress` on entry and `completed` on exit, or `failed` when the block raises (the
        exception goes on). `fields` are further wire fields of the tool call (`locations`,
        `rawInput` ...: any JSON); `call.update(...)` sends patches on the way."""
        return ToolCall(self, _new_id("call"), {"title": title, **present(kind=kind), **fields})

    # --- permission ---

    async def ask_permission(
        self,
        tool_call: ToolCall[ClientSchemaT] | msgspec.Struct | Mapping[str, Any],
        options: Sequence[OptionT | Mapping[str, Any]] = DEFAULT_PERMISSION_OPTIONS,
    ) -> OptionT | None:
        """Ask the user to allow a tool call (a `ToolCall` handle, or the wire/Struct tool call
        update to show). Returns the chosen option (one of the permission request's `options`,
        typed) or None when the user (or a `session/cancel`) cancelled."""
        if isinstance(tool_call, ToolCall):  # the handle: its id and fields as last sent
            tool_call = {"toolCallId": tool_call.id, **tool_call.fields}
        method = "session/request_permission"
        params = self._params(method, {"toolCall": tool_call, "options": list(options)})
        answer = await self.conn.request(method, params)
        chosen = wire.get(answer, "outcome", "optionId")
        if wire.get(answer, "outcome", "outcome") != "selected" or chosen is None:
            return None
        offered: list[OptionT] = wire.items(params, "options")
        return next((o for o in offered if wire.get(o, "optionId") == chosen), None)

    # --- the client's files and terminals ---

    def client_offers(self, method: str) -> bool:
        """Whether the client advertised what `method` (`fs/read_text_file`, `terminal/create` ...)
        needs: the runtime's own capability guards, asked without sending anything."""
        guards = self.conn.policy.send_guards.get(method, ())
        return method in self.conn.schema.METHODS and all(
            g({}, self.conn.peer_initialize) is None for g in guards
        )

    async def read_file(
        self, path: str, *, line: int | None = None, limit: int | None = None
    ) -> str:
        """The text of a file as the client sees it (unsaved editor changes included)."""
        data = {"path": path, **present(line=line, limit=limit)}
        return str(wire.get(await self.call("fs/read_text_file", data), "content"))

    async def write_file(self, path: str, content: str) -> None:
        """Write a file through the client."""
        await self.call("fs/write_text_file", {"path": path, "content": content})

    def terminal(
        self,
        command: str,
        args: Sequence[str] = (),
        *,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        output_byte_limit: int | None = None,
    ) -> Terminal[OutputT, ExitT]:
        """A command run in a client terminal, as `async with session.terminal(cmd, args) as term:`;
        the terminal is released when the block ends, however it ends."""
        data = {"command": command, "args": list(args), **present(cwd=cwd)}
        if env:
            data["env"] = [{"name": k, "value": v} for k, v in env.items()]
        data.update(present(outputByteLimit=output_byte_limit))
        return Terminal(self, data)

    async def call(self, method: str, data: dict[str, Any]) -> Any:
        """Send request `method` of this session, its params built from `data` (wire names, the
        session id added): the result."""
        return await self.conn.request(method, self._params(method, data))

    def _params(self, method: str, data: dict[str, Any]) -> Any:
        return params_of(self.conn, method, {rules.SESSION_ID: self.id, **data})


def _new_id(kind: str) -> str:
    return f"{kind}_{uuid.uuid4().hex[:12]}"


def _entry(entry: Any) -> Any:
    if isinstance(entry, tuple):
        content, status, *rest = entry  # (content, status) or (content, status, priority)
        return {"content": content, "status": status, "priority": rest[0] if rest else "medium"}
    return entry


__all__ = ["AgentSession", "Terminal", "ToolCall", "text"]
