"""Schema -> IR: classify every def, shape unions, and collect the method tables.

Nothing here knows a def name, a field name or a revision: every decision is read off the
structure of the schema (consts, required keys, `x-method`/`x-side`, the JSON-RPC envelopes).
"""

from __future__ import annotations

import keyword
from typing import Any, Iterator

from . import naming
from .errors import SchemaError
from .ir import (
    NO_DEFAULT,
    AliasDef,
    Def,
    EnumDef,
    EnumMember,
    ErrorCode,
    Const,
    Field,
    ObjectDef,
    Package,
    Ref,
    Tag,
    UnionDef,
    Variant,
    is_unstable,
)
from .methods import collect_methods, is_envelope
from .native import alias_is_native
from .schema import Schema, pointer_of, ref_target
from .types import annotation, check_keywords, shape, type_of, unwrap

def build(schema: Schema) -> Package:
    """The IR of a whole schema."""
    return _Builder(schema).package()


class _Builder:
    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.defs = schema.defs
        self.built: dict[str, Def] = {}
        self.order: list[str] = []
        self.in_progress: set[str] = set()
        self.hoisting: set[str] = set()  # pointers of inline types being named (never twice at once)
        self.ref_counts = _ref_counts(self.defs)
        self.tags: dict[str, Tag] = {}  # payload defs that carry their union's tag themselves
        self.methods = collect_methods(schema)
        self.envelopes = {name for name in self.defs if _is_envelope(name, self.defs)}

    # ------------------------------------------------------------ driver

    def package(self) -> Package:
        for name in self.defs:
            if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
                raise SchemaError(pointer_of(name), f"the def name {name!r} cannot be a Python class name")
        for name in self.defs:
            if name not in self.envelopes:
                self.get(name)
        defs = [self._with_tag(self.built[n]) for n in self.order]
        names = {d.name for d in defs}
        for m in self.methods:
            for type_name in (m.params, m.result):
                if type_name is not None and type_name not in names:
                    raise SchemaError(pointer_of(type_name), "a method's params or result def was not generated")
        return Package(
            schema_name=self.schema.name,
            schema_sha256=self.schema.sha256,
            defs=tuple(defs),
            methods=self.methods,
            error_codes=self._error_codes(defs),
        )

    def _with_tag(self, d: Def) -> Def:
        if isinstance(d, ObjectDef) and d.name in self.tags:
            return ObjectDef(**{**d.__dict__, "tag": self.tags[d.name]})
        return d

    def get(self, name: str) -> Def:
        if name in self.built:
            return self.built[name]
        if name in self.in_progress:
            raise SchemaError(pointer_of(name), "a union is built on itself")
        self.in_progress.add(name)
        d = self._build_def(name, self.defs[name], pointer_of(name))
        self.in_progress.discard(name)
        self._add(d)
        return d

    def _add(self, d: Def) -> None:
        if d.name in self.built:
            raise SchemaError(d.pointer, f"the name {d.name!r} is given twice")
        self.built[d.name] = d
        self.order.append(d.name)

    def _synthetic_name(self, *parts: str) -> str:
        name = "".join(parts)
        if name in self.defs or name in self.built:
            name += "Variant"
        if name in self.defs or name in self.built:
            raise SchemaError(pointer_of(parts[0]), f"cannot find a free name for {name!r}")
        return name

    # ------------------------------------------------------------ classification

    def _build_def(self, name: str, body: dict[str, Any], pointer: str) -> Def:
        check_keywords(body, pointer)
        doc = _doc(body)
        node = unwrap(body)
        s = shape(node)
        enum = self._as_enum(name, node, pointer, doc)
        if enum is not None:
            return enum
        branches_key = "oneOf" if "oneOf" in s else "anyOf" if "anyOf" in s else None
        if branches_key and self._has_object_branch(s[branches_key]):
            return self._build_union(name, node, branches_key, pointer, doc)
        if "properties" in s or "allOf" in s:
            return self._build_object(name, node, pointer, doc)
        t = type_of(node, pointer, self._hoist, self.defs)
        return AliasDef(name, t, native=alias_is_native(t, self.get), doc=doc, unstable=is_unstable(doc), pointer=pointer)

    def _hoist(self, node: dict[str, Any], pointer: str) -> Ref:
        """Give an inline object or union a def of its own, named after where it stands."""
        if pointer in self.hoisting:
            raise SchemaError(pointer, "this union mixes objects with other types in a way the generator does not understand")
        parts = [p for p in pointer.split("/")[2:] if p not in ("properties", "items", "anyOf", "oneOf", "allOf")]
        name = self._synthetic_name(*(naming.pascal(p, default="") if not p.isdigit() else "" for p in parts))
        if not name.isidentifier():
            raise SchemaError(pointer, f"cannot name this inline type after where it stands ({name!r})")
        self.hoisting.add(pointer)
        d = self._build_def(name, node, pointer)
        self.hoisting.discard(pointer)
        self._add(d)
        return Ref(name)

    def _as_enum(self, name: str, node: dict[str, Any], pointer: str, doc: str) -> EnumDef | None:
        """A def made only of string (or integer) consts, plus at most one plain catch-all branch."""
        s = shape(node)
        if "enum" in s:
            values = s["enum"]
            branches = [{"const": v} for v in values]
            key = "enum"
        else:
            key = "oneOf" if "oneOf" in s else "anyOf" if "anyOf" in s else None
            if key is None or set(s) - {key, "type"}:
                return None
            branches = s[key]
        consts = [b for b in branches if isinstance(b, dict) and "const" in b]
        others = [b for b in branches if not (isinstance(b, dict) and "const" in b)]
        if not consts:
            return None
        values = [b["const"] for b in consts]
        if all(isinstance(v, str) for v in values):
            kind, json_type = "str", "string"
        elif all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            kind, json_type = "int", "integer"
        else:
            return None
        if len(others) > 1 or any(not isinstance(o, dict) or set(shape(o)) - {"type", "format"} or o.get("type") != json_type for o in others):
            return None
        members = []
        seen: set[str] = set()
        for i, b in enumerate(consts):
            title = b.get("title")
            member = naming.constant(title if kind == "int" and isinstance(title, str) else str(b["const"]))
            if member in seen:
                raise SchemaError(f"{pointer}/{key}/{i}", f"two enum values are both named {member}")
            seen.add(member)
            members.append(EnumMember(member, b["const"], _doc(b)))
        return EnumDef(name, kind, tuple(members), open=bool(others), doc=doc, unstable=is_unstable(doc), pointer=pointer)

    def _has_object_branch(self, branches: list[Any], seen: frozenset[str] = frozenset()) -> bool:
        """Whether a union has a branch that is an object (inline, or through refs, followed once)."""
        for b in branches:
            if not isinstance(b, dict):
                continue
            s = shape(unwrap(b))
            if "properties" in s or "allOf" in s or s.get("type") == "object" and "not" in s:
                return True
            if "$ref" in s:
                name = ref_target(s["$ref"], "", self.defs)
                ts = shape(unwrap(self.defs[name]))
                nested = ts.get("anyOf") or ts.get("oneOf")
                if "properties" in ts or (isinstance(nested, list) and name not in seen and self._has_object_branch(nested, seen | {name})):
                    return True
        return False

    # ------------------------------------------------------------ objects

    def _build_object(self, name: str, node: dict[str, Any], pointer: str, doc: str) -> ObjectDef:
        fields = self._fields(name, node, pointer)
        return ObjectDef(name, tuple(fields), doc=doc, unstable=is_unstable(doc), pointer=pointer)

    def _fields(self, owner: str, node: dict[str, Any], pointer: str, skip: frozenset[str] = frozenset()) -> list[Field]:
        """The fields of an object node, with those of the object defs its allOf names merged in."""
        s = shape(node)
        fields: list[Field] = []
        for i, member in enumerate(s.get("allOf", [])):
            member = unwrap(member)
            if "$ref" in member:
                target = self.get(ref_target(member["$ref"], f"{pointer}/allOf/{i}/$ref", self.defs))
                if not isinstance(target, ObjectDef):
                    raise SchemaError(f"{pointer}/allOf/{i}", "allOf may only merge object defs")
                fields.extend(target.fields)
            else:
                fields.extend(self._fields(owner, member, f"{pointer}/allOf/{i}", skip))
        required = set(s.get("required", []))
        for wire, prop in s.get("properties", {}).items():
            if wire in skip:
                continue
            fields.append(self._field(owner, wire, prop, wire in required, f"{pointer}/properties/{wire}"))
        return _unique_fields(fields, pointer)

    def _field(self, owner: str, wire: str, prop: Any, required: bool, pointer: str) -> Field:
        t = type_of(prop, pointer, self._hoist, self.defs)
        prop = prop if isinstance(prop, dict) else {}
        default = annotation(prop, "default")
        return Field(
            wire=wire,
            name=naming.snake(wire),
            type=t,
            required=required,
            doc=_doc(prop),
            default=NO_DEFAULT if default is None or required else default,
            default_on_error=bool(prop.get("x-deserialize-default-on-error")),
            skip_invalid_items=bool(prop.get("x-deserialize-skip-invalid-items")),
            pointer=pointer,
        )

    # ------------------------------------------------------------ unions of objects

    def _build_union(self, name: str, node: dict[str, Any], key: str, pointer: str, doc: str) -> UnionDef:
        s = shape(node)
        base_fields = self._fields(name, {k: v for k, v in s.items() if k in ("properties", "required")}, pointer)
        discriminator = node.get("discriminator", {}).get("propertyName") if isinstance(node.get("discriminator"), dict) else None
        tag_field = discriminator or _common_tag_field(s[key])
        variants: list[Variant] = []
        is_open = False
        for i, branch in enumerate(s[key]):
            bp = f"{pointer}/{key}/{i}"
            if not isinstance(branch, dict):
                raise SchemaError(bp, "a union branch must be an object")
            check_keywords(branch, bp)
            if _is_catch_all(branch, tag_field):
                is_open = True
                continue
            if shape(branch) == {"type": "null"}:
                raise SchemaError(bp, "a null branch in a union of objects is not understood; make the field nullable")
            variants.extend(self._variants(name, branch, bp, tag_field, base_fields))
        tags = [v.tag.value for v in variants if v.tag]
        single = len(variants) == 1 and variants[0].tag is None
        # Open unions go through the hook, which keeps unknown variants; msgspec would reject them.
        native = not is_open and (single or (
            tag_field is not None
            and all(v.tag is not None and v.tag.field == tag_field for v in variants)
            and len(set(tags)) == len(tags)
            and all(self._tag_is_ours(v) for v in variants)
        ))
        return UnionDef(name, tuple(variants), tag_field, native, is_open, doc=doc, unstable=is_unstable(doc), pointer=pointer)

    def _all_fields(self, d: ObjectDef) -> list[Field]:
        """A Struct's fields, its bases' first."""
        inherited = self._all_fields(self.get(d.base)) if d.base else []  # type: ignore[arg-type]
        return inherited + [f for f in d.fields if f.wire not in {i.wire for i in inherited}]

    def _tag_is_ours(self, v: Variant) -> bool:
        d = self.built.get(v.type)
        return isinstance(d, ObjectDef) and (d.synthetic or self.tags.get(v.type) == v.tag)

    def _variants(self, union: str, branch: dict[str, Any], pointer: str, tag_field: str | None, base_fields: list[Field]) -> Iterator[Variant]:
        b = unwrap(branch)
        s = shape(b)
        tag = _tag_of(s, tag_field)
        refs = [m for m in s.get("allOf", []) if isinstance(m, dict) and "$ref" in unwrap(m)]
        if "$ref" in s:
            refs = [s]
        extra = {k: v for k, v in s.items() if k in ("properties", "required")}
        extra_props = {k: v for k, v in extra.get("properties", {}).items() if not tag or k != tag.field}
        title = branch.get("title") or ""
        if len(refs) > 1 or set(s) - {"$ref", "allOf", "properties", "required", "type"}:
            raise SchemaError(pointer, "a union branch with this shape is not understood")
        payload = self.get(ref_target(unwrap(refs[0])["$ref"], pointer, self.defs)) if refs else None
        label = _name_part(str(tag.value) if tag else title, pointer) if tag or title else None

        if isinstance(payload, UnionDef):
            # A branch whose payload is itself a union: one variant per inner variant, flattened.
            # The inner tag, if any, becomes a plain const field of the flattened variant.
            for inner in payload.variants:
                inner_def = self.get(inner.type)
                assert isinstance(inner_def, ObjectDef)
                inner_label = _name_part(str(inner.tag.value) if inner.tag else inner.title, pointer) if inner.tag or inner.title else inner.type
                inner_tag = [Field(inner.tag.field, naming.snake(inner.tag.field), Const(inner.tag.value), True, pointer=pointer)] if inner.tag else []
                fields = (
                    base_fields
                    + self._fields(union, extra, pointer, skip=frozenset({tag.field} if tag else ()))
                    + inner_tag
                    + [f for f in self._all_fields(inner_def) if not tag or f.wire != tag.field]
                )
                yield self._synthetic_variant(union, (label or payload.name) + inner_label, fields, tag, None, pointer, title, _doc(branch))
            return
        if payload is not None and not isinstance(payload, ObjectDef):
            raise SchemaError(pointer, f"a union branch refers to {payload.name!r}, which is not an object def")

        own = self._fields(union, {"properties": extra_props, "required": extra.get("required", [])}, pointer)
        required_of_payload = tuple(f.wire for f in payload.fields if f.required) if payload else ()
        if payload is not None and not own and not base_fields:
            clashes = tag is not None and any(f.wire == tag.field for f in payload.fields)
            if tag is None or (self.ref_counts.get(payload.name, 0) == 1 and not clashes and payload.name not in self.tags):
                if tag is not None:
                    self.tags[payload.name] = tag
                yield Variant(payload.name, tag, required_of_payload, title)
                return
        base = payload.name if payload is not None and not (tag and any(f.wire == tag.field for f in payload.fields)) else None
        fields = base_fields + own
        if payload is not None and base is None:
            fields = base_fields + [f for f in payload.fields if not tag or f.wire != tag.field] + own
        name_part = label or (payload.name if payload else _name_part("_".join(sorted(extra_props)), pointer))
        yield self._synthetic_variant(union, name_part, fields, tag, base, pointer, title, _doc(branch), required_of_payload)

    def _synthetic_variant(
        self,
        union: str,
        label: str,
        fields: list[Field],
        tag: Tag | None,
        base: str | None,
        pointer: str,
        title: str,
        branch_doc: str,
        inherited_required: tuple[str, ...] = (),
    ) -> Variant:
        name = self._synthetic_name(union, label)
        fields = _unique_fields(fields, pointer)
        about = branch_doc or (_doc(self.defs.get(base, {})) if base else "")
        which = f"The `{tag.value}` variant of `{union}`" if tag else f"A variant of `{union}`"
        doc = f"{about}\n\n{which}." if about else f"{which}."
        unstable = is_unstable(about) or is_unstable(_doc(self.defs.get(union, {})))
        self._add(ObjectDef(name, tuple(fields), doc=doc, unstable=unstable, base=base, tag=tag, synthetic=True, pointer=pointer))
        required = inherited_required + tuple(f.wire for f in fields if f.required)
        return Variant(name, tag, required, title)

    # ------------------------------------------------------------ errors

    def _error_codes(self, defs: list[Def]) -> tuple[ErrorCode, ...]:
        """The integer enum that types the `code` of the JSON-RPC error object."""
        by_name = {d.name: d for d in defs}
        codes: list[ErrorCode] = []
        for d in defs:
            if not isinstance(d, ObjectDef):
                continue
            names = {f.wire for f in d.fields}
            if not {"code", "message"} <= names:
                continue
            code = next(f for f in d.fields if f.wire == "code")
            target = by_name.get(code.type.name) if isinstance(code.type, Ref) else None
            if isinstance(target, EnumDef) and target.kind == "int":
                for m in target.members:
                    title = naming.pascal(m.name.lower())
                    cls = title if title.endswith("Error") else title + "Error"
                    codes.append(ErrorCode(int(m.value), m.name, cls, m.doc))
        unique = {c.code: c for c in codes}
        return tuple(sorted(unique.values(), key=lambda c: -c.code))


