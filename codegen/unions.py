"""Schema -> IR for unions of objects: tags, variants, null branches and catch-all branches.

A union node is `anyOf`/`oneOf` of branches, optionally with properties of its own that every
branch shares. Each branch becomes one or more variants (Structs), a `null` branch makes the union
nullable, and a catch-all branch (`not` the known ones, a tag without a const, or an object that
keeps any extra key) makes it open: values no variant takes are kept raw once the whole union's
schema accepts them. Every union shape is decided here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Iterator

from . import naming
from .errors import SchemaError, Untyped
from .ir import Const, Field, ObjectDef, Tag, UnionDef, Variant, all_fields, is_unstable
from .objects import check_object, merged_fields, unique_fields
from .schema import ref_target
from .types import check_keywords, description, shape, unwrap

if TYPE_CHECKING:
    from .builder import DefBuilder

UNION_KEYS = frozenset({"type", "properties", "required", "allOf", "anyOf", "oneOf"})
BRANCH_KEYS = frozenset({"$ref", "allOf", "properties", "required", "type", "additionalProperties"})


def build_union(
    b: DefBuilder, name: str, node: dict[str, Any], key: str, pointer: str, doc: str
) -> UnionDef:
    s = shape(node)
    extra = set(s) - UNION_KEYS
    if extra or ("anyOf" in s and "oneOf" in s):
        what = sorted(extra)[0] if extra else "oneOf"
        raise Untyped(f"{pointer}/{what}", f"{what} beside a union of objects has no typed form")
    if s.get("type", "object") != "object":
        raise Untyped(
            pointer + "/type", "a union of objects that may be something else has no typed form"
        )
    branches = s[key]
    base: dict[str, Any] = {k: s[k] for k in ("properties", "required", "allOf") if k in s}
    base_fields = merged_fields(b, name, base, pointer) if base else []
    base_required = set(s.get("required", []))
    discriminator = node.get("discriminator")
    tag_field = discriminator.get("propertyName") if isinstance(discriminator, dict) else None
    seen = [_seen_through_refs(b, br) for br in branches]
    tag_field = tag_field or _common_tag_field(seen, base_required)
    if tag_field in _optional_consts(seen, base_required):
        # a branch may leave the tag out: values are told apart by their keys, not by the tag
        tag_field = None
    variants: list[Variant] = []
    branch_tags: list[Any] = []  # per typed branch, the tag it pins (flattened variants share it)
    is_open = nullable = False
    for i, branch in enumerate(branches):
        bp = f"{pointer}/{key}/{i}"
        if not isinstance(branch, dict):
            raise Untyped(bp, "a boolean branch in a union of objects has no typed form")
        bs = shape(unwrap(branch))
        if bs == {"type": "null"} or bs == {"const": None}:
            nullable = True
        elif _is_catch_all(bs, tag_field):
            is_open = True  # checked by the whole union's schema, whatever keywords it uses
        else:
            check_keywords(branch, bp)
            made = list(_variants(b, name, branch, bp, tag_field, base_fields, base_required))
            inner = _payload_union(b, branch, bp)
            is_open = is_open or bool(
                inner and inner.open
            )  # the inner union's unknowns are this one's
            nullable = nullable or bool(
                inner and inner.nullable and set(shape(unwrap(branch))) == {"$ref"}
            )
            branch_tags.append(made[0].tag.value if made and made[0].tag else None)
            variants.extend(made)
    if not variants:
        raise Untyped(pointer, "a union without a typed variant has no typed form")
    if (
        sum(1 for v in variants if v.tag is None) > 1
    ):  # told apart by their keys: say which they have
        variants = [_with_declared(b, v) if v.tag is None else v for v in variants]
    if key == "oneOf" and not _exclusive(branch_tags, is_open):
        raise Untyped(pointer, "oneOf whose branches may overlap has no typed form")
    tags = [v.tag.value for v in variants if v.tag]
    single = len(variants) == 1
    # Open unions go through the hook, which keeps unknown variants; msgspec would reject them.
    native = not is_open and (
        single
        and variants[0].tag is None  # msgspec insists on a tag only among several
        or (
            len(variants) > 1
            and tag_field is not None
            and all(v.tag is not None and v.tag.field == tag_field for v in variants)
            and len(set(tags)) == len(tags)
            and all(_tag_is_ours(b, v) for v in variants)
        )
    )
    if is_open:
        b.check(pointer, node)
    return UnionDef(
        name,
        tuple(variants),
        tag_field,
        native,
        is_open,
        nullable,
        doc=doc,
        unstable=is_unstable(doc),
        pointer=pointer,
    )


def _exclusive(branch_tags: list[Any], is_open: bool) -> bool:
    """oneOf reads like anyOf when no value can match two branches: a distinct tag on every typed
    branch (a catch-all takes only the tags no branch pins)."""
    tags = [t for t in branch_tags if t is not None]
    return len(tags) == len(branch_tags) == len(set(tags)) or (
        len(branch_tags) == 1 and not is_open
    )


def _with_declared(b: DefBuilder, v: Variant) -> Variant:
    d = b.get(v.type)
    declared = tuple(f.wire for f in all_fields(d, b.get)) if isinstance(d, ObjectDef) else ()
    return Variant(v.type, v.tag, v.required, v.title, v.implied, declared)


def _payload_union(b: DefBuilder, branch: dict[str, Any], pointer: str) -> UnionDef | None:
    """The union a branch is built on, when it is built on exactly one."""
    s = shape(unwrap(branch))
    refs = [m for m in s.get("allOf", []) if isinstance(m, dict) and "$ref" in shape(unwrap(m))]
    if "$ref" in s:
        refs = [s, *refs]
    if len(refs) != 1:
        return None
    target = b.get(ref_target(shape(unwrap(refs[0]))["$ref"], pointer, b.defs))
    return target if isinstance(target, UnionDef) else None


def _tag_is_ours(b: DefBuilder, v: Variant) -> bool:
    """Whether msgspec can select the variant by its tag: its Struct carries the tag itself (not
    as a const field of its own)."""
    d = b.built.get(v.type)
    return isinstance(d, ObjectDef) and (
        d.tag == v.tag if d.synthetic else b.tags.get(v.type) == v.tag
    )


def _variants(
    b: DefBuilder,
    union: str,
    branch: dict[str, Any],
    pointer: str,
    tag_field: str | None,
    base_fields: list[Field],
    base_required: set[str],
) -> Iterator[Variant]:
    node = unwrap(branch)
    s = shape(node)
    if set(s) - BRANCH_KEYS:
        what = sorted(set(s) - BRANCH_KEYS)[0]
        raise Untyped(f"{pointer}/{what}", f"{what} on a union branch has no typed form")
    check_object({k: v for k, v in s.items() if k != "$ref"}, pointer)
    closed = s.get("additionalProperties") is False
    tag = _tag_of(s, tag_field, base_required)
    # the tag pinned by what the branch is built on (a def it refers to, an inline allOf member):
    # the variant's Struct then has the tag as a const field of its own, and the hook selects by it
    pinned_by_payload = tag is None and _tag_of(
        _seen_through_refs(b, branch), tag_field, base_required
    )
    skip = frozenset({tag.field} if tag else ())
    title: str = branch["title"] if isinstance(branch.get("title"), str) else ""
    refs = [m for m in s.get("allOf", []) if isinstance(m, dict) and "$ref" in shape(unwrap(m))]
    inline = [
        m for m in s.get("allOf", []) if not (isinstance(m, dict) and "$ref" in shape(unwrap(m)))
    ]
    if "$ref" in s:
        refs = [{"$ref": s["$ref"]}, *refs]
    own_node = {k: v for k, v in s.items() if k in ("properties", "required")}
    if inline:
        own_node["allOf"] = inline
    own = merged_fields(b, union, own_node, pointer, skip)
    base = [f for f in base_fields if f.wire not in skip]
    label = _name_part(str(tag.value) if tag else title, pointer) if tag or title else None
    payloads = [b.get(ref_target(shape(unwrap(r))["$ref"], pointer, b.defs)) for r in refs]
    for r in refs:
        if len(shape(unwrap(r))) > 1:
            raise Untyped(pointer, "a $ref with other keywords beside it has no typed form")

    if len(payloads) == 1 and isinstance(payloads[0], UnionDef):
        yield from _flattened(
            b, union, payloads[0], pointer, tag, base + own, label, title, branch, closed
        )
        return
    for p in payloads:
        if not isinstance(p, ObjectDef) or p.closed and (own or base or len(payloads) > 1):
            raise Untyped(
                pointer,
                "a union branch built on something other than an open object def has no typed form",
            )
    objects = [p for p in payloads if isinstance(p, ObjectDef)]
    implied = (
        title if tag is None and not pinned_by_payload and tag_field is not None and title else None
    )
    if len(objects) == 1 and not own and not base and not closed and not objects[0].closed:
        payload = objects[0]
        clashes = tag is not None and any(f.wire == tag.field for f in all_fields(payload, b.get))
        required = tuple(f.wire for f in all_fields(payload, b.get) if f.required)
        if pinned_by_payload:
            # The payload pins the tag itself (a Literal field of its own): the hook selects by it.
            yield Variant(payload.name, pinned_by_payload, required, title, None)
            return
        if tag is None or (
            b.ref_counts.get(payload.name, 0) == 1 and not clashes and payload.name not in b.tags
        ):
            if tag is not None:
                b.tags[payload.name] = tag
            yield Variant(payload.name, tag, required, title, implied)
            return
    inherited: list[Field] = []
    parent = None
    if (
        len(objects) == 1
        and not any(f.wire in skip for f in all_fields(objects[0], b.get))
        and not objects[0].closed
    ):
        parent = objects[0].name
    else:
        for p in objects:
            inherited += [f for f in all_fields(p, b.get) if f.wire not in skip]
    fields = base + inherited + own
    name_part = label or (
        objects[0].name
        if objects
        else _name_part("_".join(sorted(f.wire for f in own)) or "object", pointer)
    )
    parent_fields = all_fields(objects[0], b.get) if parent else []
    made = _synthetic_variant(
        b,
        union,
        name_part,
        fields,
        tag,
        parent,
        pointer,
        title,
        description(branch),
        closed,
        parent_fields,
        implied,
    )
    if pinned_by_payload:  # its Struct has the tag as a const field: the hook selects by it
        made = Variant(made.type, pinned_by_payload, made.required, made.title, None)
    yield made


def _flattened(
    b: DefBuilder,
    union: str,
    payload: UnionDef,
    pointer: str,
    tag: Tag | None,
    shared: list[Field],
    label: str | None,
    title: str,
    branch: dict[str, Any],
    closed: bool,
) -> Iterator[Variant]:
    """A branch whose payload is itself a union: one variant per inner variant.

    The inner tag, if any, becomes a plain const field of the flattened variant.
    """
    for inner in payload.variants:
        inner_def = b.get(inner.type)
        assert isinstance(inner_def, ObjectDef)
        if inner_def.synthetic and inner.type.startswith(payload.name):
            # a variant the inner union named itself (say `StateUpdateIdleEndTurn`, one of several
            # sharing the tag `idle`): its name past the union's is what tells it apart
            inner_label = inner.type[len(payload.name) :]
        elif inner.tag or inner.title:
            inner_label = _name_part(str(inner.tag.value) if inner.tag else inner.title, pointer)
        else:
            inner_label = inner.type
        inner_tag = (
            [
                Field(
                    inner.tag.field,
                    naming.snake(inner.tag.field),
                    Const(inner.tag.value),
                    True,
                    pointer=pointer,
                )
            ]
            if inner.tag
            else []
        )
        fields = (
            shared
            + inner_tag
            + [f for f in all_fields(inner_def, b.get) if not tag or f.wire != tag.field]
        )
        yield _synthetic_variant(
            b,
            union,
            (label or payload.name) + inner_label,
            fields,
            tag,
            None,
            pointer,
            title,
            description(branch),
            closed or inner_def.closed,
        )


def _synthetic_variant(
    b: DefBuilder,
    union: str,
    label: str,
    fields: list[Field],
    tag: Tag | None,
    parent: str | None,
    pointer: str,
    title: str,
    branch_doc: str,
    closed: bool,
    parent_fields: Sequence[Field] = (),
    implied: str | None = None,
) -> Variant:
    name = b.synthetic_name(union, label)
    fields = unique_fields(fields, pointer)
    about = branch_doc or (description(b.defs.get(parent, {})) if parent else "")
    which = f"The `{tag.value}` variant of `{union}`" if tag else f"A variant of `{union}`"
    doc = f"{about}\n\n{which}." if about else f"{which}."
    unstable = is_unstable(about) or is_unstable(description(b.defs.get(union, {})))
    b.add(
        ObjectDef(
            name,
            tuple(fields),
            doc=doc,
            unstable=unstable,
            base=parent,
            tag=tag,
            synthetic=True,
            closed=closed,
            pointer=pointer,
        )
    )
    required = tuple(
        dict.fromkeys(
            [
                *(f.wire for f in parent_fields if f.required),
                *(f.wire for f in fields if f.required),
            ]
        )
    )
    return Variant(name, tag, required, title, implied)


def _name_part(text: str, pointer: str) -> str:
    """A class-name part from a tag value or branch title."""
    try:
        return naming.pascal(text)
    except ValueError:
        raise SchemaError(
            pointer, f"cannot make a class name from the tag or title {text!r}"
        ) from None


def _seen_through_refs(b: DefBuilder, branch: Any) -> dict[str, Any]:
    """A branch's properties and required keys, with those of its inline `allOf` members and of
    the defs it refers to directly (as a whole: each of them constrains the branch's values)."""
    if not isinstance(branch, dict):
        return {}
    s = shape(unwrap(branch))
    props: dict[str, Any] = {}
    required: list[str] = []
    members = [s] if "$ref" in s else []
    members += [m for m in s.get("allOf", []) if isinstance(m, dict)]
    for m in members:
        ms = shape(unwrap(m))
        if "$ref" in ms:
            target = b.defs.get(ref_target(ms["$ref"], "", b.defs))
            ms = shape(unwrap(target)) if isinstance(target, dict) else {}
        if isinstance(ms.get("properties"), dict):
            props.update(ms["properties"])
        required += ms.get("required", []) if isinstance(ms.get("required"), list) else []
    props.update(s.get("properties", {}))
    return {"properties": props, "required": required + list(s.get("required", []))}


def _tag_of(s: dict[str, Any], tag_field: str | None, base_required: set[str]) -> Tag | None:
    """The const a branch pins its union's tag field to (required by the branch or the union)."""
    if tag_field is None:  # no property tells the branches apart by a const: no tag
        return None
    props = s.get("properties", {})
    required = set(s.get("required", [])) | base_required
    for key in [tag_field]:
        p = props.get(key)
        p = shape(unwrap(p)) if isinstance(p, dict) else None
        if (
            p is not None
            and isinstance(p.get("const"), (str, int))
            and not isinstance(p.get("const"), bool)
            and key in required
        ):
            if set(p) - {"const", "type"}:
                continue
            return Tag(key, p["const"])
    return None


def _common_tag_field(branches: list[Any], base_required: set[str]) -> str | None:
    """The property that carries a required const in the branches that have one."""
    fields: set[str] | None = None
    for branch in branches:
        if not isinstance(branch, dict):
            continue
        s = shape(unwrap(branch))
        required = set(s.get("required", [])) | base_required
        consts = {
            k
            for k, p in s.get("properties", {}).items()
            if isinstance(p, dict) and _const_key(p) and k in required
        }
        if consts:
            fields = consts if fields is None else fields & consts
    if fields and len(fields) == 1:
        return next(iter(fields))
    return None


def _optional_consts(branches: list[Any], base_required: set[str]) -> set[str]:
    """The properties a branch pins to a const without requiring them: a value of that branch
    may lack them, so none of them tells the branches apart (a value with the const of another
    branch may still be this branch's, and one without it any branch's)."""
    optional: set[str] = set()
    for branch in branches:
        if not isinstance(branch, dict):
            continue
        s = shape(unwrap(branch))
        required = set(s.get("required", [])) | base_required
        optional.update(
            k
            for k, p in s.get("properties", {}).items()
            if isinstance(p, dict) and _const_key(p) and k not in required
        )
    return optional


def _const_key(p: dict[str, Any]) -> bool:
    value = shape(unwrap(p)).get("const")
    return isinstance(value, (str, int)) and not isinstance(value, bool)


def _is_catch_all(s: dict[str, Any], tag_field: str | None) -> bool:
    """The "other" branch of an open union: `not` the known ones, a tag with no const, or an
    object that keeps any extra key (a Struct would drop them)."""
    if "not" in s:
        return True
    if "$ref" in s or "allOf" in s:
        return False
    if s.get("additionalProperties") not in (None, False):
        return True
    if tag_field:
        p = s.get("properties", {}).get(tag_field)
        return isinstance(p, dict) and "const" not in shape(unwrap(p))
    return False
