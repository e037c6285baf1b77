"""An ACP connection: the JSON-RPC engine (`engine.py`), bound to a generated package, with the
ACP policy of that package's protocol version (`policy.py`) and the handler it serves; the sides
(`agent.py`, `client.py`) add their proxy of the peer. A connection serving several versions
(`versions.py`) is bound again once `initialize` has chosen one.

Version negotiation, below the sides: the routes by version (`Routes`; `acp_runtime.versions`
builds the typed, user-facing `AgentVersions` / `ClientVersions` on them), the version an agent
answers (`chosen`), and how an `initialize` line is read before a package is chosen
(`requested_version`).
"""

from __future__ import annotations

import functools
import importlib
import inspect
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, TypedDict, cast

import msgspec

from ..jsonrpc import peek
from ..jsonrpc.engine import Engine
from ..jsonrpc.framing import ByteReader, ByteWriter
from ..jsonrpc.package import PackageT
from . import rules
from .policy import AcpPolicy, ConnectionState

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ..jsonrpc.tracing import Tracer
    from ..jsonrpc.transport import Transport
    from .guards import PackagePlan


class Route(msgspec.Struct, frozen=True):
    """Protocol version `version` is served by `handler` (an instance, or a class or function
    taking the connection) with the generated package `schema`."""

    version: int
    schema: Any
    handler: Any


class Routes:
    """Routes by protocol version (`acp_runtime.versions` for the sides' typed ones)."""

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


class AgentRoutes(Routes):
    """An agent's routes: it answers the version a client asks for, or its latest (`chosen`)."""


def chosen(requested: Any, versions: tuple[int, ...]) -> int:
    """The version an agent speaking `versions` answers a client asking for `requested` (4-8):
    that one when it speaks it, else its latest."""
    return requested if requested in versions else versions[-1]


class ClientRoutes(Routes):
    """A client's routes: it asks for its latest."""


def requested_version(line: bytes) -> object | None:
    """The `protocolVersion` an `initialize` request on this line asks for; None when the line is
    no initialize request (the bound package then answers it as any other message)."""
    try:
        message = peek(line)
        if message.kind != "request" or message.method != rules.INITIALIZE or not message.params:
            return None
        params = msgspec.json.decode(message.params)
    except (msgspec.DecodeError, RecursionError):
        return None
    if not isinstance(params, dict):
        return None
    version: object = params.get(rules.PROTOCOL_VERSION)
    return version


def default_schema() -> ModuleType:
    """The default generated package, `acp_schema`."""
    return importlib.import_module("acp_schema")


if TYPE_CHECKING:  # typing only: a TypedDict class costs import time

    class EngineOptions(TypedDict, total=False):
        """The keyword options a connection passes on to its engine (`Engine`'s defaults)."""

        max_line_bytes: int
        lenient: bool
        observer: Callable[[str, bytes, Any], None] | None
        tracer: Tracer | None
        timeout: float | None
        max_in_flight: int

    class ConnectionOptions(EngineOptions, total=False):
        """The keyword options of a connection besides `schema` (keep in step with `Connection`)."""

        protocol_versions: tuple[int, ...]
        enforce_protocol: bool


class Connection(Engine[PackageT], ConnectionState):
    """The side-neutral ACP connection; use `AgentSideConnection` or `ClientSideConnection`.

    It is also the `Peer` the generated proxies are bound to: `request(method, params,
    result_type)` and `notify(method, params)`, both checked against the protocol rules first.
    `PackageT` is the type of the generated package driving it (`acp_runtime.jsonrpc.package`).
    """

    side: str  # "agent" or "client": set by the two sides
    policy_class: Callable[[Any, PackagePlan, bool], AcpPolicy]  # the side's rules
    policy: AcpPolicy

    def __init__(
        self,
        handler: object,
        reader: ByteReader | Transport,
        writer: ByteWriter | None,
        *,
        schema: PackageT | None = None,
        protocol_versions: tuple[int, ...] = rules.DEFAULT_PROTOCOL_VERSIONS,
        enforce_protocol: bool = True,
        **options: Unpack[EngineOptions],
    ) -> None:
        # several versions (acp_runtime.versions): bound to one route's package until initialize
        self.versions: Routes | None = handler if isinstance(handler, Routes) else None
        self.routed = self.versions is None
        if self.versions is not None:
            if schema is not None:
                raise TypeError("with several versions, each Route names its package (no schema=)")
            first = self.versions.versions[0 if self.side == "agent" else -1]
            schema = cast(PackageT, self.versions[first].schema)
            protocol_versions = self.versions.versions
        # schema=None means `acp_schema`, which the sides' overloads give as the type's default
        self.protocol_versions = tuple(sorted(protocol_versions))
        self.enforce_protocol = enforce_protocol
        self.protocol_version: int | None = None
        super().__init__(
            reader,
            writer,
            schema if schema is not None else cast(PackageT, default_schema()),
            strict=enforce_protocol,
            **options,
        )
        self.setup_side()
        if self.versions is None:
            self._build_handler(handler)
        self.start_engine()

    def bind(self, schema: PackageT) -> None:
        """Drive this connection by `schema` from now on: its codec, and the policy of its protocol
        version (a connection serving several versions is bound again once `initialize` has
        chosen one, see `acp_runtime.versions`)."""
        from .guards import PackagePlan  # at the first connection, not at import

        super().bind(schema)
        policy = self.policy_class(self, PackagePlan.of(schema), self.enforce_protocol)
        self.policy = policy  # pyright: ignore[reportIncompatibleVariableOverride]  # ACP's
        self.forget_steps()  # `_work`'s dispatch: a new policy or handler
        self.bind_proxy()

    def setup_side(self) -> None:
        """The side's own state and proxy, made before its handler is built (which may use them)."""

    def bind_proxy(self) -> None:
        """The side's proxy for the package it is bound to (again after routing)."""

    def _build_handler(self, handler: object) -> None:
        if isinstance(handler, (type, functools.partial)) or inspect.isroutine(handler):
            handler = handler(self)
        self.handler = handler
        self.forget_steps()  # `_work`'s dispatch: a new policy or handler

    def route(self, version: int) -> None:
        """Serve protocol `version` from now on: its route's package, rules and handler, every
        message read by them (unless the connection is routed already)."""
        if self.versions is None or self.routed:
            return
        route = self.versions[version]
        self.routed = True
        self.screen = self.answer_screen = None  # the sides' reads before routing are over
        self.results_as_json = frozenset()
        if route.schema is not self.schema:
            self.bind(cast(PackageT, route.schema))
        self._build_handler(route.handler)

    @property
    def peer_capabilities(self) -> Any:
        """The capabilities the peer advertised in initialize (None before)."""
        return rules.capabilities_of(self.peer_initialize, rules.PEER[self.side])
