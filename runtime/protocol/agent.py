"""The agent side: serves the generated Agent handler interface and calls the client."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar, overload

from ..jsonrpc import INVALID_PARAMS
from ..jsonrpc.framing import ByteReader, ByteWriter
from . import negotiation
from .connection import Connection, as_rpc_error
from .policy import AgentPolicy

if TYPE_CHECKING:
    from typing_extensions import Unpack

    import acp_schema

    from ..jsonrpc.package import AgentPackage, ClientProxyT, HandlerT, ProxyT
    from .connection import ConnectionOptions

    _Base = Connection[AgentPackage[ClientProxyT, Any]]
else:  # at run time: a plain type variable (type checkers see its default, acp_schema's proxy)
    ClientProxyT = TypeVar("ClientProxyT")
    _Base = Connection


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
    _policy = AgentPolicy
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

        def __init__(
            self,
            handler: object,
            reader: ByteReader,
            writer: ByteWriter,
            *,
            schema: AgentPackage[Any, Any] | None = None,
            **options: Unpack[ConnectionOptions],
        ) -> None: ...

    def _setup(self) -> None:
        self.client: ClientProxyT = self.schema.ClientProxy(self)
        self.client_info: Any = None

    def _bound(self) -> None:
        self.client = self.schema.ClientProxy(self)

    def _screen(self) -> Callable[[bytes], bool] | None:
        return self._route_by if isinstance(self.versions, negotiation.AgentRoutes) else None

    def _route_by(self, line: bytes) -> bool:
        """A received line while the connection is not routed: its initialize routes it. True:
        the line was taken here (an initialize asking for a version this agent does not speak)."""
        assert isinstance(self.versions, negotiation.AgentRoutes)
        if self._routed:
            self.screen = None  # the engine reads the next lines itself
            return False
        requested = negotiation.requested_version(line)
        if type(requested) is not int:
            return False
        self._route(self.versions.choose(requested))
        self.screen = None
        if requested in self.versions.routes:
            return False
        self._receive_newer_initialize(line)
        return True

    def _receive_newer_initialize(self, line: bytes) -> None:
        """An initialize asking for a version this agent does not speak: answered with its latest
        version, the params read in any shape of a version it speaks that fits them (its latest
        first); -32602 naming each version's reason when none does."""
        assert self.versions is not None
        message, refusals = negotiation.read_newer_initialize(
            self.versions.routes, self.side, line, lenient=self.lenient
        )
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

    def turn_cancelled(self, session_id: Any) -> bool:
        """Whether a `session/cancel` (or `session/close`) reached the open v2 turn of a session."""
        return self.policy.turns.is_cancelling(session_id)
