"""Schema -> IR for objects: the fields of an object node, merged across `allOf`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import naming
from .errors import Untyped
from .ir import ANY, NO_DEFAULT, Field, ObjectDef, all_fields, is_unstable
from .limits import check_key
from .pointer import escape
from .types import annotation, bare_ref, check_keywords, description, shape, unwrap

if TYPE_CHECKING:
    from .builder import DefBuilder

# What an object node may carry and still be a Struct.
OBJECT_KEYS = frozenset({"type", "properties", "required", "allOf", "additionalProperties"})


def build_object(
    b: DefBuilder, name: str, node: dict[str, Any], pointer: str, doc: str
) -> ObjectDef:
    """A Struct for an object node."""
    fields, closed = object_fields(b, name, node, pointer)
    return ObjectDef(
        name, tuple(fields), doc=doc, unstable=is_unstable(doc), closed=closed, pointer=pointer
    )


def object_fields(
    b: DefBuilder, owner: str, node: dict[str, Any], pointer: str
) -> tuple[list[Field], bool]:
    """The fields of an object node, and whether it rejects unknown keys."""
    s = shape(node)
    check_object(s, pointer)
    fields = merged_fields(b, owner, node, pointer)
    return fields, s.get("additionalProperties") is False


def check_object(s: dict[str, Any], pointer: str) -> None:
    """Untyped unless the node is an object a Struct can hold exactly."""
    extra = set(s) - OBJECT_KEYS
    if extra:
        raise Untyped(
            f"{pointer}/{sorted(extra)[0]}", f"{sorted(extra)[0]} on an object has no typed form"
        )
    if s.get("type", "object") != "object":
        raise Untyped(
            pointer + "/type", "properties on a value that may not be an object have no typed form"
        )
    if s.get("additionalProperties", False) is not False and (
        s.get("properties") or s.get("allOf")
    ):
        raise Untyped(
            pointer + "/additionalProperties",
            "an object that keeps keys it does not declare has no typed form",
        )


def merged_fields(
    b: DefBuilder,
    owner: str,
    node: dict[str, Any],
    pointer: str,
    skip: frozenset[str] = frozenset(),
) -> list[Field]:
    """The fields of an object node, with those of the object defs its allOf names merged in."""
    s = shape(node)
    fields: list[Field] = []
    for i, member in enumerate(s.get("allOf", [])):
        where = f"{pointer}/allOf/{i}"
        if not isinstance(member, dict):
            raise Untyped(where, "a boolean allOf member has no typed form")
        check_keywords(member, where)
        member = unwrap(member)
        ms = shape(member)
        if "$ref" in ms:
            target = b.get(bare_ref(ms, where, b.defs))
            if not isinstance(target, ObjectDef) or target.closed:
                raise Untyped(
                    where, "allOf of something other than an open object def has no typed form"
                )
            fields.extend(f for f in all_fields(target, b.get) if f.wire not in skip)
        else:
            check_object(ms, where)
            if ms.get("additionalProperties") is False:
                raise Untyped(where, "a closed allOf member has no typed form")
            fields.extend(merged_fields(b, owner, member, where, skip))
    required = set(s.get("required", []))
    for wire, prop in s.get("properties", {}).items():
        if wire not in skip:
            fields.append(
                field(
                    b, owner, wire, prop, wire in required, f"{pointer}/properties/{escape(wire)}"
                )
            )
    declared = {f.wire for f in fields}
    for wire in s.get("required", []):
        if wire not in declared and wire not in skip:
            # A required key the node gives no schema: present, with any value.
            fields.append(Field(wire, naming.snake(wire), ANY, True, pointer=f"{pointer}/required"))
            declared.add(wire)
    return unique_fields(fields, pointer)


def field(b: DefBuilder, owner: str, wire: str, prop: Any, required: bool, pointer: str) -> Field:
    t = b.type_or_checked(prop, pointer)
    prop = prop if isinstance(prop, dict) else {}
    default = annotation(prop, "default") if "default" in _annotations(prop) else NO_DEFAULT
    return Field(
        wire=wire,
        name=naming.snake(wire),
        type=t,
        required=required,
        doc=description(prop),
        default=NO_DEFAULT if required else default,
        default_on_error=bool(prop.get("x-deserialize-default-on-error")),
        default_on_null=bool(prop.get("x-deserialize-default-on-null")),
        skip_invalid_items=bool(prop.get("x-deserialize-skip-invalid-items")),
        pointer=pointer,
    )


def _annotations(node: dict[str, Any]) -> dict[str, Any]:
    """The annotations of a node and of the single-member allOf wrappers inside it."""
    out: dict[str, Any] = {}
    while isinstance(node, dict):
        out = {**node, **out}
        s = shape(node)
        if list(s) == ["allOf"] and len(s["allOf"]) == 1 and isinstance(s["allOf"][0], dict):
            node = s["allOf"][0]
        else:
            break
    return out


def unique_fields(fields: list[Field], pointer: str) -> list[Field]:
    """One field per wire name (the later declaration wins when both say the same), and one
    attribute name per field."""
    by_wire: dict[str, Field] = {}
    for f in fields:
        check_key(f.wire, f.pointer or pointer)
        earlier = by_wire.get(f.wire)
        if earlier is not None and earlier.type != f.type and ANY not in (earlier.type, f.type):
            raise Untyped(
                f.pointer or pointer, f"two schemas for the property {f.wire!r} have no typed form"
            )
        if earlier is not None and f.type == ANY:
            f = Field(**{**earlier.__dict__, "required": earlier.required or f.required})
        elif earlier is not None and earlier.required and not f.required:
            # allOf: a property is required when any member requires it, whichever comes first
            f = Field(**{**f.__dict__, "required": True, "default": NO_DEFAULT})
        by_wire[f.wire] = f
    names: set[str] = set()
    out = []
    for f in by_wire.values():
        name = f.name
        if name in names:
            name = naming.safe_identifier(naming.verbatim(f.wire))
            while name in names:
                name += "_"
            f = Field(**{**f.__dict__, "name": name})
        names.add(name)
        out.append(f)
    return out
