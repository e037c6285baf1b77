"""What a client's `Session`s stand on (`session.py` re-exports the public names): each
session/update of a connection routed to its session (`Router`), and what a prompt turn gives back
(`TurnOutcome`, `TurnTimeoutError`); with an agent's `AgentSession`, the typed params of a call and
the check that a session is given the connection of its side."""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Generic, Protocol

from .jsonrpc import wire
from .jsonrpc.errors import RequestTimeoutError
from .protocol import rules
from .protocol.client import ClientSideConnection
from .protocol.schema_types import AgentSchemaT, AnswerT, StopT

if TYPE_CHECKING:
    from .protocol.connection import Connection
    from .protocol.schema_types import HasSessionUpdate, HasUsage, Types, V, X


class Routed(Protocol):
    """A session as its router hands it updates (a `Session`)."""

    @property
    def id(self) -> Any: ...

    def fold(self, update: Any) -> None: ...

    def end_updates(self, closed: bool = False) -> None: ...


@dataclass(frozen=True)
class TurnOutcome(Generic[StopT, AnswerT, AgentSchemaT]):
    """How a prompt turn ended: `stop_reason` ("end_turn", "cancelled" ...; in v2 None when the
    idle state reports none), the turn's `usage` (None when the agent reports none), the agent's
    whole `response` to the prompt and, in v2, the `idle` state update that ended the turn.

    The last parameter is the agent proxy: `usage` is its package's `Usage`, `idle` one of its
    `SessionUpdate`s (read through it, as `SessionState`'s members are)."""

    stop_reason: StopT | None
    if not TYPE_CHECKING:  # at run time: fields; a type checker reads the properties below
        usage: Any
    response: AnswerT
    if not TYPE_CHECKING:
        idle: Any = None

    if TYPE_CHECKING:

        def __init__(
            self, stop_reason: StopT | None, usage: object, response: AnswerT, idle: object = None
        ) -> None: ...

        @property
        def usage(self: _Outcome[HasUsage[V]]) -> V | None: ...

        @property
        def idle(self: _Outcome[HasSessionUpdate[V]]) -> V | None: ...

    @property
    def cancelled(self) -> bool:
        return self.stop_reason == "cancelled"


if TYPE_CHECKING:
    _Outcome = TurnOutcome[Any, Any, Types[X]]


class TurnTimeoutError(RequestTimeoutError):
    """v2: a turn that did not end (no idle state) within the prompt's timeout. The prompt was
    answered; the turn was cancelled with `session/cancel`."""

    def __init__(self, timeout: float) -> None:
        super().__init__("session/prompt", timeout)
        self.args = (
            f"session/prompt: the turn did not end within {timeout:g} s (no idle state_update); "
            "it was cancelled (session/cancel)",
        )


class Router:
    """Hands each session/update of a connection to its `Session`, in arrival order. Updates for a
    session not known yet are held while a session/new is in flight: the agent may send them right
    after its answer, before the caller has the id."""

    def __init__(self, conn: ClientSideConnection) -> None:
        self.sessions: dict[Any, Routed] = {}
        self.setups = 0
        self.held: list[Any] = []
        # params type -> what reads its session id and update (one C call for a Struct type)
        self.readers: dict[type, Callable[[Any], tuple[Any, Any]]] = {}
        self.chained: Callable[[Any], None] | None = conn.on_session_update
        conn.on_session_update = self.route
        asyncio.ensure_future(conn.wait_closed()).add_done_callback(lambda _: self.closed())

    def route(self, params: Any) -> None:
        if self.chained is not None:
            self.chained(params)
        read = self.readers.get(type(params))
        if read is None:
            read = self.readers[type(params)] = wire.reader(type(params), *_READ)
        session_id, update = read(params)
        session = self.sessions.get(session_id)
        if session is None:
            if self.setups:
                self.held.append(params)
        else:
            session.fold(update)

    def claim(self, session: Routed) -> None:
        self.sessions[session.id] = session
        held, self.held = self.held, []
        for params in held:
            if wire.get(params, rules.SESSION_ID) == session.id:
                session.fold(wire.get(params, rules.SESSION_UPDATE_FIELD))
            elif self.setups:
                self.held.append(params)

    def closed(self) -> None:
        for session in self.sessions.values():
            session.end_updates(closed=True)


_READ = (rules.SESSION_ID, rules.SESSION_UPDATE_FIELD)  # of session/update params, by `Router`


_ROUTERS: weakref.WeakKeyDictionary[ClientSideConnection, Router] = weakref.WeakKeyDictionary()


def router_of(conn: ClientSideConnection) -> Router:
    router = _ROUTERS.get(conn)
    if router is None:
        router = _ROUTERS[conn] = Router(conn)
    return router


def connection_of(conn: object, side: type, what: str) -> Any:
    """`conn` as the connection of the side it must be (a clear error naming `what` otherwise)."""
    if not isinstance(conn, side):
        raise TypeError(f"{what} needs {side.__name__}, not {type(conn).__name__}")
    return conn


def params_of(conn: Connection[Any], method: str, data: dict[str, Any]) -> Any:
    """The typed params of `method` from wire-shaped data (Structs inside are fine)."""
    schema = conn.schema
    return wire.build(schema, data, schema.METHODS[method].params, method=method, at="params")
