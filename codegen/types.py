"""Schema nodes -> type expressions: the part of the JSON Schema vocabulary acpgen understands.

A node is read for its *shape*: `$ref`, the combinators, `type`, `const`/`enum` and constraints.
Annotation keywords (descriptions, titles, defaults, `x-*`) never change a shape. Anything else is
a construct the generator does not understand and gets a SchemaError naming its JSON pointer.
"""

from __future__ import annotations

from typing import Any, Callable

from .errors import SchemaError
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
        "discriminator",
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
        "not",
    }
)

_PRIMS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "null"}


def check_keywords(node: dict[str, Any], pointer: str) -> None:
    for key in node:
        if key not in ANNOTATIONS and key not in STRUCTURAL and not key.startswith("x-"):
            raise SchemaError(f"{pointer}/{key}", f"the generator does not understand the keyword {key!r}")


def shape(node: dict[str, Any]) -> dict[str, Any]:
    """The node without its annotations."""
    return {k: v for k, v in node.items() if k not in ANNOTATIONS and not k.startswith("x-")}


def unwrap(node: dict[str, Any]) -> dict[str, Any]:
    """`{allOf: [X]}` with nothing but annotations beside it is X (its annotations stay outside)."""
    while True:
        s = shape(node)
        if list(s) == ["allOf"] and isinstance(s["allOf"], list) and len(s["allOf"]) == 1 and isinstance(s["allOf"][0], dict):
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


# A callback that gives a name to an inline object or union found at a pointer, and returns its Ref.
Hoist = Callable[[dict[str, Any], str], Ref]


def type_of(node: Any, pointer: str, hoist: Hoist, defs: dict[str, Any]) -> TypeExpr:
    """The type expression of a schema node (a property, an item, an alias body)."""
    if node is True or node == {}:
        return ANY
    if not isinstance(node, dict):
        raise SchemaError(pointer, "a schema must be an object or true")
    check_keywords(node, pointer)
    node = unwrap(node)
    s = shape(node)
    if "$ref" in s:
        return Ref(ref_target(s["$ref"], pointer + "/$ref", defs))
    if not s:
        return ANY
    if "const" in s:
        return Const(s["const"])
    if "enum" in s:
        values = s["enum"]
        if not isinstance(values, list) or not values:
            raise SchemaError(pointer + "/enum", "enum must be a non-empty list")
        return union([Const(v) for v in values])
    if "properties" in s or (s.get("type") == "object" and ("anyOf" in s or "oneOf" in s)):
        return hoist(node, pointer)
    for combinator in ("anyOf", "oneOf"):
        if combinator in s:
            branches = s[combinator]
            options = [type_of(b, f"{pointer}/{combinator}/{i}", hoist, defs) for i, b in enumerate(branches)]
            if any(_is_object_expr(o, defs) for o in options) and len(options) - options.count(NULL) > 1:
                return hoist(node, pointer)
            return union(options)
    if "allOf" in s:
        raise SchemaError(pointer + "/allOf", "allOf with several members is only understood on object defs")
    if "not" in s:
        raise SchemaError(pointer + "/not", "'not' is only understood as the catch-all branch of an open union")
    types = s.get("type")
    if isinstance(types, list):
        return union([type_of({**s, "type": t}, pointer, hoist, defs) for t in types])
    if types == "array":
        items = s.get("items", True)
        return ListOf(type_of(items, pointer + "/items", hoist, defs), s.get("minItems"), s.get("maxItems"))
    if types == "object":
        extra = s.get("additionalProperties", True)
        return MapOf(ANY if extra in (True, {}) else type_of(extra, pointer + "/additionalProperties", hoist, defs))
    if types == "null":
        return NULL
    if types in _PRIMS:
        return Prim(
            _PRIMS[types],
            format=s.get("format"),
            minimum=s.get("minimum"),
            maximum=s.get("maximum"),
            min_length=s.get("minLength"),
            max_length=s.get("maxLength"),
            pattern=s.get("pattern"),
        )
    raise SchemaError(pointer, f"cannot tell the type of this schema: {sorted(s)}")


def _is_object_expr(t: TypeExpr, defs: dict[str, Any]) -> bool:
    if isinstance(t, Ref):
        body = unwrap(defs[t.name])
        return "properties" in body or "oneOf" in body or ("anyOf" in body and "properties" in body)
    return False


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
