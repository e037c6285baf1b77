"""ACP as policy: the protocol rules a connection applies around its JSON-RPC engine.

A connection holds one policy, made for the package (the protocol version) it is bound to and for
its side (`AgentPolicy`, `ClientPolicy`); binding to another package (version negotiation) makes a
new one. The engine knows no ACP method: it calls the policy through a few hooks:

- `before_send(method, params)`: capability guards, initialize first, interactions, session rules;
  returns the params to send (checked and typed by the engine's `checked_params`);
- `sent(method, params)`: a call or notification went out (a cancel ends a turn);
- `received_request(request)` / `received_notification(note)` as a message arrives (False: drop
  the notification), and `notification_step(method)`: what runs before its handler, and which;
- `serve(request)`: the handler's answer to a request, checked (guards, answer checks, sessions),
  and `handle(note)`: a notification's handler (both through the connection's `handle`);
- `on_result(method, params, result)`: the peer's answer to one of our calls, checked and recorded.

What differs between protocol versions comes from the package's plan as data (plan.py): its
tables, its initialize checks, the methods it removed, and its turn rules (turns.py).
"""

from __future__ import annotations

import asyncio
import operator
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Container, Iterable, Mapping, Protocol

from ..jsonrpc import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, wire
from ..jsonrpc.engine import Policy
from ..jsonrpc.errors import (
    CapabilityError,
    ConnectionClosedError,
    NotInitializedError,
    ProtocolError,
    ProtocolVersionError,
)
from . import rules

if TYPE_CHECKING:
    from ..jsonrpc.package import RpcException
    from .plan import PackagePlan


class Served(Protocol):
    """A request a connection is serving, as the policy reads and cancels it."""

    @property
    def method(self) -> str: ...

    @property
    def params(self) -> Any: ...

    answered: bool
    task: asyncio.Task[None] | None
    cancel_result: dict[str, Any] | None

    def cancel(self) -> None: ...


class Host(Protocol):
    """What a policy reads and sets on its connection."""

    side: str
    schema: Any
    handler: object
    initialized: bool
    protocol_version: int | None
    protocol_versions: tuple[int, ...]
    peer_initialize: Any
    own_initialize: Any

    @property
    def serving(self) -> Mapping[Any, Served]: ...

    def checked_params(self, method: str, params: Any) -> Any: ...

    def handle(self, message: Any, *, is_request: bool) -> Awaitable[Any]: ...

    def notification_handler(self, method: str) -> Callable[[Any], Awaitable[Any]] | None: ...

    def rpc_error(self, code: int, message: str, data: Any = ...) -> RpcException: ...

    def shutdown(self, error: ConnectionClosedError) -> None: ...


_NO_GUARDS: Mapping[str, Any] = {}
_TURN_ENDED_BY = rules.TURN_ENDED_BY
_NO_HISTORY_DURING = rules.NO_HISTORY_DURING

_SendCheck = Callable[[str, Any], None]
_SendStep = Callable[[str, Any], Any]  # a check that may replace the params: it returns them
_Answer = Callable[[Any], Awaitable[Any]]
_Served = Callable[[Any, Any], None]
_Step = Callable[[Any], Any]
_ServeSteps = tuple[
    "_Answer | None",
    bool,
    "tuple[Callable[[Any, Any], str | None], ...]",
    bool,
    "Callable[[Any, Any], str | None] | None",
    "_Served | None",
]
_SendSteps = tuple[
    "_SendStep | None",
    "str | None",
    bool,
    "tuple[Callable[[Any, Any], str | None], ...]",
    bool,
    "_SendCheck | None",
]


