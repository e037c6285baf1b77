"""The method table: which defs are requests, responses and notifications, and who receives them.

`x-method` names the wire method and `x-side` the receiving side (a def with `x-method` but no
`x-side` is received by either side, with a warning); whether a def is a request, a
response or a notification is read from the JSON-RPC envelope defs that name it (an object with
`method` + `params` and a required `id` holds requests, without `id` notifications, an object with
`result` holds responses). Revisions whose envelopes are bare lists of refs say it only in the
`...Request` / `...Response` / `...Notification` suffix of the names, which is the last resort.
"""

from __future__ import annotations

from typing import Any, Iterator

from . import naming
from .errors import SchemaError
from .ir import SHARED_SIDE, Method, Notice, is_unstable
from .schema import Schema, pointer_of, ref_target

_COMBINATORS = ("anyOf", "oneOf", "allOf")
_SUFFIXES = {"Request": "request", "Response": "response", "Notification": "notification"}


def is_envelope(body: dict[str, Any], defs: dict[str, Any]) -> bool:
    """A def that carries no x-method but wraps defs that do (ClientRequest, AgentResponse, ...)."""
    return "x-method" not in body and any(
        True for _ in _method_refs(body, defs, set(), into_props=True)
    )


def _method_refs(
    node: Any, defs: dict[str, Any], seen: set[str], into_props: bool
) -> Iterator[str]:
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


def _envelope_kinds(
    node: Any, defs: dict[str, Any], required_id: bool, out: dict[str, set[str]]
) -> None:
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


def _kinds(defs: dict[str, Any], notices: list[Notice]) -> dict[str, str]:
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
        notices.append(
            Notice(
                pointer_of(name),
                "no envelope says whether this def is a request, a response or a notification: it"
                " is a type, not a method",
            )
        )
    return kinds


def collect_methods(schema: Schema) -> tuple[tuple[Method, ...], list[Notice]]:
    """Every method of the schema, in the order of its params defs, and what to tell the user."""
    defs = schema.defs
    notices: list[Notice] = []
    kinds = _kinds(defs, notices)
    responses: dict[str, str] = {}
    for name, kind in kinds.items():
        if kind != "response":
            continue
        wire = defs[name]["x-method"]
        if not isinstance(wire, str):
            raise SchemaError(pointer_of(name, "x-method"), "x-method must be a string")
        if wire in responses:
            notices.append(
                Notice(
                    pointer_of(name),
                    f"a second response def for {wire!r}: {responses[wire]} types the result",
                )
            )
            continue
        responses[wire] = name
    methods: list[Method] = []
    for name, kind in kinds.items():
        if kind == "response":
            continue
        body = defs[name]
        wire, side = body["x-method"], body.get("x-side")
        if not isinstance(wire, str):
            raise SchemaError(pointer_of(name, "x-method"), "x-method must be a string")
        if side is None:
            # An extension-method placeholder: nothing says who receives it, so either side may.
            side = SHARED_SIDE
            notices.append(
                Notice(
                    pointer_of(name),
                    f"x-method {wire!r} without x-side: read as received by either side"
                    f" (x-side {SHARED_SIDE!r})",
                )
            )
        result = responses.get(wire) if kind == "request" else None
        if kind == "request" and result is None:
            notices.append(
                Notice(
                    pointer_of(name),
                    f"request {wire!r} has no response def: its result is any JSON value",
                )
            )
        doc = body.get("description", "")
        doc = doc.strip() if isinstance(doc, str) else ""
        methods.append(
            Method(wire, side, kind, name, result, naming.snake(wire), doc, is_unstable(doc))
        )
    # A notification that shares its name with a request gets its own handler name.
    request_handlers = {m.handler for m in methods if m.kind == "request"}
    handlers: set[str] = set()
    renamed = []
    for m in methods:
        handler = (
            m.handler + "_notification"
            if m.kind == "notification" and m.handler in request_handlers
            else m.handler
        )
        if handler in handlers:
            handler = naming.safe_identifier(naming.verbatim(m.wire))
            while handler in handlers:
                handler += "_"
        handlers.add(handler)
        renamed.append(
            Method(m.wire, m.side, m.kind, m.params, m.result, handler, m.doc, m.unstable)
        )
    return tuple(renamed), notices
