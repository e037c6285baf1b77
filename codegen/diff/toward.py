"""A schema document bent so that values drawn from a method's params or result hold one def.

A def deep inside a message (a content block inside an update inside a notification) is rarely
drawn by chance. `toward` restricts every def that can lead to it (and that it cannot lead back
to, so nothing recurses for ever): the properties that can hold it become required, and of a
union's branches only those that can hold it are kept. Values stay valid for the original schema:
they are a subset of what it accepts.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

Obj = dict[str, Any]


def toward(document: Obj, root: str) -> Obj:
    """`document` with the defs that can lead to `root` restricted to values that hold it."""
    defs: Obj = document.get("$defs", {})
    leads = _leads_to(_edges_of(defs), root)
    aims = leads | {root}
    bent = {name: _bend(body, aims) for name, body in defs.items() if name in leads}
    return {**document, "$defs": {**defs, **bent}} if bent else document


def refs(node: Any) -> Iterator[str]:
    """The def names a schema node refers to, at any depth."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            yield ref.rsplit("/", 1)[-1]
        for value in node.values():
            yield from refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from refs(value)


def _edges_of(defs: Obj) -> dict[str, frozenset[str]]:
    return {name: _refs_of(body) for name, body in defs.items()}


_REFS: dict[int, tuple[Any, frozenset[str]]] = {}  # id -> (the body, kept alive; its refs)


def _refs_of(body: Any) -> frozenset[str]:
    """`refs` of a def's body, once per body (most bodies are shared by every narrowed copy)."""
    hit = _REFS.get(id(body))
    if hit is None or hit[0] is not body:
        hit = _REFS[id(body)] = (body, frozenset(refs(body)))
    return hit[1]


def closure(root: str, edges: dict[str, frozenset[str]]) -> frozenset[str]:
    """Every def reachable from `root` (itself included)."""
    seen, stack = {root}, [root]
    while stack:
        for name in edges.get(stack.pop(), ()):
            if name not in seen:
                seen.add(name)
                stack.append(name)
    return frozenset(seen)


def _leads_to(edges: dict[str, frozenset[str]], root: str) -> frozenset[str]:
    """The defs that can reach `root` and that `root` cannot reach (no way round a cycle)."""
    back: dict[str, set[str]] = {}
    for name, targets in edges.items():
        for target in targets:
            back.setdefault(target, set()).add(name)
    above = closure(root, {name: frozenset(names) for name, names in back.items()})
    return above - closure(root, edges)


def _bend(node: Any, aims: frozenset[str]) -> Any:
    """A schema node (and the inline nodes in it) restricted to values that hold an aim."""
    if isinstance(node, list):
        return [_bend(item, aims) for item in node]
    if not isinstance(node, dict) or not _holds(node, aims):
        return node
    out = {key: _bend(value, aims) if key in _INLINE else value for key, value in node.items()}
    for keyword in ("oneOf", "anyOf"):
        branches = out.get(keyword)
        if isinstance(branches, list):
            kept = [b for b in branches if _holds(b, aims)]
            if kept:
                out[keyword] = kept
    props = out.get("properties")
    if isinstance(props, dict):
        out["properties"] = {p: _bend(sub, aims) for p, sub in props.items()}
        wanted = [p for p, sub in props.items() if _holds(sub, aims)]
        if wanted:
            out["required"] = list(dict.fromkeys([*out.get("required", []), *wanted]))
    return out


_INLINE = ("oneOf", "anyOf", "allOf", "items", "additionalProperties")


def _holds(node: Any, aims: frozenset[str]) -> bool:
    """Whether a schema node refers to the target def or to a def that leads to it."""
    return any(name in aims for name in refs(node))
