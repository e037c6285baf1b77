"""The agent side: serves the generated Agent handler interface and calls the client."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, Callable, Generic, overload

from ..jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, wire
from ..jsonrpc.engine import as_rpc_error
from ..jsonrpc.errors import ProtocolError
from ..jsonrpc.framing import ByteReader, ByteWriter
from ..jsonrpc.package import ClientProxyT
from . import rules
from .connection import AgentRoutes, Connection, Route, chosen, requested_version
from .policy import AcpPolicy, AfterServe, Answer, SendCheck, SendStep

if TYPE_CHECKING:
    from typing_extensions import Unpack

    import acp_schema

    from ..jsonrpc.package import AgentPackage, HandlerT, ProxyT
    from .connection import ConnectionOptions
    from .guards import PackagePlan

    _Base = Connection[AgentPackage[ClientProxyT, Any]]
else:
    _Base = Connection


class AgentPolicy(AcpPolicy):
    """The agent's rules: initialize answered by the runtime, unique session ids, the turn rules,
    no history while a session is resumed.

    In ACP v2 a turn ends in a `state_update` to idle after the prompt's answer: the policy
    refuses the updates that break that lifecycle, and cancels a turn still running after its
    answer (`track_turn`) when `session/cancel` reaches it."""

    def __init__(self, conn: AgentSideConnection[Any], plan: PackagePlan, enforce: bool) -> None:
        super().__init__(conn, conn, plan, enforce)  # the connection is its shared state
        self.conn = conn
        self.sessions_known: set[Any] = set()  # ids of the sessions created, named or listed here
        self.resumes_came = False  # whether a session/resume ever came (`no_history` looks then)
        self.requests_watched = rules.TURN_ENDED_BY | self.completing | {rules.NO_HISTORY_DURING}
        # v2: session -> the user messageId its prompt answer acknowledged; the sessions whose turn
        # is open (answered, no idle yet); those of them a session/cancel has reached; the turns
        # running after their answer (helpers.AgentSession.turn)
        self.acknowledged: dict[Any, Any] = {}
        self.open: set[Any] = set()
        self.cancelling: set[Any] = set()
        self.turn_tasks: dict[Any, asyncio.Task[Any]] = {}

    def around_send(self, method: str) -> tuple[SendStep | None, SendCheck | None]:
        if method != rules.SESSION_UPDATE:
            return None, None
        before = self.message_id_given if self.message_kinds else None
        if self.plan.v2:
            after: SendCheck | None = self.update_fits
        else:  # v1: no turn to track; no history to check before a session/resume came (it
            # passes every update then, see `received_request`: no call per update)
            after = self.no_history if self.enforce and self.resumes_came else None
        return before, after

    def message_id_given(self, method: str, params: Any) -> Any:
        """v2: a message chunk or update carries the id of its message (its params go on)."""
        reason = rules.missing_message_id(params, self.message_kinds)
        if reason is not None:
            raise ProtocolError(f"{method}: {reason}")
        return params

    def update_fits(self, method: str, params: Any) -> None:
        """An outgoing `session/update` (v2): refused when it breaks the turn lifecycle or sends
        history to a session being resumed (33); the acknowledged user message is reported, an
        idle state ends the turn."""
        session_id = wire.get(params, rules.SESSION_ID)
        update = wire.get(params, rules.SESSION_UPDATE_FIELD)
        kind = wire.get(update, rules.UPDATE_KIND[1])
        idle = kind == rules.STATE_UPDATE and wire.get(update, rules.STATE) == rules.IDLE
        reason = self.breaks(session_id, update, kind, idle) if self.enforce else None
        if reason is not None:
            raise ProtocolError(f"{method}: {reason}")
        if kind in rules.USER_MESSAGE_KINDS:
            self.acknowledged.pop(session_id, None)
        elif idle:
            self.open.discard(session_id)
            self.cancelling.discard(session_id)
        if self.enforce:
            self.no_history(method, params)

    def breaks(self, session_id: Any, update: Any, kind: Any, idle: bool) -> str | None:
        """Why an update of a session breaks the turn lifecycle, or None."""
        if kind in rules.USER_MESSAGE_KINDS and session_id in self.acknowledged:
            expected = self.acknowledged[session_id]
            if wire.get(update, rules.MESSAGE_ID) != expected:
                return rules.v2_rule(
                    "user-message",
                    f"the turn's user message is {expected!r}, as the prompt answer acknowledged",
                )
        if not idle:
            return None
        if self.prompt_served(session_id, unanswered=True):
            return rules.v2_rule(
                "prompt-acknowledges",
                "the turn ends after the session/prompt answer, which only acknowledges it",
            )
        stop = wire.get(update, rules.STOP_REASON)
        if session_id in self.cancelling and stop != rules.CANCELLED:
            return rules.v2_rule(
                "cancel-confirmed",
                f"after session/cancel the turn ends idle with stopReason cancelled, not {stop!r}",
            )
        return None

    def prompt_served(self, session_id: Any, *, unanswered: bool = False) -> bool:
        prompts = self.serving_in(rules.SESSION_PROMPT, session_id)
        return any(not (unanswered and s.answered) for s in prompts)

    def received_request(self, method: str, params: Any) -> None:
        if method == rules.NO_HISTORY_DURING and not self.resumes_came:
            self.resumes_came = True
            self._send_steps.clear()  # `around_send`: session/update now checks `no_history`
        AcpPolicy.received_request(self, method, params)  # (no `super()` object per request)

    def no_history(self, method: str, params: Any) -> None:
        """33: no history goes to a session while its session/resume is served."""
        if not self.resumes_came or wire.get(params, *rules.UPDATE_KIND) not in rules.HISTORY:
            return
        session_id = wire.get(params, rules.SESSION_ID)
        if self.serving_in(rules.NO_HISTORY_DURING, session_id):
            raise ProtocolError(
                f"{method}: session {session_id!r} is being resumed, which replays no history"
            )

    def around_serve(self, method: str) -> tuple[Answer | None, AfterServe | None]:
        if method == rules.INITIALIZE:
            return self.initialize, None
        sessions = self.enforce and method in rules.SESSIONS_KNOWN_BY
        turn = method == rules.SESSION_PROMPT and self.plan.v2
        return None, self.answered if sessions or turn else None

    def answered(self, request: Any, result: Any) -> None:
        """A request's result passed: a session id is unique per connection (24); a prompt's
        answer leaves its turn open (v2)."""
        method, params, known = request.method, request.params, self.sessions_known
        if self.enforce:  # 24: a unique session id, per connection (see rules.SESSION_NAMED_BY)
            named = wire.get(params, rules.SESSION_ID) if method in rules.SESSION_NAMED_BY else None
            if method in rules.SESSION_CREATED_BY:
                created = wire.get(result, rules.SESSION_ID)
                if created in known or (named is not None and created == named):
                    raise ProtocolError(
                        f"{method}: the handler answered the session id {created!r}, which names"
                        " a session already known here; each session gets a unique id (ACP v1"
                        " requirement 24)"
                    )
                known.add(created)
            if method in rules.SESSION_NAMED_BY:
                known.add(named)
            if method in rules.SESSIONS_LISTED_BY:
                known.update(wire.values(result, rules.SESSIONS_LISTED_BY[method]))
        if method == rules.SESSION_PROMPT and self.plan.v2:  # v2: the turn goes on
            session_id = wire.get(params, rules.SESSION_ID)
            self.acknowledged[session_id] = wire.get(result, rules.MESSAGE_ID)
            self.open.add(session_id)

    def cancel_turn(self, params: Any) -> None:
        """`session/cancel` (or `session/close`) passed: it also reaches an open v2 turn, or one
        a prompt being answered opens, and cancels the turn running after its answer."""
        session_id = wire.get(params, rules.SESSION_ID)
        if self.plan.v2 and (session_id in self.open or self.prompt_served(session_id)):
            self.cancelling.add(session_id)
        turn = self.turn_tasks.get(session_id)
        if turn is not None:
            turn.cancel()
        AcpPolicy.cancel_turn(self, params)

    def track_turn(self, session_id: Any, task: asyncio.Task[Any]) -> None:
        """A v2 turn of `session_id` runs in `task` after its prompt was answered."""
        self.turn_tasks[session_id] = task

        def done(task: asyncio.Task[Any]) -> None:
            if self.turn_tasks.get(session_id) is task:
                del self.turn_tasks[session_id]

        task.add_done_callback(done)
        if session_id in self.cancelling:  # cancelled before its work began
            task.cancel()

    async def initialize(self, request: Any) -> Any:
        """The version asked for if this agent speaks it, else its latest (4-8), answered by the
        policy of that version's package (routed by it, if the message did not route it)."""
        conn = self.conn
        version = chosen(wire.get(request.params, rules.PROTOCOL_VERSION), conn.protocol_versions)
        conn.route(version)
        return await conn.policy.answer_initialize(request, version)

    async def answer_initialize(self, request: Any, version: int) -> Any:
        conn = self.conn
        conn.protocol_version = version
        conn.peer_initialize = request.params
        conn.client_info = rules.info_of(request.params, "client")
        schema: Any = self.plan.schema
        try:
            result = await self.dispatch(request, is_request=True)
        except schema.RpcError as err:
            if err.code != METHOD_NOT_FOUND:
                raise
            result = None
        if self.enforce:
            check, promises = self.plan.initialize_check, self.plan.promises_check
            reason = check(result) if check is not None else None
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


