"""Protocol version negotiation, below the connection and both sides: the routes by version, the
version an agent answers, and how an `initialize` line is read before a package is chosen.

`acp_runtime.versions` builds the typed, user-facing `AgentVersions` / `ClientVersions` on these;
this module imports nothing of the runtime but its rule names.
"""

from __future__ import annotations

from typing import Any

import msgspec

from ..jsonrpc import peek
from . import rules


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
