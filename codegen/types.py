"""Schema nodes -> type expressions: the part of the JSON Schema vocabulary with a typed form.

A node is read for its *shape*: `$ref`, the combinators, `type`, `const`/`enum` and constraints.
Annotations (descriptions, titles, defaults, `x-*`, and any keyword JSON Schema does not define)
never change a shape. A JSON Schema keyword without a typed form here raises `Untyped`, and the
builder gives the node its general form (`Checked`).
"""

from __future__ import annotations

from typing import Any, Callable

from .errors import SchemaError, Untyped
from .ir import ANY, NULL, Const, ListOf, MapOf, Prim, Ref, TypeExpr, UnionOf
from .schema import ref_target

ANNOTATIONS = frozenset(
    {
        "description",
        "title",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
        "discriminator",
        "$schema",
        "$id",
        "$anchor",
        "$vocabulary",
        "$defs",
        "definitions",
    }
)
STRUCTURAL = frozenset(
    {
        "$ref",
        "allOf",
        "anyOf",
        "oneOf",
        "type",
        "properties",
        "required",
        "additionalProperties",
        "unevaluatedProperties",
        "items",
        "const",
        "enum",
        "format",
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "minItems",
        "maxItems",
        "uniqueItems",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "not",
    }
)
# The rest of the 2020-12 vocabulary: valid, but without a typed form (the general form checks it).
UNTYPED = frozenset(
    {
        "if",
        "then",
        "else",
        "dependentSchemas",
        "dependentRequired",
        "prefixItems",
        "contains",
        "minContains",
        "maxContains",
        "unevaluatedItems",
        "patternProperties",
        "propertyNames",
        "minProperties",
        "maxProperties",
        "$dynamicRef",
        "$dynamicAnchor",
        "$recursiveRef",
        "$recursiveAnchor",
    }
)

_PRIMS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "null"}


def check_keywords(node: dict[str, Any], pointer: str) -> None:
    """Untyped when the node uses a keyword that has no typed form."""
    for key in node:
        if key in UNTYPED:
            raise Untyped(f"{pointer}/{key}", f"{key!r} has no typed form")


def shape(node: dict[str, Any]) -> dict[str, Any]:
    """The node without its annotations (and without keywords JSON Schema does not define)."""
    return {k: v for k, v in node.items() if k in STRUCTURAL or k in UNTYPED}


def description(node: Any) -> str:
    """The description of a node (or of the single-member allOf wrappers inside it), stripped."""
    if not isinstance(node, dict):
        return ""
    d = annotation(node, "description")
    return d.strip() if isinstance(d, str) else ""


def unwrap(node: dict[str, Any]) -> dict[str, Any]:
    """`{allOf: [X]}` with nothing but annotations beside it is X (its annotations stay outside)."""
    while True:
        s = shape(node)
        if (
            list(s) == ["allOf"]
            and isinstance(s["allOf"], list)
            and len(s["allOf"]) == 1
            and isinstance(s["allOf"][0], dict)
        ):
            node = s["allOf"][0]
            continue
        return node


def annotation(node: dict[str, Any], key: str) -> Any:
    """An annotation found on the node or on the single-member allOf wrappers inside it."""
    while isinstance(node, dict):
        if key in node:
            return node[key]
        s = shape(node)
        if list(s) == ["allOf"] and len(s["allOf"]) == 1:
            node = s["allOf"][0]
        else:
            return None
    return None


def bare_ref(s: dict[str, Any], pointer: str, defs: dict[str, Any]) -> str:
    """The def a `$ref` node (its shape `s`) names; Untyped when other keywords stand beside it
    (in 2020-12 they would apply too)."""
    if len(s) > 1:
        raise Untyped(pointer, "a $ref with other keywords beside it has no typed form")
    return ref_target(s["$ref"], pointer + "/$ref", defs)


