"""Which methods carry each def, and which way it flows: who sends it and who receives it.

For a method received by side S, S receives the params and sends the result; a method received by
`protocol`, `both`, `proxy` (a proxy is an agent to its client and a client to its agent) or any
other side flows both ways. A def reached from several places gets all
their directions. The walk follows the IR (fields, list items, union variants, bases) and also
the raw `$ref`s, so payload defs that the IR flattened into a union still count as reached. Defs
that only the JSON-RPC envelopes use (`Error`, `RequestId`, extension messages) and defs that
nothing uses flow both ways and are carried by no method in particular.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..ir import (
    AliasDef,
    Def,
    ListOf,
    MapOf,
    Method,
    ObjectDef,
    Package,
    Ref,
    TypeExpr,
    UnionDef,
    UnionOf,
)
from ..schema import Schema, ref_target
from .model import ROLES

Flow = tuple[str, str]  # (sender, receiver)
Route = tuple[str, str, str, Flow]  # (method's wire name, its kind, "params" | "result", flow)
BOTH_WAYS: frozenset[Flow] = frozenset({("agent", "client"), ("client", "agent")})


def method_flows(m: Method) -> tuple[frozenset[Flow], frozenset[Flow]]:
    """How a method's params and its result flow."""
    if m.side not in ROLES:
        return BOTH_WAYS, BOTH_WAYS
    caller = next(role for role in ROLES if role != m.side)
    return frozenset({(caller, m.side)}), frozenset({(m.side, caller)})


def method_routes(m: Method) -> frozenset[Route]:
    """Every message a method puts on the wire: its params and its result, each way they flow."""
    params_flows, result_flows = method_flows(m)
    routes = {(m.wire, m.kind, "params", flow) for flow in params_flows}
    if m.result is not None:
        routes |= {(m.wire, m.kind, "result", flow) for flow in result_flows}
    return frozenset(routes)


def routes_of(package: Package) -> frozenset[Route]:
    """Every message the methods of a package put on the wire."""
    return frozenset(route for m in package.methods for route in method_routes(m))


@dataclass(frozen=True)
class Reach:
    flows: Mapping[str, frozenset[Flow]]
    methods: Mapping[str, frozenset[str]]  # wire names
    carried: Mapping[str, frozenset[Route]]  # each method message carrying a def, and its flow

    def flows_of(self, name: str) -> frozenset[Flow]:
        return self.flows.get(name) or BOTH_WAYS

    def flows_through(self, name: str, routes: frozenset[Route]) -> frozenset[Flow]:
        """How a def flows in the messages `routes` only (a method's params or result, of one kind,
        from one role to the other); every way it flows when no method carries it (an envelope's
        def, or an unused one)."""
        if name not in self.carried:
            return self.flows_of(name)
        return frozenset(route[3] for route in self.carried[name] if route in routes)

    def methods_of(self, name: str) -> frozenset[str]:
        return self.methods.get(name, frozenset())


def compute(schema: Schema, package: Package) -> Reach:
    defs = {d.name: d for d in package.defs}
    edges = {name: set(_ir_children(d)) for name, d in defs.items()}
    for name, body in schema.defs.items():
        edges.setdefault(name, set()).update(_raw_refs(body))
    flows: dict[str, set[Flow]] = {}
    methods: dict[str, set[str]] = {}
    carried: dict[str, set[Route]] = {}

    def spread(root: str, how: frozenset[Flow], way: tuple[str, str, str] | None) -> None:
        stack, seen = [root], set()
        while stack:
            name = stack.pop()
            if name in seen:
                continue
            seen.add(name)
            flows.setdefault(name, set()).update(how)
            if way is not None:
                methods.setdefault(name, set()).add(way[0])
                carried.setdefault(name, set()).update((*way, flow) for flow in how)
            stack.extend(edges.get(name, ()))

    for m in package.methods:
        params_flows, result_flows = method_flows(m)
        spread(m.params, params_flows, (m.wire, m.kind, "params"))
        if m.result is not None:
            spread(m.result, result_flows, (m.wire, m.kind, "result"))
    for name in _envelope_only(schema, defs):
        spread(name, BOTH_WAYS, None)
    return Reach(
        flows={name: frozenset(f) for name, f in flows.items()},
        methods={name: frozenset(w) for name, w in methods.items()},
        carried={name: frozenset(c) for name, c in carried.items()},
    )


def _envelope_only(schema: Schema, defs: Mapping[str, Def]) -> Iterator[str]:
    """Defs the envelopes (the raw defs the IR leaves out) name that are not methods' own defs."""
    envelopes = [name for name in schema.defs if name not in defs]
    seen = set(envelopes)
    stack = list(envelopes)
    while stack:
        for target in sorted(_raw_refs(schema.defs[stack.pop()])):
            if target in seen:
                continue
            seen.add(target)
            if target not in defs:
                stack.append(target)
            elif "x-method" not in schema.defs[target]:
                yield target


def _ir_children(d: Def) -> Iterator[str]:
    if isinstance(d, ObjectDef):
        if d.base:
            yield d.base
        for f in d.fields:
            yield from type_refs(f.type)
    elif isinstance(d, UnionDef):
        yield from (v.type for v in d.variants)
    elif isinstance(d, AliasDef):
        yield from type_refs(d.type)


def type_refs(t: TypeExpr) -> Iterator[str]:
    """The def names a type expression mentions."""
    if isinstance(t, Ref):
        yield t.name
    elif isinstance(t, ListOf):
        yield from type_refs(t.item)
    elif isinstance(t, MapOf):
        yield from type_refs(t.value)
    elif isinstance(t, UnionOf):
        for option in t.options:
            yield from type_refs(option)


def _raw_refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield ref_target(node["$ref"], "")
        for value in node.values():
            yield from _raw_refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _raw_refs(value)