class AcpPolicy(Policy):
    """The rules both sides apply, from the plan of the connection's package. With
    `enforce=False` none is checked (interactions and turns are still tracked)."""

    def __init__(self, conn: Host, plan: PackagePlan, enforce: bool) -> None:
        self.conn = conn
        self.plan = plan
        self.enforce = enforce
        tables = plan.side(conn.side)
        self.requires_initialize = enforce and plan.requires_initialize
        self.send_guards = tables.send_guards if enforce else _NO_GUARDS
        self.receive_guards = tables.receive_guards if enforce else _NO_GUARDS
        self.result_guards = tables.result_guards if enforce else _NO_GUARDS
        self.turn_cancels = tables.turn_cancels
        self.answer_checks = plan.answer_checks if enforce else _NO_GUARDS
        self.results_read: Container[str] | None = frozenset(self.answer_checks)  # `on_result`'s
        self.completions = plan.completions if enforce else ()
        self.completing = plan.completing if enforce else frozenset()
        self.message_kinds = plan.message_kinds if enforce else frozenset()
        self.removed = plan.removed if enforce else None
        self.open_keys: dict[str, OrderedDict[Any, None]] = {
            c.closer: OrderedDict() for c in self.completions
        }
        self.turns = plan.turns(self._served)
        # the notifications `received_notification` acts on; any other passes untouched
        self.watched = rules.TURN_ENDED_BY | self.completing
        self.requests_watched: Container[str] | None = _TURN_ENDED_BY | self.completing
        self.sends_watched: Container[str] | None = _TURN_ENDED_BY  # `sent`'s
        self.turn_tasks: dict[Any, asyncio.Task[Any]] = {}  # v2 turns running after their answer
        self._send_steps: dict[str, _SendSteps] = {}  # by method, made at its first send
        self._serve_steps: dict[str, _ServeSteps] = {}  # by method, made at its first request

    def _served(self) -> Iterable[Served]:
        return self.conn.serving.values()

    # --- sending ----------------------------------------------------------------------------------

    def before_send(self, method: str, params: Any) -> Any:
        """Check an outgoing call or notification; returns the params to send."""
        steps = self._send_steps.get(method)
        if steps is None:
            steps = self._steps(method)
        before, removed, before_initialize, guards, completing, after = steps
        if before is not None:  # a side's own first step: it may replace the params
            replaced = before(method, params)
            if replaced is not None:
                params = replaced
        if removed is not None:
            raise ProtocolError(f"{method}: {removed}")
        conn = self.conn
        if self.enforce:
            params = conn.checked_params(method, params)
        if not before_initialize and not conn.initialized:
            raise NotInitializedError(f"{method}: initialize has not completed on this connection")
        if guards:
            initialize = conn.peer_initialize
            for check in guards:
                reason = check(params, initialize)
                if reason is not None:
                    raise CapabilityError(method, reason)
        if completing and not self.track_interaction(method, params, sending=True):
            raise ProtocolError(
                f"{method}: it completes an interaction this side never opened on this connection"
            )
        if after is not None:
            after(method, params)
        return params

    def _steps(self, method: str) -> _SendSteps:
        """What `before_send` does with `method` (kept for the package's methods, worked out at
        its first send): the side's checks before the others (`_around`), why it is refused (a
        removed surface), whether it may go before initialize, its guards, whether it completes an
        interaction, and the side's checks of the checked params."""
        removed = self.removed(self.conn.schema, method) if self.removed is not None else None
        before, after = self._around(method)
        steps = (
            before,
            removed,
            not (self.requires_initialize and method not in rules.ALLOWED_BEFORE_INITIALIZE),
            tuple(self.send_guards.get(method, ())),
            method in self.completing,
            after,
        )
        if method in self.conn.schema.METHODS:  # not any name a caller makes up: a bounded table
            self._send_steps[method] = steps
        return steps

    def _around(self, method: str) -> tuple[_SendStep | None, _SendCheck | None]:
        """A side's own checks of an outgoing `method`, before the others (returning the params
        to send instead, or None to keep them) and after them (on the checked params); they raise
        to refuse it."""
        return None, None

    def sent(self, method: str, params: Any) -> None:
        if method in _TURN_ENDED_BY:
            self.cancel_turn(params)

    # --- receiving --------------------------------------------------------------------------------

    def received_request(self, method: str, params: Any) -> None:
        if method in self.completing:
            self.track_interaction(method, params, sending=False)
        if method in _TURN_ENDED_BY:
            self.cancel_turn(params)

    def received_notification(self, method: str, params: Any) -> bool:
        """False: drop it (it completes an interaction unknown or already completed here)."""
        if method not in self.watched:
            return True
        if method in rules.TURN_ENDED_BY:
            self.cancel_turn(params)
            return True
        return self.track_interaction(method, params, sending=False)

    def notification_step(self, method: str) -> tuple[_Step | None, _Step | None]:
        return None, self.conn.notification_handler(method)

    def handle(self, message: Any) -> Awaitable[Any]:
        return self.conn.handle(message, is_request=False)

    # --- serving ----------------------------------------------------------------------------------

    def serve(self, request: Any) -> Awaitable[Any]:
        """The handler's answer to a request, checked against the rules: it is refused at once
        when the rules refuse the request; when nothing is checked of its result, it is the
        handler's own awaitable (no coroutine of ours around it)."""
        method = request.method
        steps = self._serve_steps.get(method)
        if steps is None:
            steps = self._serve_plan(method)
        instead, before_initialize, guards, result_guards, answer_check, after = steps
        if instead is not None:
            return instead(request)
        conn = self.conn
        if not before_initialize and not conn.initialized:
            raise conn.rpc_error(
                INVALID_REQUEST, "Invalid request: initialize must be called first"
            )
        if guards:
            for check in guards:
                reason = check(request.params, conn.own_initialize)
                if reason is not None:
                    raise conn.rpc_error(INVALID_PARAMS, "Invalid params", {"message": reason})
        answer = conn.handle(request, is_request=True)
        if not result_guards and answer_check is None and after is None:
            return answer
        return self._checked(request, answer, steps)

    async def _checked(self, request: Any, answer: Awaitable[Any], steps: _ServeSteps) -> Any:
        """The handler's result, checked: its guards, its fit to the request, the side's own."""
        _, _, _, result_guards, answer_check, after = steps
        result = await answer
        if result_guards:
            self.check_result(request.method, result)
        reason = answer_check(request.params, result) if answer_check is not None else None
        if reason is not None:
            raise CapabilityError(
                request.method, f"the handler's result does not fit the request: {reason}"
            )
        if after is not None:
            after(request, result)
        return result

    def _serve_plan(self, method: str) -> _ServeSteps:
        """What `serve` does with a request of `method` (kept for the package's methods): the
        side's own answer instead (`_serve_around`), whether it may come before initialize, its
        guards, whether its result has guards, its answer check, and the side's bookkeeping of a
        result that passed."""
        instead, after = self._serve_around(method)
        steps = (
            instead,
            not (self.requires_initialize and method not in rules.ALLOWED_BEFORE_INITIALIZE),
            tuple(self.receive_guards.get(method, ())),
            bool(self.result_guards.get(method)),
            self.answer_checks.get(method),
            after,
        )
        if method in self.conn.schema.METHODS:  # not any name a peer makes up: a bounded table
            self._serve_steps[method] = steps
        return steps

    def _serve_around(self, method: str) -> tuple[_Answer | None, _Served | None]:
        """A side's own answer to a request of `method` instead of its handler's, and its
        bookkeeping of a result that passed every check (it raises to refuse it)."""
        return None, None

    def check_result(self, method: str, result: Any) -> None:
        for check in self.result_guards.get(method, ()):
            reason = check(result, self.conn.peer_initialize)
            if reason is not None:
                raise CapabilityError(
                    method, f"the handler's result breaks a protocol rule: {reason}"
                )

    # --- answers to our calls ---------------------------------------------------------------------

    def on_result(self, method: str, params: Any, result: Any) -> Any:
        """A peer's result that does not fit the request it answers fails the call (-32603)."""
        answer_check = self.answer_checks.get(method)
        reason = answer_check(params, result) if answer_check is not None else None
        if reason is not None:
            raise self.conn.rpc_error(
                INTERNAL_ERROR, f"Invalid result: {reason}", {"message": reason}
            )
        return result

    # --- interactions and turns -------------------------------------------------------------------

    def track_interaction(self, method: str, params: Any, *, sending: bool) -> bool:
        """Open and complete out-of-band interactions (`rules.COMPLETIONS`); False for a completion
        of one not open here (sent: refused; received: ignored, and a received one completes once).
        """
        if method not in self.completing:
            return True
        for c in self.completions:
            keys = self.open_keys[c.closer]
            if method == c.opener and wire.get(params, c.tag) == c.value:
                keys[wire.get(params, c.key)] = None
                while len(keys) > 4096:
                    keys.popitem(last=False)
            elif method == c.closer:
                key = wire.get(params, c.key)
                if key not in keys:
                    return False
                if not sending:
                    del keys[key]
        return True

    def cancel_turn(self, params: Any) -> None:
        """`session/cancel` passed: cancel this side's running handlers of that session's turn."""
        session_id = wire.get(params, rules.SESSION_ID)
        self.turns.cancelled(session_id)
        turn = self.turn_tasks.get(session_id)
        if turn is not None:  # a v2 turn running after its answer (helpers.AgentSession.turn)
            turn.cancel()
        if not self.turn_cancels:
            return
        for serving in list(self._served()):
            result = self.turn_cancels.get(serving.method)
            if result is not None and wire.get(serving.params, rules.SESSION_ID) == session_id:
                serving.cancel_result = result
                serving.cancel()

    def track_turn(self, session_id: Any, task: asyncio.Task[Any]) -> None:
        """A v2 turn of `session_id` runs in `task` after its prompt was answered."""
        self.turn_tasks[session_id] = task

        def done(task: asyncio.Task[Any]) -> None:
            if self.turn_tasks.get(session_id) is task:
                del self.turn_tasks[session_id]

        task.add_done_callback(done)
        if self.turns.is_cancelling(session_id):  # the cancel came before the turn's work started
            task.cancel()


