"""Schema -> IR: the driver. Every def is classified and built by the module of its kind
(`enums`, `objects`, `unions`; methods and error codes in `methods` and `protocol`); this module
keeps the registry of names, hoists inline types, and gives every construct without a typed form
its general form (`Checked`), with a notice naming its pointer.

Nothing here knows a def name, a field name or a revision: every decision is read off the
structure of the schema (consts, required keys, `x-method`/`x-side`, the JSON-RPC envelopes).
"""

from __future__ import annotations

import keyword
import unicodedata
from dataclasses import replace
from typing import Any

from . import naming
from .defaults import default_expr, empty_value
from .enums import as_enum
from .errors import SchemaError, Untyped
from .ir import (
    ANY,
    NO_DEFAULT,
    AliasDef,
    Checked,
    Def,
    Field,
    ListOf,
    MapOf,
    Method,
    Notice,
    ObjectDef,
    Package,
    Ref,
    Tag,
    TypeExpr,
    UnionOf,
    is_nullable,
    is_unstable,
)
from .methods import collect_methods, is_envelope
from .native import alias_is_native, decodable
from .objects import build_object
from .protocol import error_codes
from .schema import Schema, pointer_of, ref_target
from .types import (
    accepts_anything,
    check_keywords,
    description,
    is_object_branch,
    shape,
    type_of,
    unwrap,
)
from .unions import build_union


def build(schema: Schema) -> Package:
    """The IR of a whole schema."""
    return Builder(schema).package()


