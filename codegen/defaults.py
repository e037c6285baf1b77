"""Schema defaults as Python expressions: what a field's default builds, or None when the default
is not a value of the field's type (a default is only an annotation; such a one is not applied)."""

from __future__ import annotations

from typing import Any, Mapping

from .escape import literal
from .ir import (
    ANY,
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
    Ref,
    TypeExpr,
    UnionOf,
    all_fields,
)


def default_expr(value: Any, t: TypeExpr, defs: Mapping[str, Def]) -> tuple[str, bool] | None:
    """A Python expression that builds `value` as type `t`, and whether it is mutable."""
    if isinstance(t, Ref):
        target = defs.get(t.name)
        if isinstance(target, AliasDef):
            return default_expr(value, target.type, defs)
        if isinstance(target, EnumDef):
            for m in target.members:
                if m.value == value and type(m.value) is type(value):
                    return f"{target.name}.{m.name}", False
            return None
        if isinstance(target, ObjectDef) and isinstance(value, dict):
            fields = {f.wire: f for f in all_fields(target, defs.get)}
            args = []
            for key, v in value.items():
                if key not in fields:
                    return None
                expr = default_expr(v, fields[key].type, defs)
                if expr is None:
                    return None
                args.append(f"{fields[key].name}={expr[0]}")
            if any(f.required and f.wire not in value for f in fields.values()):
                return None
            return f"{target.name}({', '.join(args)})", True
        return None
    if isinstance(t, UnionOf):
        for option in t.options:
            expr = default_expr(value, option, defs)
            if expr is not None:
                return expr
        return None
    if t == ANY or isinstance(t, Checked):
        return None if isinstance(t, Checked) else (literal(value), isinstance(value, (list, dict)))
    if t == NULL:
        return ("None", False) if value is None else None
    if isinstance(t, Const):
        return (
            (literal(value), False) if value == t.value and type(value) is type(t.value) else None
        )
    if isinstance(t, Prim):
        ok = {
            "str": isinstance(value, str),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "float": isinstance(value, (int, float)) and not isinstance(value, bool),
            "bool": isinstance(value, bool),
        }.get(t.kind, False)
        return (literal(value), False) if ok else None
    if isinstance(t, ListOf) and isinstance(value, list):
        items = [default_expr(v, t.item, defs) for v in value]
        if any(i is None for i in items):
            return None
        return "[" + ", ".join(i[0] for i in items if i is not None) + "]", True
    if isinstance(t, MapOf) and isinstance(value, dict):
        entries = {k: default_expr(v, t.value, defs) for k, v in value.items()}
        if any(i is None for i in entries.values()):
            return None
        return (
            "{"
            + ", ".join(f"{literal(k)}: {i[0]}" for k, i in entries.items() if i is not None)
            + "}",
            True,
        )
    return None


def empty_value(t: TypeExpr, defs: Mapping[str, Def]) -> tuple[bool, Any]:
    """(True, the value a type's own default is) for the types that have one, as Rust's `Default`
    has it: an empty list or map, "", 0, false, an object without required fields."""
    if isinstance(t, Ref):
        target = defs.get(t.name)
        if isinstance(target, AliasDef):
            return empty_value(target.type, defs)
        if isinstance(target, ObjectDef) and not any(
            f.required for f in all_fields(target, defs.get)
        ):
            return True, {}
        return False, None
    if isinstance(t, ListOf):
        return (True, []) if not t.min_items else (False, None)
    if isinstance(t, MapOf):
        return True, {}
    if isinstance(t, Prim):
        found = {"str": "", "int": 0, "float": 0.0, "bool": False}
        return (True, found[t.kind]) if t.kind in found else (False, None)
    return False, None