# ---------------------------------------------------------------- helpers


def _name_part(text: str, pointer: str) -> str:
    """A class-name part from a tag value or branch title; SchemaError when it has no letters or digits."""
    try:
        return naming.pascal(text)
    except ValueError:
        raise SchemaError(pointer, f"cannot make a class name from the tag or title {text!r}") from None


def _doc(node: Any) -> str:
    if not isinstance(node, dict):
        return ""
    d = annotation(node, "description")
    return d.strip() if isinstance(d, str) else ""


def _tag_of(s: dict[str, Any], tag_field: str | None) -> Tag | None:
    props = s.get("properties", {})
    required = s.get("required", [])
    candidates = [tag_field] if tag_field else list(props)
    for key in candidates:
        p = props.get(key)
        if isinstance(p, dict) and isinstance(p.get("const"), (str, int)) and key in required:
            return Tag(key, p["const"])
    return None


def _common_tag_field(branches: list[Any]) -> str | None:
    """The property that carries a required const in the branches that have one."""
    fields: set[str] | None = None
    for b in branches:
        if not isinstance(b, dict):
            continue
        s = shape(unwrap(b))
        consts = {k for k, p in s.get("properties", {}).items() if isinstance(p, dict) and isinstance(p.get("const"), (str, int)) and k in s.get("required", [])}
        if consts:
            fields = consts if fields is None else fields & consts
    if fields and len(fields) == 1:
        return next(iter(fields))
    return None