class Builder:
    """The registry of defs being built, shared by the modules that build each kind."""

    def __init__(self, schema: Schema) -> None:
        self.schema = schema
        self.defs = schema.defs
        self.built: dict[str, Def] = {}
        self.order: list[str] = []
        self.in_progress: set[str] = set()
        self.hoisting: set[str] = (
            set()
        )  # pointers of inline types being named (never twice at once)
        self.ref_counts = _ref_counts(self.defs)
        self.tags: dict[str, Tag] = {}  # payload defs that carry their union's tag themselves
        self.checked: dict[str, Any] = (
            {}
        )  # pointer -> schema node, for general forms and open unions
        self.notices: list[Notice] = []
        self.methods, method_notices = collect_methods(schema)
        self.notices.extend(method_notices)
        self.envelopes = {name for name in self.defs if is_envelope(self.defs[name], self.defs)}

    # ------------------------------------------------------------ driver

    def package(self) -> Package:
        for name in self.defs:
            if not name.isidentifier() or keyword.iskeyword(name) or name.startswith("_"):
                raise SchemaError(
                    pointer_of(name), f"the def name {name!r} cannot be a Python class name"
                )
            if unicodedata.normalize("NFKC", name) != name:
                raise SchemaError(
                    pointer_of(name),
                    f"the def name {name!r} is not in NFKC form: Python would read it as"
                    f" {unicodedata.normalize('NFKC', name)!r}",
                )
        for name in self.defs:
            if name not in self.envelopes:
                self.get(name)
        for m in self.methods:
            for type_name in (m.params, m.result):
                if type_name is not None and type_name not in self.built:
                    self.get(type_name)  # a method def that is also an envelope
        self._break_alias_cycles()
        self._name_foreign_unions()
        defs = tuple(self._finished(self.built[n]) for n in self.order)
        return Package(
            schema_name=self.schema.name,
            schema_sha256=self.schema.sha256,
            defs=defs,
            methods=self.methods,
            error_codes=error_codes(defs),
            checked=tuple(sorted(self.checked.items())),
            checked_defs=tuple(
                sorted((n, self.defs[n]) for n in _referenced(self.checked.values(), self.defs))
            ),
            notices=tuple(self.notices),
            warnings=self.schema.warnings,
        )

    def get(self, name: str) -> Def:
        if name in self.built:
            return self.built[name]
        if name in self.in_progress:
            raise Untyped(pointer_of(name), "a def built on itself has no typed form")
        self.in_progress.add(name)
        try:
            d = self.build_def(name, self.defs[name], pointer_of(name))
        finally:
            self.in_progress.discard(name)
        self.add(d)
        return d

    def add(self, d: Def) -> None:
        if d.name in self.built:
            raise SchemaError(d.pointer, f"the name {d.name!r} is given twice")
        self.built[d.name] = d
        self.order.append(d.name)

    def synthetic_name(self, *parts: str) -> str:
        """A name for a def the schema does not name: its parts joined, `Variant` on a clash."""
        name = "".join(parts)
        if name in self.defs or name in self.built:
            name += "Variant"
        while name in self.defs or name in self.built:
            name += "_"
        return name

    def check(self, pointer: str, node: Any) -> str:
        """Keep a schema node for the package to validate values against."""
        self.checked[pointer] = node
        return pointer

    def notice(self, pointer: str, message: str) -> None:
        self.notices.append(Notice(pointer, message))

    # ------------------------------------------------------------ general forms

    def build_def(self, name: str, body: dict[str, Any], pointer: str) -> Def:
        """A def in its typed form, or in its general form when it has none."""
        mark = self._mark()
        try:
            return self._typed_def(name, body, pointer)
        except Untyped as exc:
            self._rollback(mark)
            self.notice(
                exc.pointer, f"{exc.message}: {name} is any JSON value, checked against the schema"
            )
            doc = description(body)
            return AliasDef(
                name,
                Checked(self.check(pointer, body)),
                doc=doc,
                unstable=is_unstable(doc),
                pointer=pointer,
            )

    def type_or_checked(self, node: Any, pointer: str) -> TypeExpr:
        """The type of a property; a def in the general form where it has no typed form."""
        mark = self._mark()
        try:
            return type_of(node, pointer, self.hoist, self.defs, field=True)
        except Untyped as exc:
            self._rollback(mark)
            name = self._name_at(pointer)
            self.notice(
                exc.pointer, f"{exc.message}: {name} is any JSON value, checked against the schema"
            )
            doc = description(node)
            self.add(
                AliasDef(
                    name,
                    Checked(self.check(pointer, node)),
                    doc=doc,
                    unstable=is_unstable(doc),
                    pointer=pointer,
                )
            )
            return Ref(name)

    def type_of(self, node: Any, pointer: str) -> TypeExpr:
        return type_of(node, pointer, self.hoist, self.defs)

    def hoist(self, node: dict[str, Any], pointer: str) -> Ref:
        """Give an inline object or union a def of its own, named after where it stands."""
        if pointer in self.hoisting:
            raise Untyped(pointer, "an inline type built on itself has no typed form")
        name = self._name_at(pointer)
        self.hoisting.add(pointer)
        try:
            d = self.build_def(name, node, pointer)
        finally:
            self.hoisting.discard(pointer)
        self.add(d)
        return Ref(name)

    def _name_at(self, pointer: str) -> str:
        skip = ("properties", "items", "anyOf", "oneOf", "allOf", "additionalProperties", "$defs")
        parts = [p for p in pointer.split("/")[1:] if p not in skip]
        name = self.synthetic_name(
            *(naming.pascal(p, default="") if not p.isdigit() else "" for p in parts)
        )
        if not name.isidentifier():
            raise SchemaError(
                pointer, f"cannot name this inline type after where it stands ({name!r})"
            )
        return name

    def _mark(self) -> tuple[int, dict[str, Tag], set[str], int]:
        return len(self.order), dict(self.tags), set(self.checked), len(self.notices)

    def _rollback(self, mark: tuple[int, dict[str, Tag], set[str], int]) -> None:
        """Forget what a failed typed build added (its variants, hoisted types, tags, checks)."""
        count, tags, checked, notices = mark
        for name in self.order[count:]:
            del self.built[name]
        del self.order[count:]
        self.tags = tags
        for pointer in set(self.checked) - checked:
            del self.checked[pointer]
        del self.notices[notices:]

    # ------------------------------------------------------------ classification

    def _typed_def(self, name: str, body: dict[str, Any], pointer: str) -> Def:
        check_keywords(body, pointer)
        doc = description(body)
        node = unwrap(body)
        s = shape(node)
        enum = as_enum(name, node, pointer, doc)
        if enum is not None:
            return enum
        key = "oneOf" if "oneOf" in s else "anyOf" if "anyOf" in s else None
        if key and isinstance(s[key], list) and any(accepts_anything(x) for x in s[key]):
            # a branch that takes every JSON value makes the union any JSON value, kept as it came
            # (as variants, the other branches would turn what the catch-all takes into them)
            return AliasDef(
                name, ANY, native=True, doc=doc, unstable=is_unstable(doc), pointer=pointer
            )
        if key and isinstance(s[key], list) and any(is_object_branch(x, self.defs) for x in s[key]):
            return build_union(self, name, node, key, pointer, doc)
        if "allOf" in s or s.get("properties") or s.get("required"):
            return build_object(self, name, node, pointer, doc)
        if "properties" in s:  # no property of its own: a map, or an object that allows no key
            node = {k: v for k, v in node.items() if k not in ("properties", "required")}
        t = self.type_of(node, pointer)
        return AliasDef(
            name,
            t,
            native=alias_is_native(t, self.get),
            doc=doc,
            unstable=is_unstable(doc),
            pointer=pointer,
        )

    # ------------------------------------------------------------ finishing

    def _finished(self, d: Def) -> Def:
        """A def with what was learned after building it: its tag, and the defaults it can spell."""
        if isinstance(d, ObjectDef):
            if d.name in self.tags:
                d = ObjectDef(**{**d.__dict__, "tag": self.tags[d.name]})
            fields = tuple(self._null_default(self._spellable(f)) for f in d.fields)
            if fields != d.fields:
                d = ObjectDef(**{**d.__dict__, "fields": fields})
        return d

    def _spellable(self, f: Field) -> Field:
        if f.default is NO_DEFAULT or default_expr(f.default, f.type, self.built) is not None:
            return f
        self.notice(
            f.pointer + "/default",
            f"the default {f.default!r} is not a value of the field's type: it is not applied",
        )
        return Field(**{**f.__dict__, "default": NO_DEFAULT})

    def _null_default(self, f: Field) -> Field:
        """x-deserialize-default-on-null: what a null stands for. An optional field is left out (it
        takes its default); a required one takes its type's own default (`empty_value`). A null
        that is a value of the field's type, or a required field whose type has no default, keeps
        the mark from applying (with a notice for the second)."""
        if not f.default_on_null:
            return f
        keep: dict[str, Any] = {}
        if is_nullable(f.type):
            keep = {"default_on_null": False}  # null decodes as itself
        elif f.required:
            ok, value = empty_value(f.type, self.built)
            if ok:
                keep = {"null_value": value}
            else:
                self.notice(
                    f.pointer,
                    "x-deserialize-default-on-null on a required field whose type has no default"
                    " value: a null is refused",
                )
                keep = {"default_on_null": False}
        return Field(**{**f.__dict__, **keep}) if keep else f

    def _name_foreign_unions(self) -> None:
        """A union msgspec cannot decode as it stands (`list[A] | list[B]`) inside a field's type or
        an alias gets an alias def of its own, named after where it stands and decoded by the
        union hook, as it would be had the schema named it."""
        for name in list(self.order):
            d = self.built[name]
            if isinstance(d, ObjectDef):
                fields = tuple(
                    Field(**{**f.__dict__, "type": self._named_if_foreign(f.type, f.pointer)})
                    for f in d.fields
                )
                if fields != d.fields:
                    self.built[name] = ObjectDef(**{**d.__dict__, "fields": fields})
            elif isinstance(d, AliasDef):  # the alias itself says whether it is native
                inner = self._named_inside(d.type, d.pointer)
                if inner != d.type:
                    self.built[name] = AliasDef(**{**d.__dict__, "type": inner})

    def _named_if_foreign(self, t: TypeExpr, pointer: str) -> TypeExpr:
        t = self._named_inside(t, pointer)
        if decodable(t, self.get):
            return t
        name = self._name_at(pointer)
        self.add(AliasDef(name, t, native=False, pointer=pointer))
        return Ref(name)

    def _named_inside(self, t: TypeExpr, pointer: str) -> TypeExpr:
        """`t` with the foreign unions among its parts named (not `t` itself)."""
        if isinstance(t, ListOf):
            return replace(t, item=self._named_if_foreign(t.item, pointer + "/items"))
        if isinstance(t, MapOf):
            return replace(
                t, value=self._named_if_foreign(t.value, pointer + "/additionalProperties")
            )
        if isinstance(t, UnionOf):
            return UnionOf(tuple(self._named_inside(o, pointer) for o in t.options))
        return t

    def _break_alias_cycles(self) -> None:
        """Aliases are evaluated at import time: an alias that reaches itself through aliases
        (a recursive JSON type) takes the general form."""
        aliases = {n: d for n, d in self.built.items() if isinstance(d, AliasDef)}

        def reach(t: TypeExpr, out: set[str]) -> None:
            if isinstance(t, Ref) and t.name in aliases and t.name not in out:
                out.add(t.name)
                reach(aliases[t.name].type, out)
            elif isinstance(t, ListOf):
                reach(t.item, out)
            elif isinstance(t, MapOf):
                reach(t.value, out)
            elif isinstance(t, UnionOf):
                for o in t.options:
                    reach(o, out)

        for name in list(aliases):
            seen: set[str] = set()
            reach(aliases[name].type, seen)
            if name in seen:
                d = aliases[name]
                node = self.schema.node(d.pointer)
                self.notice(
                    d.pointer,
                    f"a type that contains itself through no object has no typed form: {name} is"
                    " any JSON value, checked against the schema",
                )
                self.built[name] = aliases[name] = AliasDef(
                    **{**d.__dict__, "type": Checked(self.check(d.pointer, node)), "native": True}
                )


def _referenced(nodes: Any, defs: dict[str, Any]) -> set[str]:
    """Every def the nodes refer to, and every def those refer to."""
    found: set[str] = set()
    stack = list(nodes)
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str):
                name = ref_target(ref, "", defs)
                if name not in found:
                    found.add(name)
                    stack.append(defs[name])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return found


def _ref_counts(defs: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    stack = [body for name, body in defs.items() if not is_envelope(body, defs)]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("$ref"), str):
                name = ref_target(node["$ref"], "")
                counts[name] = counts.get(name, 0) + 1
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return counts


__all__ = ["build", "Builder", "Method"]