class AgentHost(Host, Protocol):
    client_info: Any
    policy: AcpPolicy

    def route_to(self, version: int) -> None: ...


class AgentPolicy(AcpPolicy):
    """The agent's rules: initialize answered by the runtime, unique session ids, the turn rules,
    no history while a session is resumed."""

    conn: AgentHost

    def __init__(self, conn: AgentHost, plan: PackagePlan, enforce: bool) -> None:
        super().__init__(conn, plan, enforce)
        self.sessions_known: set[Any] = set()  # ids of the sessions created, named or listed here
        self.resumes_came = False  # whether a session/resume ever came (`no_history` looks then)
        self.requests_watched = _TURN_ENDED_BY | self.completing | {_NO_HISTORY_DURING}

    def _around(self, method: str) -> tuple[_SendStep | None, _SendCheck | None]:
        if method != rules.SESSION_UPDATE:
            return None, None
        before = self.message_id_given if self.message_kinds else None
        if self.turns.tracked:
            after: _SendCheck | None = self.update_fits
        else:  # v1: no turn to track; no history to check before a session/resume came (it
            # passes every update then, see `received_request`: no call per update)
            after = self.no_history if self.enforce and self.resumes_came else None
        return before, after

    def message_id_given(self, method: str, params: Any) -> None:
        """v2: a message chunk or update carries the id of its message."""
        reason = rules.missing_message_id(params, self.message_kinds)
        if reason is not None:
            raise ProtocolError(f"{method}: {reason}")

    def update_fits(self, method: str, params: Any) -> None:
        """An outgoing `session/update` keeps the turn lifecycle (v2) and sends no history to a
        session being resumed (33)."""
        turns = self.turns
        if turns.tracked:
            reason = turns.update_breaks(params)
            if reason is not None and self.enforce:
                raise ProtocolError(f"{method}: {reason}")
            if reason is None or not self.enforce:
                turns.update_sent(params)
        if self.enforce:
            self.no_history(method, params)

    def received_request(self, method: str, params: Any) -> None:
        if method == _NO_HISTORY_DURING and not self.resumes_came:
            self.resumes_came = True
            self._send_steps.clear()  # `_around`: session/update now checks `no_history`
        AcpPolicy.received_request(self, method, params)  # (no `super()` object per request)

    def no_history(self, method: str, params: Any) -> None:
        """33: no history goes to a session while its session/resume is served."""
        if not self.resumes_came:  # none came on this connection, so none is served
            return
        serving = self.conn.serving
        if not serving:
            return
        for served in serving.values():  # a loop, not `any`: no generator per update
            if served.method == _NO_HISTORY_DURING:
                break
        else:
            return
        if wire.get(params, *rules.UPDATE_KIND) not in rules.HISTORY:
            return
        session_id = wire.get(params, rules.SESSION_ID)
        if any(
            s.method == _NO_HISTORY_DURING and wire.get(s.params, rules.SESSION_ID) == session_id
            for s in self._served()
        ):
            raise ProtocolError(
                f"{method}: session {session_id!r} is being resumed, which replays no history"
            )

    def _serve_around(self, method: str) -> tuple[_Answer | None, _Served | None]:
        if method == rules.INITIALIZE:
            return self.initialize, None
        sessions = self.enforce and (
            method in rules.SESSION_CREATED_BY
            or method in rules.SESSION_NAMED_BY
            or method in rules.SESSIONS_LISTED_BY
        )
        turn = method == rules.SESSION_PROMPT and self.turns.tracked
        return None, self.answered if sessions or turn else None

    def answered(self, request: Any, result: Any) -> None:
        """A request's result passed: a session id is unique per connection (24); a prompt's
        answer may leave its turn open (v2)."""
        if self.enforce:  # 24: a unique session id, per connection
            reason = rules.reused_session_id(
                request.method, request.params, result, self.sessions_known
            )
            if reason is not None:
                raise ProtocolError(
                    f"{request.method}: {reason}; each session gets a unique id"
                    " (ACP v1 requirement 24)"
                )
            self.sessions_known.update(
                rules.sessions_known_after(request.method, request.params, result)
            )
        if request.method == rules.SESSION_PROMPT:  # the turn may go on after it (v2)
            self.turns.prompt_answered(request.params, result)

    async def initialize(self, request: Any) -> Any:
        conn = self.conn
        params = request.params
        requested = wire.get(params, rules.PROTOCOL_VERSION)
        versions = conn.protocol_versions
        version = requested if requested in versions else versions[-1]
        conn.route_to(version)  # not routed by the message (never for a valid one): as chosen
        policy = conn.policy
        assert isinstance(policy, AgentPolicy)
        return await policy.answer_initialize(request, version)

    async def answer_initialize(self, request: Any, version: int) -> Any:
        conn = self.conn
        conn.protocol_version = version
        conn.peer_initialize = request.params
        conn.client_info = rules.info_of(request.params, "client")
        schema = conn.schema
        try:
            result = await conn.handle(request, is_request=True)
        except schema.RpcError as err:
            if err.code != METHOD_NOT_FOUND:
                raise
            result = None
        if self.enforce:
            promises = self.plan.promises_check
            reason = next((r for c in self.plan.initialize_checks if (r := c(result))), None)
            if reason is None and promises is not None:
                reason = promises(result, conn.handler, schema.AgentHandler, schema)
            if reason is not None:
                raise ProtocolError(f"{rules.INITIALIZE}: the handler's answer breaks {reason}")
        if result is None:
            info = schema.REQUESTS[rules.INITIALIZE]
            result = wire.build(schema, {rules.PROTOCOL_VERSION: version}, info.result)
        else:
            result = wire.replace(result, rules.PROTOCOL_VERSION, version)
        self.check_result(rules.INITIALIZE, result)
        conn.own_initialize = result
        conn.initialized = True
        return result


