"""What msgspec can decode natively: the rules for unions it accepts as they stand.

msgspec takes a union with at most one type of each JSON kind (object, array, string, integer,
number, boolean, null), where strings may mix `str` and Literals, and objects may be several Structs
only when they are all tagged on one field. Anything else needs the package's union hook.
"""

from __future__ import annotations

from typing import Callable

from .ir import (
    NULL,
    AliasDef,
    Checked,
    Const,
    Def,
    EnumDef,
    ListOf,
    MapOf,
    ObjectDef,
    Prim,
    TypeExpr,
    UnionDef,
    UnionOf,
)


def json_kinds(t: TypeExpr, get: Callable[[str], Def]) -> list[str] | None:
    """The JSON kinds a type takes, one per msgspec union member; None when it needs the hook."""
    if isinstance(t, Prim):
        return [
            {
                "str": "string",
                "int": "integer",
                "float": "number",
                "bool": "boolean",
                "null": "null",
                "any": "any",
            }[t.kind]
        ]
    if isinstance(t, Const):
        v = t.value
        kind = (
            "null"
            if v is None
            else (
                "boolean"
                if isinstance(v, bool)
                else (
                    "integer" if isinstance(v, int) else "string" if isinstance(v, str) else "other"
                )
            )
        )
        return [f"literal-{kind}"]
    if isinstance(t, Checked):
        return None
    if isinstance(t, ListOf):
        return ["array"]
    if isinstance(t, MapOf):
        return ["object"]
    if isinstance(t, UnionOf):
        out: list[str] = []
        for o in t.options:
            k = json_kinds(o, get)
            if k is None:
                return None
            out.extend(k)
        return out
    d = get(t.name)
    if isinstance(d, ObjectDef):
        return ["tagged-object" if d.tag else "object"]
    if isinstance(d, EnumDef):
        return ["enum-" + d.kind]
    if isinstance(d, UnionDef):
        if not d.native:
            return None
        # several variants are told apart by their tag; a lone one is tagged if it has a tag
        several = len(d.variants) > 1
        kinds = ["tagged-object" if several or v.tag else "object" for v in d.variants]
        return kinds + (["null"] if d.nullable else [])
    if isinstance(d, AliasDef):
        return json_kinds(d.type, get) if d.native else None
    return None


def alias_is_native(t: TypeExpr, get: Callable[[str], Def]) -> bool:
    kinds = json_kinds(t, get)
    if kinds is None:
        return False
    if "any" in kinds or len(kinds) == 1:
        return True
    if kinds.count("tagged-object") and kinds.count("object"):
        return False
    singles = [k for k in kinds if k not in ("tagged-object", "literal-string", "literal-integer")]
    groups = {"string": {"string", "enum-str"}, "integer": {"integer", "enum-int"}}
    for kind in set(singles):
        group = next((g for g in groups.values() if kind in g), {kind})
        if sum(1 for k in singles if k in group) > 1:
            return False
    if "enum-str" in kinds and ("string" in kinds or "literal-string" in kinds):
        return False
    if "enum-int" in kinds and ("integer" in kinds or "literal-integer" in kinds):
        return False
    return True


def decodable(t: TypeExpr, get: Callable[[str], Def]) -> bool:
    """Whether msgspec can build a decoder for a type as it stands: natively, or as the one
    hook-decoded member of a union beside null (msgspec allows nothing else beside a custom type).
    A union that is neither needs a def of its own, decoded by the union hook."""
    if not isinstance(t, UnionOf) or alias_is_native(t, get):
        return True
    others = [o for o in t.options if o != NULL]
    return len(others) == 1 and json_kinds(others[0], get) is None


__all__ = ["alias_is_native", "decodable", "json_kinds"]
