"""The method table: which defs are requests, responses and notifications, and who receives them.

`x-method` names the wire method and `x-side` the receiving side; whether a def is a request, a
response or a notification is read from the JSON-RPC envelope defs that name it (an object with
`method` + `params` and a required `id` holds requests, without `id` notifications, an object with
`result` holds responses). Revisions whose envelopes are bare lists of refs say it only in the
`...Request` / `...Response` / `...Notification` suffix of the names, which is the last resort.
"""

from __future__ import annotations

from typing import Any, Iterator

from . import naming
from .errors import SchemaError
from .ir import Method, is_unstable
from .schema import Schema, pointer_of, ref_target

_COMBINATORS = ("anyOf", "oneOf", "allOf")
_SUFFIXES = {"Request": "request", "Response": "response", "Notification": "notification"}


def is_envelope(body: dict[str, Any], defs: dict[str, Any]) -> bool:
    """A def that carries no x-method but wraps defs that do (ClientRequest, AgentResponse, ...)."""
    return "x-method" not in body and any(True for _ in _method_refs(body, defs, set(), into_props=True))


def _method_refs(node: Any, defs: dict[str, Any], seen: set[str], into_props: bool) -> Iterator[str]:
    """Method defs reachable from a node through combinators, refs and envelope properties."""
    if not isinstance(node, dict):
        return
    if isinstance(node.get("$ref"), str):
        name = ref_target(node["$ref"], "", defs)
        if "x-method" in defs[name]:
            yield name
        elif name not in seen:
            seen.add(name)
            yield from _method_refs(defs[name], defs, seen, into_props)
    for key in _COMBINATORS:
        for branch in node.get(key, []):
            yield from _method_refs(branch, defs, seen, into_props)
    if into_props:
        for key in ("params", "result"):
            prop = node.get("properties", {}).get(key)
            if prop is not None:
                yield from _method_refs(prop, defs, seen, into_props)


def _envelope_kinds(node: Any, defs: dict[str, Any], required_id: bool, out: dict[str, set[str]]) -> None:
    """Walk one envelope and record the kind of every method def it names."""
    if not isinstance(node, dict):
        return
    props = node.get("properties", {})
    has_id = required_id or "id" in node.get("required", [])
    if "params" in props and "method" in props:
        for name in _method_refs(props["params"], defs, set(), into_props=False):
            out.setdefault(name, set()).add("request" if has_id else "notification")
    if "result" in props:
        for name in _method_refs(props["result"], defs, set(), into_props=False):
            out.setdefault(name, set()).add("response")
    for key in _COMBINATORS:
        for branch in node.get(key, []):
            _envelope_kinds(branch, defs, has_id, out)


def _kinds(defs: dict[str, Any]) -> dict[str, str]:
    found: dict[str, set[str]] = {}
    for body in defs.values():
        if is_envelope(body, defs):
            _envelope_kinds(body, defs, False, found)
    kinds: dict[str, str] = {}
    for name, body in defs.items():
        if "x-method" not in body:
            continue
        seen = found.get(name, set())
        if len(seen) == 1:
            kinds[name] = next(iter(seen))
            continue
        suffix = [kind for suffix, kind in _SUFFIXES.items() if name.endswith(suffix)]
        if len(suffix) == 1 and (not seen or suffix[0] in seen):
            kinds[name] = suffix[0]
            continue
        raise SchemaError(pointer_of(name), "cannot tell whether this def is a request, a response or a notification")
    return kinds


def collect_methods(schema: Schema) -> tuple[Method, ...]:
    """Every method of the schema, in the order its params defs appear."""
    defs = schema.defs
    kinds = _kinds(defs)
    responses: dict[str, str] = {}
    for name, kind in kinds.items():
        if kind == "response":
            wire = defs[name]["x-method"]
            if wire in responses:
                raise SchemaError(pointer_of(name), f"two response defs for {wire!r}: {responses[wire]} and {name}")
            responses[wire] = name
    methods: list[Method] = []
    handlers: dict[str, str] = {}
    for name, kind in kinds.items():
        if kind == "response":
            continue
        body = defs[name]
        wire, side = body["x-method"], body.get("x-side")
        if not isinstance(wire, str) or not isinstance(side, str):
            raise SchemaError(pointer_of(name), "x-method and x-side must be strings")
        result = responses.get(wire) if kind == "request" else None
        if kind == "request" and result is None:
            raise SchemaError(pointer_of(name), f"request {wire!r} has no response def")
        doc = body.get("description", "").strip()
        methods.append(Method(wire, side, kind, name, result, naming.snake(wire), doc, is_unstable(doc)))
    # A notification that shares its name with a request gets its own handler name.
    request_handlers = {m.handler for m in methods if m.kind == "request"}
    renamed = []
    for m in methods:
        handler = m.handler + "_notification" if m.kind == "notification" and m.handler in request_handlers else m.handler
        if handler in handlers:
            raise SchemaError(pointer_of(m.params), f"methods {handlers[handler]!r} and {m.wire!r} both become {handler!r}")
        handlers[handler] = m.wire
        renamed.append(Method(m.wire, m.side, m.kind, m.params, m.result, handler, m.doc, m.unstable))
    return tuple(renamed)
