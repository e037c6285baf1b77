"""Client-side sessions: set one up, prompt it, and read its state folded from `session/update`.

    session = await Session.new(conn, cwd="/abs/project")
    outcome = await session.prompt("hello")            # a string, or a list of content blocks
    print(outcome.stop_reason, session.state.text())   # "end_turn", the agent's text so far

`prompt` returns when the turn ends, in either protocol version: in ACP v1 the prompt's answer
carries the stop reason; in v2 the answer only acknowledges the user message (its `messageId`),
and the turn ends with the first `state_update` `idle` after that user message, whose
`stopReason` it returns. Which one applies is read from the negotiated package, by the rule the
agent side follows too (`rules.turn_ends_by_update`): a prompt answer type without `stopReason`,
in a package whose updates include `state_update`, means the turn ends by state.

A `Session` folds every `session/update` of its session, in arrival order and before the client
handler sees it, into `session.state` (a `SessionState`, `state.py`: messages, tool calls, plan,
mode, config options, commands, usage ...). Everything is read and built by wire name through the
connection's package (`wire`), so the same code serves any generated package of these shapes.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, AsyncIterator, Generic, Mapping, Sequence, cast, overload

import msgspec

from .jsonrpc import wire
from .jsonrpc.calls import DEFAULT
from .jsonrpc.errors import ConnectionClosedError
from .protocol import rules
from .protocol.client import ClientSideConnection
from .protocol.schema_types import (
    AgentSchemaT,
    AnswerT,
    ContentT,
    EntryT,
    StopT,
    ToolCallT,
    UpdateT,
)

if TYPE_CHECKING:
    from .protocol.schema_types import (
        T2,
        A,
        C,
        E,
        HasAgent,
        HasAvailableCommand,
        HasSessionConfigOption,
        HasSessionConfigValueId,
        HasSessionMode,
        HasSessionModeState,
        M,
        ProxyV1,
        ProxyV1Calls,
        ProxyV2,
        S,
        T,
        Types,
        U,
        V,
        X,
    )

    # The shapes of a client connection a session is typed by, one per kind of package (see
    # `schema_types`): v1 naming its whole tool call `ToolCall`, an older v1, and v2. The `params`
    # of `new`, `load` and `resume` are further wire fields (any JSON).
    _V1Calls = HasAgent[ProxyV1Calls[C, E, Any, Any, Any, U, S, Any, A, T, T2, Any, Any, M], X]
    _V1 = HasAgent[ProxyV1[C, E, Any, Any, Any, U, S, Any, A, T2, Any, Any, M], X]
    _V2 = HasAgent[ProxyV2[C, E, Any, Any, Any, U, A, T2, M], X]
    _Mcp = Sequence[M | Mapping[str, Any]]  # the package's MCP servers, or wire JSON
from .routing import TurnOutcome as TurnOutcome
from .routing import TurnTimeoutError as TurnTimeoutError
from .routing import connection_of, params_of, router_of
from .state import IDLE, KIND, MESSAGE_ID, STATE, STOP_REASON, USAGE
from .state import Message as Message
from .state import SessionState as SessionState
from .state import patch as patch
from .state import patch_meta as patch_meta
from .tools import text

_END = object()  # ends an `updates()` iteration: a turn ended, or the connection closed


class Session(Generic[ContentT, UpdateT, ToolCallT, StopT, AnswerT, EntryT, AgentSchemaT]):
    """One session of a client connection: its id, the agent's offers, its folded `state`.

    Make one with `await Session.new(conn, cwd)` or `await Session.load(conn, session_id, cwd)`.
    Typed with the connection's package (read off `conn.agent`, see `schema_types`): its content
    blocks, updates, tool calls, plan entries, stop reason and prompt answer; the last parameter
    is the agent proxy, which carries the rest of its types (`modes`, `state.usage` ...).
    """

    @overload
    def __init__(
        self: Session[C, U, T | T2, S, A, E, X],
        conn: _V1Calls[C, E, U, S, A, T, T2, M, X],
        session_id: str,
    ) -> None: ...

    @overload
    def __init__(
        self: Session[C, U, U, S, A, E, X], conn: _V1[C, E, U, S, A, T2, M, X], session_id: str
    ) -> None: ...

    @overload
    def __init__(
        self: Session[C, U, T2, str, A, E, X], conn: _V2[C, E, U, A, T2, M, X], session_id: str
    ) -> None: ...

    def __init__(self, conn: object, session_id: Any) -> None:
        self.conn: ClientSideConnection[AgentSchemaT] = connection_of(
            conn, ClientSideConnection, "Session"
        )
        self.id: str = session_id
        # v2: a turn ends by state, as the package's plan says (`rules.turn_ends_by_update`)
        self._by_state: bool = self.conn.policy.plan.v2
        self.state: SessionState[ContentT, ToolCallT, EntryT, AgentSchemaT] = SessionState()
        self._modes: object = None  # the agent's mode offer, if any: `modes`
        self._listeners: list[asyncio.Queue[Any]] = []
        self._closed = False
        # v2 turns end by state: while prompts wait, the user messages and idle states seen, by the
        # number of the update that brought them
        self._folded = 0
        self._waiting = 0
        self._user_messages: dict[Any, int] = {}
        self._idles: list[tuple[int, Any]] = []
        self._changed = asyncio.Event()  # set (and cleared) when one of those comes, or on close

    # --- setting up ---

    @overload
    @classmethod
    async def new(
        cls,
        conn: _V1Calls[C, E, U, S, A, T, T2, M, X],
        cwd: str,
        mcp_servers: _Mcp[M] = ...,
        **params: Any,
    ) -> Session[C, U, T | T2, S, A, E, X]: ...

    @overload
    @classmethod
    async def new(
        cls, conn: _V1[C, E, U, S, A, T2, M, X], cwd: str, mcp_servers: _Mcp[M] = ..., **params: Any
    ) -> Session[C, U, U, S, A, E, X]: ...

    @overload
    @classmethod
    async def new(
        cls, conn: _V2[C, E, U, A, T2, M, X], cwd: str, mcp_servers: _Mcp[M] = ..., **params: Any
    ) -> Session[C, U, T2, str, A, E, X]: ...

    @classmethod
    async def new(
        cls, conn: Any, cwd: str, mcp_servers: Sequence[Any] = (), **params: Any
    ) -> _Opened:
        """`session/new` in `cwd` (an absolute path); `params` are further wire fields."""
        conn = connection_of(conn, ClientSideConnection, "Session.new")
        router = router_of(conn)
        router.setups += 1
        try:
            data = {"cwd": cwd, "mcpServers": list(mcp_servers), **params}
            result = await conn.request("session/new", params_of(conn, "session/new", data))
            session = cls(conn, wire.get(result, rules.SESSION_ID))
            session._offered(result)
            router.claim(session)
        finally:
            router.setups -= 1
        return session

    @overload
    @classmethod
    async def load(
        cls,
        conn: _V1Calls[C, E, U, S, A, T, T2, M, X],
        session_id: str,
        cwd: str,
        mcp_servers: _Mcp[M] = ...,
        **params: Any,
    ) -> Session[C, U, T | T2, S, A, E, X]: ...

    @overload
    @classmethod
    async def load(
        cls,
        conn: _V1[C, E, U, S, A, T2, M, X],
        session_id: str,
        cwd: str,
        mcp_servers: _Mcp[M] = ...,
        **params: Any,
    ) -> Session[C, U, U, S, A, E, X]: ...

    @overload
    @classmethod
    async def load(
        cls,
        conn: _V2[C, E, U, A, T2, M, X],
        session_id: str,
        cwd: str,
        mcp_servers: _Mcp[M] = ...,
        **params: Any,
    ) -> Session[C, U, T2, str, A, E, X]: ...

    @classmethod
    async def load(
        cls, conn: Any, session_id: str, cwd: str, mcp_servers: Sequence[Any] = (), **params: Any
    ) -> _Opened:
        """`session/load`: the history the agent replays while answering is folded into `state`."""
        data = {"cwd": cwd, "mcpServers": list(mcp_servers), **params}
        return await _open(cls, conn, "session/load", session_id, data)

    @overload
    @classmethod
    async def resume(
        cls, conn: _V1Calls[C, E, U, S, A, T, T2, M, X], session_id: str, cwd: str, **params: Any
    ) -> Session[C, U, T | T2, S, A, E, X]: ...

    @overload
    @classmethod
    async def resume(
        cls, conn: _V1[C, E, U, S, A, T2, M, X], session_id: str, cwd: str, **params: Any
    ) -> Session[C, U, U, S, A, E, X]: ...

    @overload
    @classmethod
    async def resume(
        cls, conn: _V2[C, E, U, A, T2, M, X], session_id: str, cwd: str, **params: Any
    ) -> Session[C, U, T2, str, A, E, X]: ...

    @classmethod
    async def resume(cls, conn: object, session_id: str, cwd: str, **params: Any) -> _Opened:
        """`session/resume` (v2, and v1's unstable one): what the agent replays (v2: with
        `replayFrom`) and its state snapshot, sent before its answer, are folded into `state`."""
        return await _open(cls, conn, "session/resume", session_id, {"cwd": cwd, **params})

    def _offered(self, result: Any) -> None:
        self._modes = wire.get(result, "modes")
        state: SessionState[Any, Any, Any, Any] = self.state  # filled from the wire: read as Any
        state.current_mode_id = wire.get(result, "modes", "currentModeId")
        state.config_options = wire.items(result, "configOptions")
        if wire.get(result, "availableCommands") is not None:  # v2 offers commands up front
            state.commands = wire.items(result, "availableCommands")

    # --- what the agent offers ---

    @property
    def modes(self: _Session[HasSessionModeState[V]]) -> V | None:
        """The agent's mode offer (available modes and the current one), if any."""
        return cast("V | None", self._modes)

    @property
    def available_modes(self: _Session[HasSessionMode[V]]) -> list[V]:
        return wire.items(self._modes, "availableModes")

    @property
    def config_options(self: _Session[HasSessionConfigOption[V]]) -> list[V]:
        return self.state.config_options

    @property
    def commands(self: _Session[HasAvailableCommand[V]]) -> list[V]:
        return self.state.commands

    # --- turns ---

    async def prompt(
        self,
        prompt: str | Sequence[ContentT],
        *,
        timeout: float | None = DEFAULT,  # DEFAULT: the connection's
        **params: Any,
    ) -> TurnOutcome[StopT, AnswerT, AgentSchemaT]:
        """Send one prompt (a string is one text block) and wait for the turn to end (v2: its
        first idle state after the user message, or after work when the answer names none), every
        update of it folded. A cancelled turn returns with `stop_reason` "cancelled"; an agent's
        error raises. `timeout`: the call's (in v2 the whole turn's, cancelled on expiry)."""
        blocks: list[Any] = [text(prompt)] if isinstance(prompt, str) else list(prompt)
        try:
            params = self._params("session/prompt", {"prompt": blocks, **params})
            if self._by_state:
                return await self._turn_by_state(params, timeout)
            response = await self.conn.request("session/prompt", params, timeout=timeout)
            # the stop reason as the package typed it (a member; `wire.get` gives wire values),
            # None when it is absent (an optional field left out reads as UNSET)
            stop = wire.reader(type(response), STOP_REASON)(response)
            stop = None if stop is msgspec.UNSET else stop
            return TurnOutcome(stop, wire.get(response, USAGE), response)
        finally:
            self.end_updates()

    async def _turn_by_state(
        self, params: Any, timeout: float | None
    ) -> TurnOutcome[StopT, AnswerT, AgentSchemaT]:
        """v2: send the prompt, then wait for the idle state that ends its turn."""
        limit = self.conn.timeout if timeout is DEFAULT else timeout
        deadline = None if limit is None else asyncio.get_running_loop().time() + limit
        self._waiting += 1
        start = self._folded
        try:
            response = await self.conn.request("session/prompt", params, timeout=limit)
            message_id = wire.get(response, MESSAGE_ID)
            try:
                async with asyncio.timeout_at(deadline):
                    while (idle := self._idle_after(start, message_id)) is None:
                        if self._closed:
                            raise ConnectionClosedError(
                                "connection closed before the turn ended (no idle state_update)"
                            )
                        await self._changed.wait()
            except TimeoutError:
                assert limit is not None  # no limit: no deadline, no timeout
                await self.cancel()
                raise TurnTimeoutError(limit) from None
        finally:
            self._waiting -= 1
            if not self._waiting:
                self._user_messages.clear()
                self._idles.clear()
        return TurnOutcome(wire.get(idle, STOP_REASON), wire.get(idle, USAGE), response, idle)

    def _idle_after(self, start: int, message_id: Any) -> Any:
        """The idle state that ends the turn of the user message `message_id` (sent after update
        number `start`): the first one after that message; without an id, the first one after a
        state other than idle. None while it has not come."""
        if message_id is not None:
            seen = self._user_messages.get(message_id)
            after = seen if seen is not None and seen > start else None
        else:
            after = next((n for n, state in self._idles if n > start and state is None), None)
        if after is None:
            return None
        return next((state for n, state in self._idles if n > after and state is not None), None)

    async def cancel(self) -> None:
        """`session/cancel`: the running turn ends with stop reason "cancelled"; the runtime answers
        this session's pending permission requests as cancelled."""
        await self.conn.notify(rules.SESSION_CANCEL, self._params(rules.SESSION_CANCEL, {}))

    async def set_mode(self, mode_id: str) -> None:
        """`session/set_mode` to one of `available_modes`; `state.current_mode_id` follows."""
        await self.call("session/set_mode", {"modeId": mode_id})
        self.state.current_mode_id = mode_id

    async def set_config_option(
        self: _Session[HasSessionConfigValueId[V]], config_id: str, value: V | bool
    ) -> None:
        """`session/set_config_option` to a value id (or a boolean, where the option is one);
        `state.config_options` becomes the agent's answer."""
        data = {"configId": config_id, "value": value}
        state: SessionState[Any, Any, Any, Any] = self.state  # filled from the wire: read as Any
        offered = next((o for o in state.config_options if wire.get(o, "id") == config_id), None)
        kind = wire.get(offered, "type")  # None when not offered
        if offered is None and isinstance(value, bool):
            kind = "boolean"
        if kind is not None and kind != "select":  # a select value is the untagged default variant
            data["type"] = kind
        result = await self.call("session/set_config_option", data)
        state.config_options = wire.items(result, "configOptions")

    async def call(self, method: str, data: dict[str, Any]) -> Any:
        """Send request `method` of this session, its params built from `data` (wire names, the
        session id added): the result."""
        return await self.conn.request(method, self._params(method, data))

    def _params(self, method: str, data: dict[str, Any]) -> Any:
        return params_of(self.conn, method, {rules.SESSION_ID: self.id, **data})

    def updates(self) -> AsyncIterator[UpdateT]:
        """Each update of this session as it is folded, from now until a turn ends (its prompt is
        answered) or the connection closes: `async for update in session.updates()`. Start it
        before the prompt (`asyncio.create_task(session.prompt(...))`) to see the whole turn."""
        queue: asyncio.Queue[Any] = asyncio.Queue()
        self._listeners.append(queue)
        if self._closed:
            queue.put_nowait(_END)
        return self._drain(queue)

    async def _drain(self, queue: asyncio.Queue[Any]) -> AsyncIterator[UpdateT]:
        try:
            while (update := await queue.get()) is not _END:
                yield update
        finally:
            if queue in self._listeners:
                self._listeners.remove(queue)

    def fold(self, update: Any) -> None:
        """Fold one of its updates into `state`; tell a waiting turn and the `updates()` readers."""
        self.state.fold(update)
        if self._waiting:
            self._watch(update)
        if self._listeners:
            for queue in self._listeners:
                queue.put_nowait(update)

    def _watch(self, update: Any) -> None:
        """Note, numbered, what a waiting v2 turn ends on: user messages, states (None: busy)."""
        self._folded += 1
        kind = wire.get(update, KIND)
        if kind in rules.USER_MESSAGE_KINDS:
            self._user_messages.setdefault(wire.get(update, MESSAGE_ID), self._folded)
        elif kind == rules.STATE_UPDATE:
            idle = wire.get(update, STATE) == IDLE
            self._idles.append((self._folded, update if idle else None))
        else:
            return
        self._changed.set()  # wakes every waiting turn
        self._changed.clear()

    def end_updates(self, closed: bool = False) -> None:
        """No more updates for the `updates()` readers (`closed`: the connection closed)."""
        self._closed = self._closed or closed
        if closed:
            self._changed.set()  # for good: a closed session's turns wait no more
        listeners, self._listeners = self._listeners, []
        for queue in listeners:
            queue.put_nowait(_END)


if TYPE_CHECKING:
    # a session, by one def name of its package: see `schema_types`
    _Session = Session[Any, Any, Any, Any, Any, Any, Types[X]]
    _Opened = Session[Any, Any, Any, Any, Any, Any, Any]  # what the overloads' implementations give


async def _open(
    cls: type[_Opened], conn: Any, method: str, session_id: Any, data: dict[str, Any]
) -> _Opened:
    """`Session.load` / `resume`: routed before the agent answers (and replays history)."""
    conn = connection_of(conn, ClientSideConnection, f"Session.{method.split('/')[-1]}")
    session = cls(conn, session_id)
    router = router_of(conn)
    router.sessions[session_id] = session
    data = {rules.SESSION_ID: session_id, **data}
    try:
        result = await conn.request(method, params_of(conn, method, data))
    except BaseException:
        router.sessions.pop(session_id, None)
        raise
    session._offered(result)
    return session
