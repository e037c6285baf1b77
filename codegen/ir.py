"""The intermediate representation: what the generator knows about a schema, as frozen data.

`build.py` makes it from the raw schema; every later step (render, diff) reads only this.
Type expressions (`TypeExpr`) describe the type of a field or alias; definitions (`Def`) are the
named things the package declares.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Union

# ---------------------------------------------------------------- type expressions


@dataclass(frozen=True)
class Prim:
    """A JSON primitive: "str", "int", "float", "bool", "null", or "any" (any JSON value)."""

    kind: str
    format: str | None = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str | None = None
    exclusive_minimum: int | float | None = None
    exclusive_maximum: int | float | None = None
    multiple_of: int | float | None = None


@dataclass(frozen=True)
class Ref:
    """A reference to a named definition."""

    name: str


@dataclass(frozen=True)
class ListOf:
    item: TypeExpr
    min_items: int | None = None
    max_items: int | None = None
    unique: bool = False  # uniqueItems: the items are checked pairwise after decoding


@dataclass(frozen=True)
class MapOf:
    """A JSON object with arbitrary string keys."""

    value: TypeExpr


@dataclass(frozen=True)
class Const:
    """Exactly one JSON value."""

    value: Any


@dataclass(frozen=True)
class UnionOf:
    """One of several type expressions (nullable types are a union with Prim("null"))."""

    options: tuple[TypeExpr, ...]


@dataclass(frozen=True)
class Checked:
    """The general form of a construct with no typed form: any JSON value, kept as it came and
    validated against the schema node at `pointer` (an RFC 6901 pointer into the schema)."""

    pointer: str


TypeExpr = Union[Prim, Ref, ListOf, MapOf, Const, UnionOf, Checked]

NULL = Prim("null")
ANY = Prim("any")

UNSTABLE_MARK = "**UNSTABLE**"


def is_unstable(doc: str) -> bool:
    """The schema marks unstable items by starting their description with **UNSTABLE**."""
    return doc.lstrip().startswith(UNSTABLE_MARK)


def is_nullable(t: TypeExpr) -> bool:
    return t == NULL or (isinstance(t, UnionOf) and NULL in t.options)


def without_null(t: TypeExpr) -> TypeExpr:
    if isinstance(t, UnionOf) and NULL in t.options:
        rest = tuple(o for o in t.options if o != NULL)
        return rest[0] if len(rest) == 1 else UnionOf(rest)
    return t


# ---------------------------------------------------------------- definitions

NO_DEFAULT: Any = type("NoDefault", (), {"__repr__": lambda self: "NO_DEFAULT"})()


@dataclass(frozen=True)
class Field:
    """One property of an object."""

    wire: str  # the JSON name
    name: str  # the Python attribute
    type: TypeExpr
    required: bool
    doc: str = ""
    default: Any = NO_DEFAULT  # a JSON value from the schema's `default`
    default_on_error: bool = False  # x-deserialize-default-on-error
    default_on_null: bool = False  # x-deserialize-default-on-null (where null is not a value)
    null_value: Any = NO_DEFAULT  # what a null stands for on a required one (else: left out)
    skip_invalid_items: bool = False  # x-deserialize-skip-invalid-items
    pointer: str = ""


@dataclass(frozen=True)
class Tag:
    """A const property that tells the variants of a union apart."""

    field: str  # wire name of the tag property
    value: str | int | bool


@dataclass(frozen=True)
class ObjectDef:
    """A JSON object with known properties: a msgspec Struct.

    `base` names the Struct it extends (a union variant built on a payload def); `tag` is set when
    this Struct is a variant of a natively tagged union; `synthetic` marks Structs that have no def
    of their own in the schema (union variants, hoisted inline objects).
    """

    name: str
    fields: tuple[Field, ...]
    doc: str = ""
    unstable: bool = False
    base: str | None = None
    tag: Tag | None = None
    synthetic: bool = False
    closed: bool = False  # additionalProperties: false (unknown keys are rejected)
    pointer: str = ""


@dataclass(frozen=True)
class EnumMember:
    name: str  # Python member name
    value: str | int
    doc: str = ""


@dataclass(frozen=True)
class EnumDef:
    """A set of string or integer constants; `open` when the schema accepts any other value."""

    name: str
    kind: str  # "str" | "int"
    members: tuple[EnumMember, ...]
    open: bool
    doc: str = ""
    unstable: bool = False
    pointer: str = ""


@dataclass(frozen=True)
class Variant:
    """One branch of a union of objects: the Struct that holds it and how it is recognised.

    `implied` is the tag value an untagged variant stands for when its branch is titled with it
    (a partially tagged union's default variant).
    """

    type: str  # name of an ObjectDef
    tag: Tag | None
    required: tuple[str, ...]  # wire names the variant requires (to tell untagged ones apart)
    title: str = ""
    implied: str | None = None
    declared: tuple[str, ...] = ()  # every wire name the variant declares (untagged ones prefer
    # the variant that declares the keys a value has, so none of them is dropped)


@dataclass(frozen=True)
class UnionDef:
    """A union of objects.

    `native` unions are msgspec tagged unions (every variant tagged on `tag_field`); the others are
    decoded by the package's union hook: by tag where there is one, else by required keys, else by
    trying each variant in order. `open` unions accept unknown variants (kept raw) once the whole
    union's schema (at `pointer`) accepts them. `nullable` unions also take JSON null.
    """

    name: str
    variants: tuple[Variant, ...]
    tag_field: str | None
    native: bool
    open: bool
    nullable: bool = False
    doc: str = ""
    unstable: bool = False
    pointer: str = ""


@dataclass(frozen=True)
class AliasDef:
    """A name for a type expression (`SessionId = str`, `RequestId = int | str | None`).

    `native` is False when msgspec cannot decode the expression as it stands (`list[A] | list[B]`):
    it is then decoded by trying each option in order, like a non-native union.
    """

    name: str
    type: TypeExpr
    native: bool = True
    doc: str = ""
    unstable: bool = False
    pointer: str = ""


Def = Union[ObjectDef, EnumDef, UnionDef, AliasDef]


def all_fields(d: ObjectDef, lookup: Callable[[str], Def | None]) -> list[Field]:
    """An object's fields, its bases' first; a field it declares again replaces the base's.

    `lookup` finds a def by name (a mapping's `get`, or a builder that builds it on demand).
    """
    base = lookup(d.base) if d.base else None
    inherited = all_fields(base, lookup) if isinstance(base, ObjectDef) else []
    own = {f.wire for f in d.fields}
    return [f for f in inherited if f.wire not in own] + list(d.fields)


# ---------------------------------------------------------------- methods and errors


ROLES = ("agent", "client", "proxy")
"""The x-side values that name one receiving role. A method of any other x-side ("protocol",
"both", ...) is received by every side of the package."""

SHARED_SIDE = "both"
"""The side of a method whose def carries `x-method` but no `x-side`: received by every side."""


def sides_of(methods: tuple[Method, ...]) -> tuple[str, ...]:
    """The sides of a package: agent and client, and proxy when a method says x-side "proxy"."""
    extra = tuple(r for r in ROLES[2:] if any(m.side == r for m in methods))
    return ROLES[:2] + extra


def received_by(side: str, m: Method, sides: tuple[str, ...]) -> bool:
    """Whether `side` receives `m`: its own methods, and those whose x-side names no side."""
    return m.side == side or m.side not in sides


@dataclass(frozen=True)
class Method:
    """A JSON-RPC method: `side` is the side that receives it, as the schema's x-side says."""

    wire: str
    side: str
    kind: str  # "request" | "notification"
    params: str  # def name
    result: str | None  # def name; None for notifications and for requests without a response def
    handler: str  # Python method name on handlers and proxies
    doc: str = ""
    unstable: bool = False


@dataclass(frozen=True)
class ErrorCode:
    code: int
    title: str
    class_name: str
    doc: str = ""


@dataclass(frozen=True)
class Notice:
    """A construct built in its general form, not a typed one: where, and which form."""

    pointer: str
    message: str

    def __str__(self) -> str:
        return f"{self.pointer or '/'}: {self.message}"


@dataclass(frozen=True)
class Package:
    """Everything the templates need to write one generated package.

    `checked` holds the schema nodes that general forms and open unions validate against, by
    pointer, with every def they refer to (`checked_defs`); `notices` says where general forms were
    chosen; `reserved` names the defs whose names the package's own names shadow at its top level.
    """

    schema_name: str
    schema_sha256: str
    defs: tuple[Def, ...]  # in the order they are declared
    methods: tuple[Method, ...]
    error_codes: tuple[ErrorCode, ...]
    checked: tuple[tuple[str, Any], ...] = ()
    checked_defs: tuple[tuple[str, Any], ...] = ()
    notices: tuple[Notice, ...] = ()
    warnings: tuple[Notice, ...] = ()  # values that generate, but that the user should look at

    def get(self, name: str) -> Def:
        for d in self.defs:
            if d.name == name:
                return d
        raise KeyError(name)
