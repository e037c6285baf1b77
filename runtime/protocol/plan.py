"""What a connection derives from its generated package, computed once per package and shared.

Every table a connection reads from its package (the capability guards of each side, the turn
cancels, the answer checks, the out-of-band completions, the v2 shape) is a pure function of the
package and of the connection's side. Working them out reads the package's types through
`msgspec.inspect`, which costs tens of milliseconds; doing it once per package, at the first
connection that uses it, makes every later connection cost a few attribute reads.

`PackagePlan.of(schema)` gives the plan of a package: made at first use (never at import, so
`import acp_runtime` stays as cheap as it was), then kept by the id of the package. Each side's
tables are a `SidePlan`, made the first time a connection of that side binds to the package.
Connections hold the plan's tables by reference and never change them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Mapping

from . import guards, rules

if TYPE_CHECKING:
    from ..jsonrpc.package import MethodInfoLike, Package

    Check = Callable[[Any, Any], "str | None"]
    Guards = Mapping[str, "list[Check]"]

_PLANS: dict[int, tuple[object, PackagePlan]] = {}
"""The plans by id of their package; the package is kept so its id stays its own."""


class SidePlan:
    """The tables one side of a connection reads from its package (a connection made with
    `enforce_protocol=False` reads none of its guards)."""

    def __init__(self, schema: Package, side: str) -> None:
        self.send_guards: Guards = guards.guards_for(schema, side, "send")
        self.receive_guards: Guards = guards.guards_for(schema, side, "receive")
        self.result_guards: Guards = guards.guards_for(schema, side, "result")
        self.turn_cancels: Mapping[str, dict[str, Any]] = rules.turn_cancels_for(schema, side)
        # the handler method of each method this side serves (of no other side, no extension)
        self.request_handlers = _handlers(schema.REQUESTS, schema, side)
        self.notification_handlers = _handlers(schema.NOTIFICATIONS, schema, side)


def _handlers(infos: Mapping[str, MethodInfoLike], schema: Package, side: str) -> dict[str, str]:
    foreign = frozenset(schema.SIDES) - {side}
    return {
        method: info.handler
        for method, info in infos.items()
        if info.side not in foreign and not method.startswith(rules.EXTENSION_PREFIX)
    }


class PackagePlan:
    """Everything a connection derives from one generated package, shared by all its connections.

    The tables that do not depend on the side are made with the plan; each side's (`side(name)`)
    the first time a connection of that side asks.
    """

    def __init__(self, schema: Package) -> None:
        self.schema = schema
        self.requires_initialize = rules.INITIALIZE in schema.METHODS
        self.answer_checks: Mapping[str, Check] = rules.answer_checks_for(schema)
        self.completions: tuple[rules.Completion, ...] = rules.completions_for(schema)
        self.completing = frozenset(m for c in self.completions for m in (c.opener, c.closer))
        # ACP v2 (rules.py, "ACP v2"): turns end in state updates, message updates carry their id;
        # what else differs by version, as data the policy applies without asking which version:
        # the check of both sides' initialize messages, why a method the package lacks is refused,
        # and the check of an agent's initialize answer against its handler
        v2 = self.v2 = rules.turn_ends_by_update(schema)
        self.message_kinds = rules.kinds_requiring(schema, rules.MESSAGE_ID) if v2 else frozenset()
        self.initialize_check = rules.initialize_breaks if v2 else None
        self.removed = rules.removed_surface if v2 else None
        self.promises_check = rules.promises_breaks if v2 else None
        self.sides: dict[str, SidePlan] = {}

    def side(self, side: str) -> SidePlan:
        """The tables of one side ("agent" or "client"), made at its first use."""
        found = self.sides.get(side)
        if found is None:
            found = self.sides[side] = SidePlan(self.schema, side)
        return found

    @staticmethod
    def of(schema: Package) -> PackagePlan:
        """The plan of `schema`: made at its first use, then kept."""
        kept = _PLANS.get(id(schema))
        if kept is None or kept[0] is not schema:
            kept = _PLANS[id(schema)] = (schema, PackagePlan(schema))
        return kept[1]