_SESSION_SET_UP_BY = rules.SESSION_CREATED_BY | rules.SESSION_OPENED_BY
_RESULTS_READ = (
    _SESSION_SET_UP_BY | rules.OFFERS_SET_BY | rules.SESSION_CLOSED_BY | {rules.INITIALIZE}
)  # the methods whose results `ClientPolicy.on_result` records


def _update_of(params: Any) -> Any:
    return wire.get(params, rules.SESSION_UPDATE_FIELD)


_SESSION_UPDATE = rules.SESSION_UPDATE
_OFFERING: dict[type, bool] = {}  # type of a session update -> whether it declares an offer


class ClientHost(Host, Protocol):
    agent_info: Any
    sessions: dict[Any, dict[str, Any]]
    on_session_update: Any
    versions: object

    def route_to(self, version: int) -> None: ...

    def typed_answer(self, method: str, result: Any) -> Any: ...


class ClientPolicy(AcpPolicy):
    """The client's rules: the version asked for and the one answered, sessions set up here, what
    the agent offered for each."""

    conn: ClientHost

    def __init__(self, conn: ClientHost, plan: PackagePlan, enforce: bool) -> None:
        super().__init__(conn, plan, enforce)
        # session/update params of the package's type: their update read by attribute
        info = plan.schema.NOTIFICATIONS.get(rules.SESSION_UPDATE)
        attr = wire.attribute(info.params, rules.SESSION_UPDATE_FIELD) if info else None
        self.update_type = info.params if info is not None and attr is not None else None
        self.read_update: Callable[[Any], Any] = (
            operator.attrgetter(attr) if attr is not None else _update_of
        )
        self.results_read = _RESULTS_READ | frozenset(self.answer_checks)  # `on_result`'s

    def initializing(self, method: str, params: Any) -> Any:
        """An outgoing initialize (before every other check): the client's checks of it, and the
        params to send, asking for the latest version the client speaks."""
        if self.enforce:
            for check in self.plan.initialize_checks:
                reason = check(params)
                if reason is not None:
                    raise ProtocolError(f"{method}: {reason}")
        conn = self.conn
        params = wire.replace(params, rules.PROTOCOL_VERSION, conn.protocol_versions[-1])
        conn.own_initialize = params
        return params

    def _around(self, method: str) -> tuple[_SendStep | None, _SendCheck | None]:
        """Before every other check, initialize's own (`initializing`). After every other check: a
        call naming a session needs one set up here, and a mode or config value one the agent
        offered for it."""
        if method == rules.INITIALIZE:
            return self.initializing, None
        if not self.enforce:
            return None, None
        required = method in rules.SESSION_REQUIRED_BY
        offered = rules.OFFER_CHECKS.get(method)
        if not required and offered is None:
            return None, None

        def sessions(method: str, params: Any) -> None:
            sessions = self.conn.sessions
            session_id = wire.get(params, rules.SESSION_ID)
            if required and session_id not in sessions:
                raise ProtocolError(
                    f"{method}: session {session_id!r} was not set up on this connection "
                    f"({', '.join(sorted(rules.SESSION_CREATED_BY | rules.SESSION_OPENED_BY))})"
                )
            reason = offered(params, sessions.get(session_id, {})) if offered else None
            if reason is not None:
                raise ProtocolError(f"{method}: {reason}")

        return None, sessions

    def received_notification(self, method: str, params: Any) -> bool:
        if method == _SESSION_UPDATE and self.conn.sessions:
            update = (
                self.read_update(params) if type(params) is self.update_type else _update_of(params)
            )
            offering = _OFFERING.get(type(update))  # by type: `declares_any` depends on no more
            if offering is None:
                offering = _OFFERING[type(update)] = wire.declares_any(update, rules.OFFERS)
            if offering:  # a kind of update that may carry offers (a mode update, say)
                self.remember(wire.get(params, rules.SESSION_ID), update)
        if method not in self.watched:
            return True
        return AcpPolicy.received_notification(self, method, params)

    def notification_step(self, method: str) -> tuple[_Step | None, _Step | None]:
        """Before the handler of a session/update: the connection's `on_session_update` (the
        connection forgets the step when that changes)."""
        fold = self.conn.on_session_update if method == _SESSION_UPDATE else None
        return fold, self.conn.notification_handler(method)

    def remember(self, session_id: Any, source: Any) -> None:
        """Keep what the agent last offered for a session (`rules.OFFERS` fields of `source`)."""
        offers = self.conn.sessions.get(session_id)
        if offers is None or not wire.declares_any(source, rules.OFFERS):
            return
        for key in rules.OFFERS:
            value = wire.get(source, key)
            if value is not None:
                offers[key] = value

    def on_result(self, method: str, params: Any, result: Any) -> Any:
        if method not in _RESULTS_READ and method not in self.answer_checks:
            return result  # a result this side neither checks nor records (say, a prompt's)
        result = super().on_result(method, params, result)
        conn = self.conn
        if method in _SESSION_SET_UP_BY:
            session_id = wire.get(
                result if method in rules.SESSION_CREATED_BY else params, rules.SESSION_ID
            )
            conn.sessions[session_id] = {}
            self.remember(session_id, result)
        elif method in rules.OFFERS_SET_BY:
            self.remember(wire.get(params, rules.SESSION_ID), result)
        elif method in rules.SESSION_CLOSED_BY:
            conn.sessions.pop(wire.get(params, rules.SESSION_ID), None)
        elif method == rules.INITIALIZE:
            return self.initialized(result)
        return result

    def initialized(self, result: Any) -> Any:
        conn = self.conn
        version = wire.get(result, rules.PROTOCOL_VERSION)
        if version not in conn.protocol_versions:
            error = ProtocolVersionError(version, conn.protocol_versions)
            conn.shutdown(ConnectionClosedError(f"connection closed: {error}"))
            raise error
        conn.protocol_version = version
        if conn.versions is not None and type(result) is dict:  # read as JSON to route
            conn.route_to(version)
            result = conn.typed_answer(rules.INITIALIZE, result)
        conn.peer_initialize = result
        conn.agent_info = rules.info_of(result, "agent")
        conn.initialized = True
        return result