def _is_catch_all(branch: dict[str, Any], tag_field: str | None) -> bool:
    """The "other" branch of an open union: `not` the known ones, or a tag with no const."""
    s = shape(branch)
    if "not" in s:
        return True
    if tag_field and "$ref" not in s and "allOf" not in s:
        p = s.get("properties", {}).get(tag_field)
        return isinstance(p, dict) and "const" not in p
    return False


def _unique_fields(fields: list[Field], pointer: str) -> list[Field]:
    by_wire: dict[str, Field] = {}
    for f in fields:
        by_wire[f.wire] = f  # a later declaration (the variant's own) wins over a merged one
    names: dict[str, str] = {}
    for f in by_wire.values():
        if f.name in names:
            raise SchemaError(f.pointer or pointer, f"properties {names[f.name]!r} and {f.wire!r} both become the attribute {f.name!r}")
        names[f.name] = f.wire
    return list(by_wire.values())


def _ref_counts(defs: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                name = ref_target(node["$ref"], "")
                counts[name] = counts.get(name, 0) + 1
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    for name, body in defs.items():
        if not _is_envelope(name, defs):
            walk(body)
    return counts


def _is_envelope(name: str, defs: dict[str, Any]) -> bool:
    """A JSON-RPC envelope def: it names methods' params or results, it is not a protocol type."""
    return is_envelope(defs[name], defs)


__all__ = ["build", "is_unstable"]
