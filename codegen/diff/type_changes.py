"""Defs compared: added, removed, renamed, and every paired def member by member.

Objects field by field (by wire name), enums value by value, unions variant by variant (by tag),
aliases by their type expression (exprs.py). Synthetic union variants have no def of their own in
the schema: they are compared as part of their union, under `Union[tag]`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

from ..ir import (
    NO_DEFAULT,
    AliasDef,
    Checked,
    Def,
    EnumDef,
    Field,
    ObjectDef,
    TypeExpr,
    UnionDef,
    Variant,
    all_fields,
    is_unstable,
    without_null,
)
from ..shadow import def_name, shadows
from .emitter import Emitter, Place
from .exprs import Exprs, show
from .leniency import forgiven
from .revision import Revision, pair_variants, variant_keys

_KIND_NAMES = {ObjectDef: "object", EnumDef: "enum", UnionDef: "union", AliasDef: "alias"}
_LENIENCY = (
    ("x-deserialize-default-on-error", "default_on_error"),
    ("x-deserialize-skip-invalid-items", "skip_invalid_items"),
    ("x-deserialize-default-on-null", "default_on_null"),
)


def compare_types(out: Emitter) -> None:
    _Types(out).run()


class _Types:
    def __init__(self, out: Emitter) -> None:
        self.out = out
        self.old, self.new, self.pairs = out.old, out.new, out.pairs
        self.exprs = Exprs(out.old, out.new, out.pairs)
        self.method_defs = out.old.method_defs() | out.new.method_defs()

    def run(self) -> None:
        out, paired_new = self.out, set(self.pairs.values())
        for name, d in self.old.defs.items():
            if name not in self.pairs and not self.old.is_synthetic(name):
                out.emit("type-removed", name, f"{_kind(d)} removed", out.at_defs(name, None))
        for name, d in self.new.defs.items():
            if name not in paired_new and not self.new.is_synthetic(name):
                note = " (UNSTABLE)" if d.unstable else ""
                out.emit("type-added", name, f"new {_kind(d)}{note}", out.at_defs(None, name))
        self.shadowing(paired_new)
        for a, b in self.pairs.items():
            if self.old.is_variant(a) or self.new.is_variant(b):
                continue  # compared as part of its union
            if a != b and not self.old.is_synthetic(a) and not self.new.is_synthetic(b):
                out.emit("type-renamed", b, f"renamed from {a}", out.at_defs(a, b), a)
            self.definition(self.old.defs[a], self.new.defs[b])

    def shadowing(self, paired_new: set[str]) -> None:
        """A def of either revision that comes, goes or is renamed under a name the generated code
        uses: its class takes another name (see acpgen/shadow.py)."""
        out = self.out
        renamed = {a: b for a, b in self.pairs.items() if a != b}
        for name in self.old.defs:
            if (name not in self.pairs or name in renamed) and self.shown(self.old, name):
                out.emit("type-shadows", name, _shadow_detail(name), out.at_defs(name, None))
        for name in self.new.defs:
            if (name not in paired_new or name in renamed.values()) and self.shown(self.new, name):
                out.emit("type-shadows", name, _shadow_detail(name), out.at_defs(None, name))

    @staticmethod
    def shown(rev: Revision, name: str) -> bool:
        return not rev.is_synthetic(name) and shadows(name)

    def definition(self, a: Def, b: Def) -> None:
        out, place = self.out, self.out.at_defs(a.name, b.name)
        place = dataclasses.replace(
            place, forgiven=(forgiven(self.old, a.name), forgiven(self.new, b.name))
        )
        if a.name not in self.method_defs and b.name not in self.method_defs:
            out.stability(a.doc, b.doc, b.name, place, a.name)  # a method's own defs: on the method
        out.described(a.doc, b.doc)
        if (
            isinstance(a, ObjectDef)
            and isinstance(b, UnionDef)
            and (kept := self.kept_shape(a, b, a_is_old=True))
        ):
            out.emit(
                (
                    "object-became-compatible-union"
                    if all(self.reads(a, True, self.new.defs[v.type], False) for v in b.variants)
                    else "object-became-union"
                ),
                b.name,
                f"object → union; the old shape is variant {kept}",
                place,
                a.name,
            )
        elif (
            isinstance(a, UnionDef)
            and isinstance(b, ObjectDef)
            and (kept := self.kept_shape(b, a, a_is_old=False))
        ):
            out.emit(
                (
                    "compatible-union-became-object"
                    if all(self.reads(b, False, self.old.defs[v.type], True) for v in a.variants)
                    else "union-became-object"
                ),
                b.name,
                f"union → object with the shape of variant {kept}",
                place,
                a.name,
            )
        elif (
            isinstance(a, ObjectDef)
            and isinstance(b, UnionDef)
            and (split := self.split_shape(a, b, obj_is_old=True)) is not None
        ):
            out.emit(
                "object-became-compatible-union" if split else "object-became-union",
                b.name,
                f"object → union, a variant per value of its field {b.tag_field!r}",
                place,
                a.name,
            )
        elif (
            isinstance(a, UnionDef)
            and isinstance(b, ObjectDef)
            and (split := self.split_shape(b, a, obj_is_old=False)) is not None
        ):
            out.emit(
                "compatible-union-became-object" if split else "union-became-object",
                b.name,
                f"union of a variant per value of {a.tag_field!r} → object with that field",
                place,
                a.name,
            )
        elif type(a) is not type(b) and (_checked(a) or _checked(b)):
            out.emit("type-became-checked", b.name, f"{_kind(a)} → {_kind(b)}", place, a.name)
        elif type(a) is not type(b):
            out.emit("type-kind-changed", b.name, f"{_kind(a)} → {_kind(b)}", place, a.name)
        elif isinstance(a, ObjectDef) and isinstance(b, ObjectDef):
            self.fields(a.fields, b.fields, b.name, a.name, place)
        elif isinstance(a, EnumDef) and isinstance(b, EnumDef):
            self.enum(a, b, place)
        elif isinstance(a, UnionDef) and isinstance(b, UnionDef):
            self.union(a, b, place)
        elif isinstance(a, AliasDef) and isinstance(b, AliasDef):
            for f in self.exprs.compare(a.type, b.type):
                out.emit(f.rule, b.name + f.member, f.detail, place, a.name + f.member)

    # ------------------------------------------------------------ objects

    def fields(
        self, a: Sequence[Field], b: Sequence[Field], subject: str, old_subject: str, place: Place
    ) -> None:
        olds, news = {f.wire: f for f in a}, {f.wire: f for f in b}
        for wire in olds.keys() - news.keys():
            f = olds[wire]
            rule, how = (
                ("field-removed-required", "required")
                if f.required
                else ("field-removed-optional", "optional")
            )
            self.out.emit(
                rule,
                f"{subject}.{wire}",
                f"{how} {show(f.type)} removed",
                place,
                f"{old_subject}.{wire}",
            )
        for wire in news.keys() - olds.keys():
            f = news[wire]
            rule, how = (
                ("field-added-required", "required")
                if f.required
                else ("field-added-optional", "optional")
            )
            note = " (UNSTABLE)" if is_unstable(f.doc) else ""
            self.out.emit(
                rule,
                f"{subject}.{wire}",
                f"new {how} {show(f.type)}{note}",
                place,
                f"{old_subject}.{wire}",
            )
        for wire in olds.keys() & news.keys():
            self.field(olds[wire], news[wire], f"{subject}.{wire}", f"{old_subject}.{wire}", place)

    def field(self, a: Field, b: Field, subject: str, old_subject: str, place: Place) -> None:
        out = self.out
        if a.required != b.required:
            rule, how = (
                ("field-became-required", "now required")
                if b.required
                else ("field-became-optional", "now optional")
            )
            out.emit(rule, subject, how, place, old_subject)
        lenient = dataclasses.replace(
            place,
            forgiven=(
                place.forgiven[0] or a.default_on_error,
                place.forgiven[1] or b.default_on_error,
            ),
        )  # a bad value of the field is defaulted, or makes its forgiven holder dropped
        for f in self.exprs.compare(a.type, b.type):
            out.emit(f.rule, subject + f.member, f.detail, lenient, old_subject + f.member)
        if not a.required and not b.required and not _same_default(a.default, b.default):
            if a.default is NO_DEFAULT:
                out.emit(
                    "default-added", subject, f"default {_json(b.default)}", place, old_subject
                )
            elif b.default is NO_DEFAULT:
                out.emit(
                    "default-removed",
                    subject,
                    f"default {_json(a.default)} removed",
                    place,
                    old_subject,
                )
            else:
                out.emit(
                    "default-changed",
                    subject,
                    f"default {_json(a.default)} → {_json(b.default)}",
                    place,
                    old_subject,
                )
        for keyword, attribute in _LENIENCY:
            was, now = getattr(a, attribute), getattr(b, attribute)
            if was != now:
                rule, how = ("leniency-added", "added") if now else ("leniency-removed", "removed")
                out.emit(rule, subject, f"{keyword} {how}", place, old_subject)
        out.stability(a.doc, b.doc, subject, place, old_subject)
        out.described(a.doc, b.doc)

    # ------------------------------------------------------------ enums

    def enum(self, a: EnumDef, b: EnumDef, place: Place) -> None:
        out = self.out
        if a.kind != b.kind:
            out.emit("type-changed", b.name, f"{a.kind} enum → {b.kind} enum", place, a.name)
            return
        olds, news = {m.value: m for m in a.members}, {m.value: m for m in b.members}
        for value in news.keys() - olds.keys():
            rule = "open-enum-value-added" if a.open else "enum-value-added"
            note = " (UNSTABLE)" if is_unstable(news[value].doc) else ""
            out.emit(
                rule,
                f"{b.name}[{value}]",
                f"new value {_json(value)}{note}",
                place,
                f"{a.name}[{value}]",
            )
        for value in olds.keys() - news.keys():
            rule = "open-enum-value-removed" if b.open else "enum-value-removed"
            out.emit(
                rule,
                f"{b.name}[{value}]",
                f"value {_json(value)} removed",
                place,
                f"{a.name}[{value}]",
            )
        for value in olds.keys() & news.keys():
            ma, mb = olds[value], news[value]
            subject, old_subject = f"{b.name}[{value}]", f"{a.name}[{value}]"
            if ma.name != mb.name:
                out.emit(
                    "enum-member-renamed",
                    subject,
                    f"member {ma.name} → {mb.name}",
                    place,
                    old_subject,
                )
            out.stability(ma.doc, mb.doc, subject, place, old_subject)
            out.described(ma.doc, mb.doc)
        if a.open != b.open:
            rule, how = (
                ("enum-opened", "now accepts other values")
                if b.open
                else ("enum-closed", "no longer accepts other values")
            )
            out.emit(rule, b.name, how, place, a.name)

    # ------------------------------------------------------------ unions

    def union(self, a: UnionDef, b: UnionDef, place: Place) -> None:
        out = self.out
        if a.tag_field and b.tag_field and a.tag_field != b.tag_field:
            out.emit(
                "union-tag-changed", b.name, f"tag {a.tag_field!r} → {b.tag_field!r}", place, a.name
            )
        if a.open != b.open:
            rule, how = (
                ("union-opened", "now accepts unknown variants")
                if b.open
                else ("union-closed", "no longer accepts unknown variants")
            )
            out.emit(rule, b.name, how, place, a.name)
        pairs, removed, added = pair_variants(a, b, self.pairs)
        for key, v in added.items():
            rule = (
                "open-union-variant-added"
                if a.open or self.read_as(a, v, old_union=True)
                else "union-variant-added"
            )
            note = " (UNSTABLE)" if is_unstable(self.new.branch_doc(b, v)) else ""
            out.emit(
                rule,
                f"{b.name}[{key}]",
                f"new variant {_payload(self.new, v)}{note}",
                place,
                f"{a.name}[{key}]",
            )
        for key, v in removed.items():
            rule = (
                "open-union-variant-removed"
                if b.open or self.read_as(b, v, old_union=False)
                else "union-variant-removed"
            )
            out.emit(
                rule,
                f"{b.name}[{key}]",
                f"variant {_payload(self.old, v)} removed",
                place,
                f"{a.name}[{key}]",
            )
        for old_key, key, va, vb in pairs:
            self.variant((a, va), (b, vb), f"{b.name}[{key}]", f"{a.name}[{old_key}]", place)

    def variant(
        self,
        old: tuple[UnionDef, Variant],
        new: tuple[UnionDef, Variant],
        subject: str,
        old_subject: str,
        place: Place,
    ) -> None:
        """A variant's fields; a variant built on a paired payload def only by its own fields."""
        doc_a, doc_b = self.old.branch_doc(*old), self.new.branch_doc(*new)
        self.out.stability(doc_a, doc_b, subject, place, old_subject)
        self.out.described(doc_a, doc_b)
        da, db = self.old.defs[old[1].type], self.new.defs[new[1].type]
        if not isinstance(da, ObjectDef) or not isinstance(db, ObjectDef):
            return
        if not da.synthetic and not db.synthetic:  # payload defs: compared as defs
            if self.pairs.get(da.name) != db.name:
                self.out.emit(
                    "type-changed", subject, f"payload {da.name} → {db.name}", place, old_subject
                )
            return
        (base_a, own_a), (base_b, own_b) = _parts(da), _parts(db)
        same_base = (
            base_a == base_b
            if base_a is None or base_b is None
            else self.pairs.get(base_a) == base_b
        )
        if same_base:
            self.fields(own_a, own_b, subject, old_subject, place)
        else:
            self.fields(
                all_fields(da, self.old.defs.get),
                all_fields(db, self.new.defs.get),
                subject,
                old_subject,
                place,
            )

    def read_as(self, union: UnionDef, v: Variant, old_union: bool) -> bool:
        """Whether the values of `v` (a variant of the other revision) are still read by `union`:
        an untagged variant of it (which takes any tag value) requires no field `v` lacks, and
        the fields both have are the same on the wire. Such a variant is to `union` what an
        unknown one is to an open union: still accepted, read as that variant."""
        union_rev, v_rev = (self.old, self.new) if old_union else (self.new, self.old)
        d = v_rev.defs[v.type]
        return any(
            u.tag is None and self.reads(union_rev.defs[u.type], old_union, d, not old_union)
            for u in union.variants
        )

    def reads(self, reader: Def, reader_is_old: bool, value: Def, value_is_old: bool) -> bool:
        """Whether the object `reader` reads every value of the object `value` (of either
        revision): it requires no field `value` may leave out, and the fields both have are the
        same on the wire (other fields it ignores)."""
        if not isinstance(reader, ObjectDef) or not isinstance(value, ObjectDef):
            return False
        r_rev = self.old if reader_is_old else self.new
        v_rev = self.old if value_is_old else self.new
        ours = {f.wire: f for f in all_fields(reader, r_rev.defs.get)}
        theirs = {f.wire: f for f in all_fields(value, v_rev.defs.get)}
        if any(f.required and not (w in theirs and theirs[w].required) for w, f in ours.items()):
            return False
        return all(
            self._same_field(ours[w].type, theirs[w].type, reader_is_old, value_is_old)
            for w in ours.keys() & theirs.keys()
        )

    def _same_field(
        self, ours: TypeExpr, theirs: TypeExpr, ours_old: bool, theirs_old: bool
    ) -> bool:
        if ours_old == theirs_old:
            return ours == theirs
        return self.exprs.same(ours, theirs) if ours_old else self.exprs.same(theirs, ours)

    def split_shape(self, obj: ObjectDef, union: UnionDef, obj_is_old: bool) -> bool | None:
        """Whether `union` (of the other revision) is `obj` split by the values of one of its
        fields: every variant is tagged by that field and has the object's other fields (the same
        on the wire, required alike), each value the field takes is a variant's tag, and where the
        field may be absent or null the union is open. Then every value of the object is a value
        of the union. None when it is not such a split; else whether the object also reads every
        variant (each tag is a value of its field, or the field takes any value)."""
        tag, union_is_old = union.tag_field, not obj_is_old
        obj_rev, union_rev = (self.old, self.new) if obj_is_old else (self.new, self.old)
        fields = {f.wire: f for f in all_fields(obj, obj_rev.defs.get)}
        if tag is None or tag not in fields or not union.variants:
            return None
        own = {w: f for w, f in fields.items() if w != tag}
        for v in union.variants:
            d = union_rev.defs.get(v.type)
            if v.tag is None or v.tag.field != tag or not isinstance(d, ObjectDef):
                return None
            theirs = {f.wire: f for f in all_fields(d, union_rev.defs.get) if f.wire != tag}
            if {w for w, f in own.items() if f.required} != {
                w for w, f in theirs.items() if f.required
            } or not all(
                self._same_field(own[w].type, theirs[w].type, obj_is_old, union_is_old)
                for w in own.keys() & theirs.keys()
            ):
                return None
        field = fields[tag]
        values = self.exprs.values_of(without_null(field.type), obj_is_old)
        tags = {v.tag.value for v in union.variants if v.tag is not None}
        absent = not field.required or without_null(field.type) != field.type
        if values is None or not values[0] <= tags or (values[1] or absent) and not union.open:
            return None
        return values[1] or field.default_on_error or tags <= values[0]

    def kept_shape(self, obj: ObjectDef, union: UnionDef, a_is_old: bool) -> str | None:
        """The key of an untagged variant of `union` whose fields are exactly those of `obj`."""
        union_rev = self.new if a_is_old else self.old
        fields = {f.wire: f for f in obj.fields}
        for key, v in variant_keys(union).items():
            d = union_rev.defs[v.type]
            if v.tag is not None or not isinstance(d, ObjectDef):
                continue
            theirs = {f.wire: f for f in all_fields(d, union_rev.defs.get)}
            if theirs.keys() == fields.keys() and all(
                fields[w].required == theirs[w].required
                and (
                    self.exprs.same(fields[w].type, theirs[w].type)
                    if a_is_old
                    else self.exprs.same(theirs[w].type, fields[w].type)
                )
                for w in fields
            ):
                return key
        return None


