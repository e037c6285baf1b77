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

from typing import TYPE_CHECKING, Any, Callable, Generic, Mapping, TypeVar, cast

import msgspec

from . import rules

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from typing_extensions import Unpack

    from .agent import AgentSideConnection
    from .client import ClientSideConnection
    from .connection import ConnectionOptions
    from .framing import ByteReader, ByteWriter
    from .package import AgentPackage, ClientPackage

ProxyT = TypeVar("ProxyT")
HandlerT = TypeVar("HandlerT")
ConnectionT = TypeVar("ConnectionT")


class Route(msgspec.Struct, frozen=True):
    """Protocol version `version` is served by `handler` (an instance, or a class or function
    taking the connection) with the generated package `schema`."""

    version: int
    schema: Any
    handler: Any


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


class _Versions(Generic[ConnectionT]):
    """Routes by protocol version (see the module docstring); `ConnectionT` is the side's
    connection."""

    def __init__(self, *routes: Route) -> None:
        if not routes:
            raise ValueError("give at least one Route")
        by_version: dict[int, Route] = {}
        for route in routes:
            if route.version in by_version:
                raise ValueError(f"protocol version {route.version} is routed twice")
            by_version[route.version] = route
        self.routes = dict(sorted(by_version.items()))

    @property
    def versions(self) -> tuple[int, ...]:
        return tuple(self.routes)

    def __getitem__(self, version: int) -> Route:
        return self.routes[version]

    def connect(
        self, reader: ByteReader, writer: ByteWriter, **options: Unpack[ConnectionOptions]
    ) -> ConnectionT:
        """A connection serving these routes (the same as passing them as its handler)."""
        connection = cast("Callable[..., ConnectionT]", self._connection())
        return connection(self, reader, writer, **options)

    def _connection(self) -> type:
        raise NotImplementedError


class AgentVersions(_Versions["AgentSideConnection[Any]"]):
    """An agent's routes, one `AgentRoute` per protocol version it serves."""

    def __init__(self, *routes: AgentRoute[Any, Any]) -> None:
        super().__init__(*routes)

    def _connection(self) -> type:
        from .agent import AgentSideConnection

        return AgentSideConnection

    def choose(self, requested: object) -> int:
        """The version an agent answers a client asking for `requested` (4-8): that one when it
        has a route for it, else its latest."""
        if isinstance(requested, int) and requested in self.routes:
            return requested
        return self.versions[-1]


class ClientVersions(_Versions["ClientSideConnection[Any]"]):
    """A client's routes, one `ClientRoute` per protocol version it speaks; it asks for its
    latest."""

    def __init__(self, *routes: ClientRoute[Any, Any]) -> None:
        super().__init__(*routes)

    def _connection(self) -> type:
        from .client import ClientSideConnection

        return ClientSideConnection

    def spawn(
        self, command: str, *args: str, **options: Any
    ) -> AbstractAsyncContextManager[ClientSideConnection[Any]]:
        """`spawn_agent(self, command, *args, **options)`: a client of these routes to an agent
        subprocess (options: those of `spawn_agent` and of a connection)."""
        from .stdio import spawn_agent

        spawn = cast(
            "Callable[..., AbstractAsyncContextManager[ClientSideConnection[Any]]]", spawn_agent
        )
        return spawn(self, command, *args, **options)


class _InitializePeek(msgspec.Struct):
    """What routing reads of a message before any package decodes it."""

    method: Any = None
    id: Any = msgspec.UNSET
    params: Any = None


def requested_version(line: bytes) -> object | None:
    """The `protocolVersion` an `initialize` request on this line asks for; None when the line is
    no initialize request (the bound package then answers it as any other message)."""
    try:
        peek = msgspec.json.decode(line, type=_InitializePeek)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    if peek.method != rules.INITIALIZE or peek.id is msgspec.UNSET:
        return None
    if not isinstance(peek.params, dict):
        return None
    version: object = peek.params.get(rules.PROTOCOL_VERSION)
    return version


def read_newer_initialize(
    routes: Mapping[int, Route], side: str, line: bytes, *, lenient: bool = False
) -> tuple[Any, list[tuple[int, Any]]]:
    """An `initialize` request asking for a version no route serves, read by the newest route's
    package that can read it: the agent answers with its latest version, and cannot know the shape
    of the version asked for, so it never refuses the params for the fields of a version the client
    did not ask for. Returns the decoded request (its package's envelope), or None and each
    version's `RpcError` (newest first) when no package reads it."""
    refusals: list[tuple[int, Any]] = []
    for version in sorted(routes, reverse=True):
        schema = routes[version].schema
        try:
            return schema.MessageDecoder(side, lenient=lenient).decode(line), []
        except schema.RpcError as err:
            refusals.append((version, err))
        except RecursionError:
            break
    return None, refusals
