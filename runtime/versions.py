"""One agent or client for several protocol versions, chosen per connection in `initialize`.

    import acp_schema, acp_schema_v2
    from acp_runtime import run_agent
    from acp_runtime.versions import AgentRoute, AgentVersions

    run_agent(AgentVersions(AgentRoute(1, acp_schema, V1), AgentRoute(2, acp_schema_v2, V2)))

Pass an `AgentVersions` (or `ClientVersions` of `ClientRoute`s) where a handler goes (no
`schema=`: each route names its package), or call its typed `connect(reader, writer)` (and a
client's `spawn(command, *args)`), typed `AgentSideConnection[Any]` / `ClientSideConnection[Any]`:
which package's proxy `conn.client` / `conn.agent` is, is known only once `initialize` is done.

The connection starts bound to one route's package (an agent: its lowest version's, which only
has to read `initialize`; a client: its highest, which it asks for). The version is settled by
`initialize`: an agent takes the one the client asks for when it has a route for it, else its
latest; a client takes the one the agent answers. A client asking for a version the agent has no
route for (a newer one) is answered with the agent's latest, its params read by the newest
package that reads them: the agent cannot know the shape of a version it does not speak, so it
never refuses them for the fields of a version the client did not ask for. From then on the
connection is bound to that version's package (its codec, method tables, rules, proxy) and
serves that version's handler, built then with the connection (a class or function taking it),
so `conn.client` / `conn.agent` and `conn.schema` are already that version's. Nothing about a
connection is re-routed after its first `initialize`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Generic, TypeVar, cast

from .protocol.agent import AgentSideConnection
from .protocol.client import ClientSideConnection
from .protocol.connection import AgentRoutes, ClientRoutes, Route, Routes
from .stdio import spawn_agent

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from typing_extensions import Unpack

    from .jsonrpc.framing import ByteReader, ByteWriter
    from .jsonrpc.package import AgentPackage, ClientPackage
    from .protocol.connection import ConnectionOptions

__all__ = ["AgentRoute", "AgentVersions", "ClientRoute", "ClientVersions", "Route", "Routes"]

ProxyT = TypeVar("ProxyT")
HandlerT = TypeVar("HandlerT")


class AgentRoute(Route, Generic[ProxyT, HandlerT], frozen=True):
    """An agent's route: `schema` an agent package, `handler` its `AgentHandler` or a factory taking
    an `AgentSideConnection` of that package (type checkers see the pair as for `schema=`)."""

    if TYPE_CHECKING:

        def __init__(
            self,
            version: int,
            schema: AgentPackage[ProxyT, HandlerT],
            handler: HandlerT | Callable[[AgentSideConnection[ProxyT]], HandlerT],
        ) -> None: ...


class ClientRoute(Route, Generic[ProxyT, HandlerT], frozen=True):
    """A client's route: `schema` a client package, `handler` its `ClientHandler` or a factory
    taking a `ClientSideConnection` of that package."""

    if TYPE_CHECKING:

        def __init__(
            self,
            version: int,
            schema: ClientPackage[ProxyT, HandlerT],
            handler: HandlerT | Callable[[ClientSideConnection[ProxyT]], HandlerT],
        ) -> None: ...


class AgentVersions(AgentRoutes):
    """An agent's routes, one `AgentRoute` per protocol version it serves."""

    def __init__(self, *routes: AgentRoute[Any, Any]) -> None:
        super().__init__(*routes)

    def connect(
        self, reader: ByteReader, writer: ByteWriter, **options: Unpack[ConnectionOptions]
    ) -> AgentSideConnection[Any]:
        """A connection serving these routes (the same as passing them as its handler)."""
        connection = cast("Callable[..., AgentSideConnection[Any]]", AgentSideConnection)
        return connection(self, reader, writer, **options)


class ClientVersions(ClientRoutes):
    """A client's routes, one `ClientRoute` per protocol version it speaks; it asks for its
    latest."""

    def __init__(self, *routes: ClientRoute[Any, Any]) -> None:
        super().__init__(*routes)

    def connect(
        self, reader: ByteReader, writer: ByteWriter, **options: Unpack[ConnectionOptions]
    ) -> ClientSideConnection[Any]:
        """A connection serving these routes (the same as passing them as its handler)."""
        connection = cast("Callable[..., ClientSideConnection[Any]]", ClientSideConnection)
        return connection(self, reader, writer, **options)

    def spawn(
        self, command: str, *args: str, **options: Any
    ) -> AbstractAsyncContextManager[ClientSideConnection[Any]]:
        """`spawn_agent(self, command, *args, **options)`: a client of these routes to an agent
        subprocess (options: those of `spawn_agent` and of a connection)."""
        return spawn_agent(self, command, *args, **options)