# ---------------------------------------------------------------- helpers


def _parts(d: ObjectDef) -> tuple[str | None, tuple[Field, ...]]:
    """A variant as (the def it builds on, its own fields): a plain payload def is all base."""
    return (d.base, d.fields) if d.synthetic else (d.name, ())


def _shadow_detail(name: str) -> str:
    return (
        f"{name} is a name the generated code uses (a builtin, an import or a helper of its"
        f" own): its class is {def_name(name)}"
    )


def _payload(rev: Revision, v: Variant) -> str:
    d = rev.defs[v.type]
    if isinstance(d, ObjectDef) and d.synthetic:
        return d.base or "(inline object)"
    return v.type


def _same_default(a: object, b: object) -> bool:
    """Equal, or objects that agree on every key both have (a default that only gained or lost
    keys follows fields added or removed, which are reported as such)."""
    if isinstance(a, dict) and isinstance(b, dict):
        return all(_same_default(a[k], b[k]) for k in a.keys() & b.keys())
    return a == b and type(a) is type(b)


def _kind(d: Def) -> str:
    return "any JSON value checked against the schema" if _checked(d) else _KIND_NAMES[type(d)]


def _checked(d: Def) -> bool:
    """An alias of the general form: the generator found no typed form for the def."""
    return isinstance(d, AliasDef) and isinstance(d.type, Checked)


def _json(value: object) -> str:
    return json.dumps(value, sort_keys=True)