class AgentSideConnection(_Base[ClientProxyT], Generic[ClientProxyT]):
    """An agent's end of a connection.

    `handler` serves what the agent receives: an object with the generated `AgentHandler` methods
    (`session_prompt(params)` ...), plus `ext_method(name, params)` / `ext_notification(name,
    params)` for `_` extensions. Pass a class or a function instead to have it built with this
    connection as its only argument, so it can keep `conn.client`, the generated `ClientProxy`.

    Typed: `conn.client` is the package's `ClientProxy` (`AgentSideConnection` alone means
    `acp_schema`'s; `AgentSideConnection[my_acp.ClientProxy]` another package's, inferred from
    `schema=my_acp`), and the handler is an instance of the package's `AgentHandler` or a factory
    taking this connection and returning one.

    `initialize` is answered by the runtime's rules around the handler: the protocol version is
    negotiated from `protocol_versions` (the requested one if supported, else the latest) and
    written into the handler's response; a handler that does not implement `initialize` gets a
    response with the version alone. Until initialize has been answered, other requests get
    -32600. Calls to the client are refused locally (`CapabilityError`, nothing sent) when the
    client did not advertise them (fs/*, terminal/*, elicitation modes) or a path is relative, and
    so is history sent to a session while its session/resume is served (`ProtocolError`); a
    session/new or session/fork answering the id of a session already created, loaded, resumed,
    forked or listed on this connection is answered -32603 (uniqueness across connections is the
    application's). `enforce_protocol=False` turns every such rule off.
    """

    side = "agent"
    peer_side = "client"
    policy_class = AgentPolicy
    policy: AgentPolicy  # pyright: ignore[reportIncompatibleVariableOverride]  # its side's

    if TYPE_CHECKING:

        @overload
        def __init__(
            self: AgentSideConnection[acp_schema.ClientProxy],
            handler: (
                acp_schema.AgentHandler
                | Callable[[AgentSideConnection[acp_schema.ClientProxy]], acp_schema.AgentHandler]
            ),
            reader: ByteReader,
            writer: ByteWriter,
            *,
            schema: None = None,
            **options: Unpack[ConnectionOptions],
        ) -> None: ...

        @overload
        def __init__(
            self: AgentSideConnection[ProxyT],
            handler: HandlerT | Callable[[AgentSideConnection[ProxyT]], HandlerT],
            reader: ByteReader,
            writer: ByteWriter,
            *,
            schema: AgentPackage[ProxyT, HandlerT],
            **options: Unpack[ConnectionOptions],
        ) -> None: ...

        def __init__(self, *args: Any, **options: Any) -> None: ...  # `Connection.__init__`

    def setup_side(self) -> None:
        self.client_info: Any = None
        if isinstance(self.versions, AgentRoutes):  # the first lines read here
            self.screen = self._route_by

    def bind_proxy(self) -> None:
        self.client: ClientProxyT = self.schema.ClientProxy(self)

    def _route_by(self, line: bytes) -> bool:
        """A received line while the connection is not routed: its initialize routes it. True:
        the line was taken here (an initialize asking for a version this agent does not speak)."""
        assert isinstance(self.versions, AgentRoutes)
        requested = requested_version(line)
        if type(requested) is not int:
            return False
        self.route(chosen(requested, self.protocol_versions))  # no screen from now on
        if requested in self.versions.routes:
            return False
        self._receive_newer_initialize(line, self.versions.routes)
        return True

    def _receive_newer_initialize(self, line: bytes, routes: dict[int, Route]) -> None:
        """An initialize asking for a version this agent does not speak: answered with its latest
        version, the params read in any shape of a version it speaks that fits them (its latest
        first); -32602 naming each version's reason when none does. The agent cannot know the shape
        of the version asked for, so it never refuses the params for the fields of a version the
        client did not ask for."""
        message: Any = None
        refusals: list[tuple[int, Any]] = []
        for version, route in reversed(routes.items()):
            schema = route.schema
            try:
                message = schema.MessageDecoder(self.side, lenient=self.lenient).decode(line)
                break
            except schema.RpcError as refused:
                refusals.append((version, refused))
            except RecursionError:
                break
        self.observe("in", line, message)
        if message is not None:
            self.serve(message)
            return
        if not refusals:  # nested too deep for the decoder: as any other message
            self.receive(line)
            return
        why = "; ".join(f"as version {v}: {as_rpc_error(err).message}" for v, err in refusals)
        err = self.rpc_error(
            INVALID_PARAMS,
            f"Invalid params: no protocol version this agent speaks reads them ({why})",
            {str(v): as_rpc_error(e).to_error_object() for v, e in refusals},
        )
        self.send_error_nowait(as_rpc_error(refusals[0][1]).id, err)

    def track_turn(self, session_id: Any, task: asyncio.Task[Any]) -> None:
        """A v2 turn of `session_id` runs in `task` after its prompt was answered: `session/cancel`
        (or `session/close`) of that session cancels it (`helpers.AgentSession.turn` does this)."""
        self.policy.track_turn(session_id, task)

    def turn_cancelled(self, session_id: Any) -> bool:
        """Whether a `session/cancel` (or `session/close`) reached the open v2 turn of a session."""
        return session_id in self.policy.cancelling
