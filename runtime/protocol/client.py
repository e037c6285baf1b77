"""The client side: serves the generated Client handler interface and calls the agent."""

from __future__ import annotations

import asyncio
from typing import (
    TYPE_CHECKING,
    Any,
    AsyncIterator,
    Callable,
    Generic,
    TypeVar,
    overload,
)

import msgspec

from ..jsonrpc import wire
from ..jsonrpc.errors import ConnectionClosedError, ProtocolError
from ..jsonrpc.framing import ByteReader, ByteWriter
from . import rules
from .connection import Connection
from .policy import ClientPolicy

if TYPE_CHECKING:
    from typing_extensions import Unpack

    import acp_schema

    from ..jsonrpc.package import AgentProxyT, ClientPackage, HandlerT, ProxyT
    from .connection import ConnectionOptions

    _Base = Connection[ClientPackage[AgentProxyT, Any]]
else:  # at run time: a plain type variable (type checkers see its default, acp_schema's proxy)
    AgentProxyT = TypeVar("AgentProxyT")
    _Base = Connection


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
    _policy = ClientPolicy
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

        def __init__(
            self,
            handler: object,
            reader: ByteReader,
            writer: ByteWriter,
            *,
            schema: ClientPackage[Any, Any] | None = None,
            **options: Unpack[ConnectionOptions],
        ) -> None: ...

    def _setup(self) -> None:
        self.agent: AgentProxyT = self.schema.AgentProxy(self)
        self.agent_info: Any = None
        # the agent's subprocess, when spawned by `spawn_agent`
        self.process: asyncio.subprocess.Process | None = None
        self.sessions: dict[Any, dict[str, Any]] = {}  # session set up here -> its `rules.OFFERS`
        self._on_session_update: Callable[[Any], None] | None = None
        if not self._routed:  # initialize's result read as JSON: typed by the package of the
            self._read_as_json = frozenset({rules.INITIALIZE})  # version the agent picks

    @property
    def on_session_update(self) -> Callable[[Any], None] | None:
        """Called with each session/update's params in arrival order, just before the handler (the
        session objects of `acp_runtime.session` fold their state here)."""
        return self._on_session_update

    @on_session_update.setter
    def on_session_update(self, fold: Callable[[Any], None] | None) -> None:
        self._on_session_update = fold
        self._steps.clear()  # the engine calls it directly (`ClientPolicy.handling_step`)

    def _bound(self) -> None:
        self.agent = self.schema.AgentProxy(self)

    def _route(self, version: int) -> None:
        super()._route(version)
        self._read_as_json = frozenset()

    async def pages(self, method: str, params: Any = None) -> AsyncIterator[Any]:
        """Each page of a paginated list (`session/list`): the first for `params`, then one per
        `nextCursor`, passed back untouched as the next `cursor`; a page without one is the last."""
        cursor, next_cursor = rules.PAGINATED[method]
        params = (
            params
            if params is not None
            else wire.build(self.schema, {}, self.schema.REQUESTS[method].params)
        )
        while True:
            page = await self.request(method, params)
            yield page
            token = wire.get(page, next_cursor)
            if token is None:
                return
            params = wire.replace(params, cursor, token)

    def _read_answer(self, response: Any) -> Any:
        if not self._routed and isinstance(response, self.schema.Response):
            # route as the answer to initialize is read, so what follows it is read by its package
            try:
                outgoing = self._pending.get(response.id)
            except TypeError:
                outgoing = None
            version = wire.get(response.result, rules.PROTOCOL_VERSION)
            routes = self.versions.routes if self.versions is not None else {}
            if outgoing is not None and outgoing.method == rules.INITIALIZE and version in routes:
                self._route(version)  # the answer in the envelope of its package, as read by it
                response = self.schema.Response(id=response.id, result=response.result)
        return response

    def typed_answer(self, method: str, result: Any) -> Any:
        """A result read as JSON, decoded into the bound package's result type of `method`."""
        try:
            return wire.build(
                self.schema, result, self.schema.REQUESTS[method].result, received=True
            )
        except (msgspec.ValidationError, msgspec.DecodeError) as exc:
            reason = f"the {method} result does not fit protocol version {self.protocol_version}"
            error = ConnectionClosedError(f"connection closed: {reason}: {exc}")
            self.shutdown(error)
            raise ProtocolError(f"{reason}: {exc}") from None