# A callback that gives a name to an inline object or union found at a pointer, and returns its Ref.
Hoist = Callable[[dict[str, Any], str], Ref]


# What each JSON type may carry beside `type` and still have a typed form.
_KEEPS = {
    "array": {"items", "minItems", "maxItems", "uniqueItems"},
    "object": {"additionalProperties"},
    "null": set(),
    "string": {"minLength", "maxLength", "pattern", "format"},
    "integer": {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "format",
    },
    "number": {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "format",
    },
    "boolean": set(),
}
_APPLIES_TO: dict[str, set[str]] = {}
for _type, _keys in _KEEPS.items():
    for _key in _keys:
        _APPLIES_TO.setdefault(_key, set()).add(_type)


def type_of(
    node: Any, pointer: str, hoist: Hoist, defs: dict[str, Any], field: bool = False
) -> TypeExpr:
    """The type expression of a schema node (a property, an item, an alias body).

    Inline objects and unions of objects are given defs of their own through `hoist`; a node
    without a typed form raises `Untyped`. `field` is set for the type of a property itself, where
    an array may insist on unique items (its Struct checks them).
    """
    if node is True or node == {}:
        return ANY
    if node is False:
        raise Untyped(pointer, "a schema that accepts nothing has no typed form")
    if not isinstance(node, dict):
        raise SchemaError(pointer, "a schema must be an object or a boolean")
    check_keywords(node, pointer)
    node = unwrap(node)
    s = shape(node)
    if "$ref" in s:
        return Ref(bare_ref(s, pointer, defs))
    if not s:
        return ANY
    if (
        "properties" in s
        or "allOf" in s
        or (s.get("type") == "object" and ("anyOf" in s or "oneOf" in s))
    ):
        return hoist(node, pointer)
    if "const" in s or "enum" in s:
        return _constants(s, pointer)
    for combinator in ("anyOf", "oneOf"):
        if combinator in s:
            if any(_inline_object(b, defs) for b in s[combinator]):
                return hoist(node, pointer)  # a union of objects: one def, its variants named by it
            if set(s) - {combinator, "type"} or "type" in s and not isinstance(s["type"], str):
                raise Untyped(pointer, f"{combinator} beside other keywords has no typed form")
            branches = s[combinator]
            options = [
                type_of(b, f"{pointer}/{combinator}/{i}", hoist, defs)
                for i, b in enumerate(branches)
            ]
            if "type" in s and any(not _within(o, s["type"], defs) for o in options):
                raise Untyped(pointer, f"{combinator} with a type beside it has no typed form")
            if (
                any(isinstance(o, Ref) and is_object_def(o.name, defs) for o in options)
                and len(options) - options.count(NULL) > 1
            ):
                return hoist(node, pointer)
            if combinator == "oneOf" and not _disjoint(options, defs):
                raise Untyped(pointer, "oneOf with overlapping branches has no typed form")
            return union(options)
    if "not" in s:
        raise Untyped(pointer + "/not", "'not' outside an open union has no typed form")
    types = s.get("type")
    if types is None:
        raise Untyped(pointer, f"constraints without a type have no typed form: {sorted(s)}")
    if isinstance(types, list):
        if not types or len(set(types)) != len(types):
            raise Untyped(pointer + "/type", "this list of types has no typed form")
        for key in s:
            if key in _APPLIES_TO and not _APPLIES_TO[key] & set(types):
                raise Untyped(
                    f"{pointer}/{key}", f"{key} beside types it does not apply to has no typed form"
                )
        return union(
            [type_of({**_only(s, t), "type": t}, pointer, hoist, defs, field) for t in types]
        )
    if types not in _KEEPS:
        raise SchemaError(pointer + "/type", f"{types!r} is not a JSON type")
    extra = set(s) - _KEEPS[types] - {"type"}
    if extra:
        raise Untyped(
            f"{pointer}/{sorted(extra)[0]}", f"{sorted(extra)[0]} on a {types} has no typed form"
        )
    if types == "array":
        items = s.get("items", True)
        unique = s.get("uniqueItems") is True
        if unique and not field:
            raise Untyped(
                pointer + "/uniqueItems", "unique items outside a property have no typed form"
            )
        return ListOf(
            type_of(items, pointer + "/items", hoist, defs),
            s.get("minItems"),
            s.get("maxItems"),
            unique,
        )
    if types == "object":
        extra_props = s.get("additionalProperties", True)
        if extra_props is False:
            raise Untyped(pointer, "an object that allows no key has no typed form")
        return MapOf(
            ANY
            if extra_props in (True, {})
            else type_of(extra_props, pointer + "/additionalProperties", hoist, defs)
        )
    if types == "null":
        return NULL
    if (
        s.get("multipleOf") is not None
        and types == "number"
        and not isinstance(s["multipleOf"], int)
    ):
        raise Untyped(pointer + "/multipleOf", "a fractional multipleOf has no exact typed form")
    return Prim(
        _PRIMS[types],
        format=s.get("format"),
        minimum=s.get("minimum"),
        maximum=s.get("maximum"),
        min_length=s.get("minLength"),
        max_length=s.get("maxLength"),
        pattern=s.get("pattern"),
        exclusive_minimum=s.get("exclusiveMinimum"),
        exclusive_maximum=s.get("exclusiveMaximum"),
        multiple_of=s.get("multipleOf"),
    )


