"""The client side: serves the generated Client handler interface and calls the agent."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any, AsyncIterator, Callable, Generic, overload

import msgspec

from ..jsonrpc import wire
from ..jsonrpc.calls import Step
from ..jsonrpc.errors import ConnectionClosedError, ProtocolError, ProtocolVersionError
from ..jsonrpc.framing import ByteReader, ByteWriter
from ..jsonrpc.package import AgentProxyT
from . import rules
from .connection import Connection
from .policy import AcpPolicy, SendCheck, SendStep

if TYPE_CHECKING:
    from typing_extensions import Unpack

    import acp_schema

    from ..jsonrpc.package import ClientPackage, HandlerT, ProxyT
    from .connection import ConnectionOptions
    from .guards import PackagePlan

    _Base = Connection[ClientPackage[AgentProxyT, Any]]
else:
    _Base = Connection


_SESSION_SET_UP_BY = rules.SESSION_CREATED_BY | rules.SESSION_OPENED_BY
_RESULTS_READ = (
    _SESSION_SET_UP_BY | rules.OFFERS_SET_BY | rules.SESSION_CLOSED_BY | {rules.INITIALIZE}
)  # the methods whose results `ClientPolicy.on_result` records


_SESSION_UPDATE = rules.SESSION_UPDATE
_OFFERING: dict[type, bool] = {}  # type of a session update -> whether it declares an offer


class ClientPolicy(AcpPolicy):
    """The client's rules: the version asked for and the one answered, sessions set up here, what
    the agent offered for each."""

    def __init__(self, conn: ClientSideConnection[Any], plan: PackagePlan, enforce: bool) -> None:
        super().__init__(conn, conn, plan, enforce)  # the connection is its shared state
        self.conn = conn
        # session/update params of the package's type: their update read by attribute
        info = plan.schema.NOTIFICATIONS.get(rules.SESSION_UPDATE)
        self.update_type = info.params if info is not None else None
        self.read_update = wire.reader(self.update_type, rules.SESSION_UPDATE_FIELD)

    def initializing(self, method: str, params: Any) -> Any:
        """An outgoing initialize (before every other check): the client's checks of it, and the
        params to send, asking for the latest version the client speaks."""
        check = self.plan.initialize_check if self.enforce else None
        reason = check(params) if check is not None else None
        if reason is not None:
            raise ProtocolError(f"{method}: {reason}")
        params = wire.replace(params, rules.PROTOCOL_VERSION, self.conn.protocol_versions[-1])
        self.conn.own_initialize = params
        return params

    def around_send(self, method: str) -> tuple[SendStep | None, SendCheck | None]:
        """Before every other check, initialize's own (`initializing`). After every other check: a
        call naming a session needs one set up here, and a mode or config value one the agent
        offered for it."""
        if method == rules.INITIALIZE:
            return self.initializing, None
        sessions = method in rules.SESSION_REQUIRED_BY or method in rules.OFFER_CHECKS
        return None, self.session_rules if self.enforce and sessions else None

    def session_rules(self, method: str, params: Any) -> None:
        """A call naming a session needs one set up here (68), and a mode or config value one the
        agent offered for it (238, 239)."""
        sessions = self.conn.sessions
        session_id = wire.get(params, rules.SESSION_ID)
        if method in rules.SESSION_REQUIRED_BY and session_id not in sessions:
            raise ProtocolError(
                f"{method}: session {session_id!r} was not set up on this connection "
                f"({', '.join(sorted(_SESSION_SET_UP_BY))})"
            )
        offered = rules.OFFER_CHECKS.get(method)
        reason = offered(params, sessions.get(session_id, {})) if offered else None
        if reason is not None:
            raise ProtocolError(f"{method}: {reason}")

    def received_notification(self, method: str, params: Any) -> bool:
        if method == _SESSION_UPDATE and self.conn.sessions:
            typed = type(params) is self.update_type
            update = (
                self.read_update(params) if typed else wire.get(params, rules.SESSION_UPDATE_FIELD)
            )
            offering = _OFFERING.get(type(update))  # by type: `declares_any` depends on no more
            if offering is None:
                offering = _OFFERING[type(update)] = wire.declares_any(update, rules.OFFERS)
            if offering:  # a kind of update that may carry offers (a mode update, say)
                self.remember(wire.get(params, rules.SESSION_ID), update)
        if method not in self.watched:
            return True
        return AcpPolicy.received_notification(self, method, params)

    def notification_step(self, method: str) -> tuple[Step | None, Step | None]:
        """Before the handler of a session/update: the connection's `on_session_update` (the
        connection forgets the step when that changes)."""
        fold = self.conn.on_session_update if method == _SESSION_UPDATE else None
        return fold, self.notification_handler(method)

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
            conn.route(version)
            info = conn.schema.REQUESTS[rules.INITIALIZE]
            try:
                result = wire.build(conn.schema, result, info.result, received=True)
            except (msgspec.ValidationError, msgspec.DecodeError) as exc:
                reason = f"the initialize result does not fit protocol version {version}"
                conn.shutdown(ConnectionClosedError(f"connection closed: {reason}: {exc}"))
                raise ProtocolError(f"{reason}: {exc}") from None
        conn.peer_initialize = result
        conn.agent_info = rules.info_of(result, "agent")
        conn.initialized = True
        return result


class ClientSideConnection(_Base[AgentProxyT], Generic[AgentProxyT]):
    """A client's end of a connection.

    `handler` serves what the client receives: an object with the generated `ClientHandler`
    methods (`session_update(params)`, `session_request_permission(params)` ...), plus
    `ext_method` / `ext_notification` for `_` extensions; a class or function is built with this
    connection. `conn.agent` is the generated `AgentProxy`.

    Call `await conn.agent.initialize(params)` first: the runtime puts the latest of
    `protocol_versions` into the request, records the agent's capabilities from the answer, and
    raises `ProtocolVersionError` (closing the connection) when the agent chose a version this
    client does not speak. Calls the agent did not advertise (session/load without loadSession,
    session/list|resume|close|delete|fork without sessionCapabilities.*, logout without
    auth.logout, prompt content beyond promptCapabilities, http/sse MCP servers beyond
    mcpCapabilities, relative paths) raise `CapabilityError` and send nothing, and so does a
    session/prompt for a session not set up on this connection, or a mode or config value the
    agent did not offer for it (`ProtocolError`), unless `enforce_protocol=False`. Sending
    `session/cancel` (or `session/close`) answers the pending `session/request_permission`
    requests of that session with the cancelled outcome. `pages` walks a paginated list.

    Typed: `conn.agent` is the package's `AgentProxy` (`ClientSideConnection` alone means
    `acp_schema`'s; `ClientSideConnection[my_acp.AgentProxy]` another package's, inferred from
    `schema=my_acp`), and the handler is an instance of the package's `ClientHandler` or a factory
    taking this connection and returning one.
    """

    side = "client"
    peer_side = "agent"
    policy_class = ClientPolicy
    policy: ClientPolicy  # pyright: ignore[reportIncompatibleVariableOverride]  # its side's
    stderr_tail: bytes  # the last 64 KiB of the agent's stderr, when `spawn_agent` captures it

    if TYPE_CHECKING:

        @overload
        def __init__(
            self: ClientSideConnection[acp_schema.AgentProxy],
            handler: (
                acp_schema.ClientHandler
                | Callable[[ClientSideConnection[acp_schema.AgentProxy]], acp_schema.ClientHandler]
            ),
            reader: ByteReader,
            writer: ByteWriter,
            *,
            schema: None = None,
            **options: Unpack[ConnectionOptions],
        ) -> None: ...

        @overload
        def __init__(
            self: ClientSideConnection[ProxyT],
            handler: HandlerT | Callable[[ClientSideConnection[ProxyT]], HandlerT],
            reader: ByteReader,
            writer: ByteWriter,
            *,
            schema: ClientPackage[ProxyT, HandlerT],
            **options: Unpack[ConnectionOptions],
        ) -> None: ...

        def __init__(self, *args: Any, **options: Any) -> None: ...  # `Connection.__init__`

    def setup_side(self) -> None:
        self.agent_info: Any = None
        # the agent's subprocess, when spawned by `spawn_agent`
        self.process: asyncio.subprocess.Process | None = None
        self.sessions: dict[Any, dict[str, Any]] = {}  # session set up here -> its `rules.OFFERS`
        self._on_session_update: Callable[[Any], None] | None = None
        if not self.routed:  # initialize's result read as JSON: typed by the package of the
            self.results_as_json = frozenset({rules.INITIALIZE})  # version the agent picks
            self.answer_screen = self._route_by

    @property
    def on_session_update(self) -> Callable[[Any], None] | None:
        """Called with each session/update's params in arrival order, just before the handler (the
        session objects of `acp_runtime.session` fold their state here)."""
        return self._on_session_update

    @on_session_update.setter
    def on_session_update(self, fold: Callable[[Any], None] | None) -> None:
        self._on_session_update = fold
        self.forget_steps()  # the engine calls it directly (`ClientPolicy.notification_step`)

    def bind_proxy(self) -> None:
        self.agent: AgentProxyT = self.schema.AgentProxy(self)

    async def pages(self, method: str, params: Any = None) -> AsyncIterator[Any]:
        """Each page of a paginated list (`session/list`): the first for `params`, then one per
        `nextCursor`, passed back untouched as the next `cursor`; a page without one is the last."""
        cursor, next_cursor = rules.PAGINATED[method]
        if params is None:
            params = wire.build(self.schema, {}, self.schema.REQUESTS[method].params)
        while True:
            page = await self.request(method, params)
            yield page
            token = wire.get(page, next_cursor)
            if token is None:
                return
            params = wire.replace(params, cursor, token)

    def _route_by(self, response: Any) -> Any:
        """An answer while the connection is not routed: the answer to initialize routes it."""
        if not self.routed and isinstance(response, self.schema.Response):
            # route as the answer to initialize is read, so what follows it is read by its package
            version = wire.get(response.result, rules.PROTOCOL_VERSION)
            routes = self.versions.routes if self.versions is not None else {}
            call = self.pending.get(response.id)
            if call is not None and call.method == rules.INITIALIZE and version in routes:
                self.route(version)  # the answer in the envelope of its package, as read by it
                response = self.schema.Response(id=response.id, result=response.result)
        return response
