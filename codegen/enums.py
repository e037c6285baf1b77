"""Schema -> IR for sets of constants: a def made only of string (or integer) consts, with at most
one plain catch-all branch of the same JSON type (an open set)."""

from __future__ import annotations

from typing import Any

from . import naming
from .ir import EnumDef, EnumMember, is_unstable
from .types import description, shape


def as_enum(name: str, node: dict[str, Any], pointer: str, doc: str) -> EnumDef | None:
    """The enum a def stands for, or None when it is not a set of constants."""
    s = shape(node)
    if "enum" in s:
        if set(s) - {"enum", "type"}:
            return None
        branches: list[Any] = [{"const": v} for v in s["enum"]]
        key = "enum"
    else:
        key = "oneOf" if "oneOf" in s else "anyOf" if "anyOf" in s else ""
        if not key or set(s) - {key, "type"}:
            return None
        branches = s[key]
    consts = [
        b
        for b in branches
        if isinstance(b, dict) and set(shape(b)) <= {"const", "type", "format"} and "const" in b
    ]
    others = [b for b in branches if not any(b is c for c in consts)]
    if not consts:
        return None
    values = [b["const"] for b in consts]
    if all(isinstance(v, str) for v in values):
        kind, json_type = "str", "string"
    elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        kind, json_type = "int", "integer"
    else:
        return None
    if s.get("type", json_type) != json_type or len(set(values)) != len(values):
        return None
    if any(b.get("type", json_type) != json_type for b in consts):
        return None
    if len(others) > 1 or any(not _plain(o, json_type) for o in others):
        return None
    members = []
    seen: set[str] = set()
    for b in consts:
        title = b.get("title")
        member = naming.constant(
            title if kind == "int" and isinstance(title, str) else str(b["const"])
        )
        if member in seen:
            return None  # two values that make one name: a union of literals says it exactly
        seen.add(member)
        members.append(EnumMember(member, b["const"], description(b)))
    return EnumDef(
        name,
        kind,
        tuple(members),
        open=bool(others),
        doc=doc,
        unstable=is_unstable(doc),
        pointer=pointer,
    )


def _plain(branch: Any, json_type: str) -> bool:
    """A catch-all branch: any value of the set's JSON type (a format is only an annotation)."""
    return (
        isinstance(branch, dict)
        and set(shape(branch)) <= {"type", "format"}
        and branch.get("type") == json_type
    )