def accepts_anything(branch: Any) -> bool:
    """Whether a schema accepts every JSON value: `true`, or nothing but annotations (`{}`)."""
    return branch is True or isinstance(branch, dict) and not shape(unwrap(branch))


def is_object_branch(branch: Any, defs: dict[str, Any], seen: frozenset[str] = frozenset()) -> bool:
    """Whether a union branch is an object: inline (`properties`, `allOf`, or `type: object` with
    `not` or `required`), or a `$ref` to a def that `is_object_def`."""
    if not isinstance(branch, dict):
        return False
    s = shape(unwrap(branch))
    if "$ref" in s:
        return is_object_def(ref_target(s["$ref"], "", defs), defs, seen)
    return (
        "properties" in s
        or "allOf" in s
        or s.get("type") == "object"
        and ("not" in s or "required" in s)
    )


def is_object_def(name: str, defs: dict[str, Any], seen: frozenset[str] = frozenset()) -> bool:
    """Whether a def is an object (it has properties), or a union with an object branch (each def
    followed once). A name the schema does not define was hoisted from an inline object."""
    if name not in defs:
        return True
    if name in seen:
        return False
    body = defs[name]
    s = shape(unwrap(body)) if isinstance(body, dict) else {}
    branches = s.get("anyOf") or s.get("oneOf")
    return "properties" in s or (
        isinstance(branches, list)
        and any(is_object_branch(b, defs, seen | {name}) for b in branches)
    )


def _inline_object(branch: Any, defs: dict[str, Any]) -> bool:
    """An object branch defined in place (it needs a def of its own to be a variant)."""
    return (
        isinstance(branch, dict)
        and "$ref" not in shape(unwrap(branch))
        and is_object_branch(branch, defs)
    )


def _only(s: dict[str, Any], json_type: str) -> dict[str, Any]:
    """The keywords of a node with a list of types that apply to one of them."""
    return {k: v for k, v in s.items() if k in _KEEPS[json_type] or k not in _APPLIES_TO}


def _constants(s: dict[str, Any], pointer: str) -> TypeExpr:
    """`const` / `enum` (with at most a matching `type` beside them): a union of literals."""
    values = [s["const"]] if "const" in s else s["enum"]
    if "const" in s and "enum" in s or set(s) - {"const", "enum", "type", "format"}:
        raise Untyped(pointer, "const or enum beside other keywords has no typed form")
    if not values:
        raise Untyped(pointer + "/enum", "an empty enum accepts nothing and has no typed form")
    types = s.get("type")
    names = [types] if isinstance(types, str) else types or []
    out: list[TypeExpr] = []
    for v in values:
        kind = _json_type(v)
        if (
            kind not in ("string", "integer", "boolean", "null")
            or names
            and kind not in names
            and not (kind == "integer" and "number" in names)
        ):
            raise Untyped(pointer, f"the constant {v!r} has no typed form here")
        out.append(NULL if v is None else Const(v))
    return union(out)


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):
        return "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def _within(t: TypeExpr, json_type: str, defs: dict[str, Any]) -> bool:
    """Whether every value of `t` has the JSON type (for `type` beside a combinator)."""
    if isinstance(t, UnionOf):
        return all(_within(o, json_type, defs) for o in t.options)
    if isinstance(t, Prim):
        return {
            "str": "string",
            "int": "integer",
            "float": "number",
            "bool": "boolean",
            "null": "null",
        }.get(t.kind) == json_type or (t.kind == "int" and json_type == "number")
    if isinstance(t, Const):
        kind = _json_type(t.value)
        return kind == json_type or kind == "integer" and json_type == "number"
    if isinstance(t, ListOf):
        return json_type == "array"
    if isinstance(t, MapOf):
        return json_type == "object"
    return False


def _disjoint(options: list[TypeExpr], defs: dict[str, Any]) -> bool:
    """Whether no value can match two options (what oneOf needs to read like anyOf)."""
    kinds: list[str] = []
    for o in options:
        if isinstance(o, Const):
            kinds.append("const:" + repr(o.value))
        elif isinstance(o, Prim) and o.kind != "any" and not _constrained(o):
            kinds.append(
                {
                    "str": "string",
                    "int": "number",
                    "float": "number",
                    "bool": "boolean",
                    "null": "null",
                }[o.kind]
            )
        elif isinstance(o, ListOf):
            kinds.append("array")
        elif isinstance(o, MapOf):
            kinds.append("object")
        elif isinstance(o, Ref) and o.name in defs:
            kinds.append(_ref_kind(defs[o.name], o.name))
        else:
            return False
    consts = [k for k in kinds if k.startswith("const:")]
    plain = [k for k in kinds if not k.startswith("const:")]
    if len(set(plain)) != len(plain) or len(set(consts)) != len(consts):
        return False
    if "null" in plain and any(k.startswith("ref-nullable:") for k in plain):
        return False
    for c in options:
        if isinstance(c, Const) and _json_type(c.value).replace("integer", "number") in plain:
            return False
    return not any(k.startswith("ref") for k in plain) or plain.count("null") + sum(
        k.startswith("ref") for k in plain
    ) == len(plain)


def _ref_kind(body: Any, name: str) -> str:
    """The JSON kind of a def's values where its `type` says it, else a kind of its own."""
    s = shape(unwrap(body)) if isinstance(body, dict) else {}
    t = s.get("type")
    if isinstance(t, str) and t in _KEEPS:
        return t.replace("integer", "number")
    nullable = "null" in (t or []) or any(
        isinstance(b, dict) and b.get("type") == "null"
        for k in ("anyOf", "oneOf")
        for b in s.get(k, [])
    )
    return ("ref-nullable:" if nullable else "ref:") + name


def _constrained(p: Prim) -> bool:
    return any(v is not None for v in (p.minimum, p.maximum, p.min_length, p.max_length, p.pattern))


def union(options: list[TypeExpr]) -> TypeExpr:
    """Flatten nested unions, drop duplicates, keep order; Any absorbs everything."""
    flat: list[TypeExpr] = []
    for option in options:
        for o in option.options if isinstance(option, UnionOf) else (option,):
            if o == ANY:
                return ANY
            if o not in flat:
                flat.append(o)
    return flat[0] if len(flat) == 1 else UnionOf(tuple(flat))
