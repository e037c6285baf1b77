"""What the generated types need beyond msgspec: open enums, unknown variants, the general form of
constructs without a typed form, and unions that msgspec cannot decode natively (untagged,
partially tagged or open ones).

Natively tagged unions never come here: msgspec decodes them on its own. The others are marker
classes whose values `dec_hook` decodes: a union picks its variant by tag where the value has a
known one, else by the keys each variant requires, else by trying the variants in order; a checked
type keeps the value as it came once the schema accepts it.
"""

from __future__ import annotations

import enum
import functools
import types
from typing import Any, Callable, ClassVar, NamedTuple

import msgspec

from ._schema import SCHEMA
from ._validate import Invalid, json_equal

__all__ = [
    "StrEnum",
    "IntEnum",
    "OpenStrEnum",
    "OpenIntEnum",
    "UnknownVariant",
    "Variant",
    "HookUnion",
    "Checked",
    "hook_union",
    "checked",
    "check_unique",
    "dec_hook",
    "enc_hook",
]


class _EnumBase(enum.Enum):
    """Shared by all generated enums: an unknown value is a pseudo-member with `is_unknown`."""

    @classmethod
    def _unknown(cls, value: Any) -> Any:
        # read by name: typeshed's enum stubs do not declare `_member_type_` (str or int here)
        data_type: Any = getattr(cls, "_member_type_")  # noqa: B009
        if not isinstance(value, data_type) or isinstance(value, bool):
            return None
        member: Any = data_type.__new__(cls, value)
        member._name_ = None
        member._value_ = value
        return member

    @property
    def is_unknown(self) -> bool:
        """True for a value the schema does not list (kept as it came)."""
        return self._name_ is None

    def __repr__(self) -> str:
        if self._name_ is None:
            return f"<{type(self).__name__} unknown {self._value_!r}>"
        return f"<{type(self).__name__}.{self._name_}: {self._value_!r}>"


class StrEnum(str, _EnumBase):
    """A closed set of strings: strict decoding rejects any other value."""

    def __str__(self) -> str:
        return str(self.value)


class IntEnum(int, _EnumBase):
    """A closed set of integers: strict decoding rejects any other value."""


class OpenStrEnum(StrEnum):
    """An open set of strings: an unknown value decodes as a pseudo-member with `is_unknown`."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        return cls._unknown(value)


class OpenIntEnum(IntEnum):
    """An open set of integers: an unknown value decodes as a pseudo-member with `is_unknown`."""

    @classmethod
    def _missing_(cls, value: object) -> Any:
        return cls._unknown(value)


class UnknownVariant:
    """A union value of a kind the schema does not list: `raw` is the JSON value as it came.

    It re-encodes as equal JSON through the package's `encode`, and never passes for a known
    variant. `tag` is the value of its union's tag field, when the union has one and the value
    carries it.
    """

    __slots__ = ("raw", "tag_field")

    def __init__(self, raw: Any, tag_field: str | None = None) -> None:
        self.raw = raw
        self.tag_field = tag_field

    @property
    def tag(self) -> Any:
        """The value of the union's tag field, or None."""
        if self.tag_field is not None and isinstance(self.raw, dict):
            return self.raw.get(self.tag_field)
        return None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnknownVariant) and json_equal(other.raw, self.raw)

    def __hash__(self) -> int:
        return hash(msgspec.json.encode(self.raw, order="sorted"))

    def __repr__(self) -> str:
        return f"UnknownVariant({self.raw!r})"


class Variant(NamedTuple):
    """One variant of a hook union, as the generated `types.py` lists it."""

    type: Any
    """The variant's type (a Struct, or any type for the options of an alias)."""
    tag: str | int | None = None
    """The value of the union's tag field that selects it, or None."""
    required: tuple[str, ...] = ()
    """The wire keys it requires: untagged variants are told apart by them."""
    implied: str | None = None
    """The tag value an untagged default variant stands for (its branch's title)."""
    declared: tuple[str, ...] = ()
    """The wire keys it declares: of the untagged variants a value fits, the one that declares the
    most of the value's keys wins, so that none is dropped."""


class _MarkerMeta(type):
    """msgspec checks a dec_hook result with isinstance(result, annotated type): a value of any
    variant is an instance of its union's marker."""

    __acp_exact__: frozenset[type]

    def __instancecheck__(cls, value: Any) -> bool:
        if type(value) in cls.__acp_exact__:  # a variant's own type: the common case
            return True
        if getattr(cls, "__acp_any__", False):
            return True
        members = cls.__dict__.get("__acp_members__", ())
        return any(isinstance(value, member) for member in members)


class HookUnion(metaclass=_MarkerMeta):
    """Base of the marker classes that stand for non-native unions at run time.

    Type checkers see the union itself (a `TypeAlias`); msgspec sees the marker, calls `dec_hook`.
    """

    __acp_name__: ClassVar[str]
    __acp_tag__: ClassVar[str | None]
    __acp_tagged__: ClassVar[dict[Any, tuple[Variant, ...]]]
    __acp_untagged__: ClassVar[tuple[Variant, ...]]
    __acp_open__: ClassVar[bool]
    __acp_schema__: ClassVar[str | None]
    __acp_members__: ClassVar[tuple[type, ...]]
    __acp_exact__: ClassVar[frozenset[type]] = frozenset()


class Checked(metaclass=_MarkerMeta):
    """Base of the marker classes of constructs without a typed form: any JSON value, kept as it
    came, once the schema node at `__acp_schema__` accepts it."""

    __acp_name__: ClassVar[str]
    __acp_schema__: ClassVar[str]
    __acp_any__: ClassVar[bool] = True
    __acp_exact__: ClassVar[frozenset[type]] = frozenset()


def hook_union(
    name: str,
    tag_field: str | None,
    variants: tuple[Variant, ...],
    *,
    open: bool = False,
    schema: str | None = None,
) -> type[HookUnion]:
    """Make the marker class of a non-native union.

    An open union keeps a value no variant takes as an `UnknownVariant`, once the union's whole
    schema (the node at the pointer `schema`) accepts it.
    """
    members = tuple(dict.fromkeys(_runtime_class(v.type) for v in variants))
    return type(
        name,
        (HookUnion,),
        {
            "__acp_name__": name,
            "__acp_tag__": tag_field,
            "__acp_tagged__": _by_tag(variants),
            "__acp_untagged__": tuple(v for v in variants if v.tag is None),
            "__acp_open__": open,
            "__acp_schema__": schema,
            "__acp_members__": members + ((UnknownVariant,) if open else ()),
            "__acp_exact__": frozenset(members + ((UnknownVariant,) if open else ())),
        },
    )


def _runtime_class(tp: Any) -> Any:
    """The class the values of a variant type are instances of: `Annotated[...]` and generic
    aliases (`list[X]`, `Sequence[X]`) unwrapped to their plain class."""
    while hasattr(tp, "__origin__"):
        tp = tp.__origin__
    return tp


def checked(name: str, schema: str) -> type[Checked]:
    """Make the marker class of a construct in its general form (the schema node at `schema`)."""
    return type(name, (Checked,), {"__acp_name__": name, "__acp_schema__": schema})


def _by_tag(variants: tuple[Variant, ...]) -> dict[Any, tuple[Variant, ...]]:
    """Variants by tag value; several variants may share one (told apart by their required keys).

    An untagged variant may name the tag it stands for when the tag is given (its branch title).
    """
    out: dict[Any, tuple[Variant, ...]] = {}
    for v in variants:
        key = v.tag if v.tag is not None else v.implied
        if key is not None:
            out[key] = out.get(key, ()) + (v,)
    return out


Convert = Callable[[Any, Any], Any]


def choose(marker: type[HookUnion], value: Any, convert: Convert | None = None) -> Any:
    """Decode an untyped JSON value into the variant of a non-native union it belongs to.

    A value with a tag goes to the variants of that tag (an untagged default variant answers to the
    tag its branch is titled with). A value without a tag goes to the untagged variants, the ones
    whose required keys it has first. What no variant takes is an unknown variant where the union
    is open and its schema accepts the value, and an error otherwise. `convert(value, type)` does
    the decoding (msgspec's by default).
    """
    convert = convert or _convert
    tag_field = marker.__acp_tag__
    candidates = marker.__acp_untagged__
    if tag_field is not None and isinstance(value, dict) and tag_field in value:
        tag = value[tag_field]
        tagged = (
            marker.__acp_tagged__.get(tag)
            if isinstance(tag, (str, int)) and not isinstance(tag, bool)
            else None
        )
        if tagged is None:
            if marker.__acp_open__:
                return _unknown(marker, value)
            raise msgspec.ValidationError(f"Invalid value {tag!r} - at `$.{tag_field}`")
        candidates = tagged
    if len(candidates) > 1:
        # Told apart by required keys: of the value itself, or of a list's first item.
        sample = value[0] if isinstance(value, list) and value else value
        if isinstance(sample, dict):
            keys = sample.keys()
            fitting = [c for c in candidates if set(c.required) <= keys]
            ranked = sorted(fitting, key=lambda c: (-len(keys & set(c.declared)), -len(c.required)))
            candidates = tuple(ranked) or candidates
    first_error: msgspec.ValidationError | None = None
    for variant in candidates:
        try:
            return convert(value, variant.type)
        except msgspec.ValidationError as exc:
            first_error = first_error or exc
    if marker.__acp_open__ and isinstance(value, dict):
        return _unknown(marker, value, first_error)
    if first_error is not None:
        raise first_error
    if tag_field is not None and isinstance(value, dict):
        raise msgspec.ValidationError(f"Object missing required field `{tag_field}`")
    raise msgspec.ValidationError(f"Expected a {marker.__acp_name__}, got `{type(value).__name__}`")


def _unknown(
    marker: type[HookUnion], value: Any, error: msgspec.ValidationError | None = None
) -> UnknownVariant:
    """An unknown variant of an open union, once the union's schema accepts it."""
    pointer = marker.__acp_schema__
    if pointer is not None:
        try:
            SCHEMA.validate(pointer, value)
        except Invalid as exc:
            tag_field = marker.__acp_tag__
            if error is None and tag_field is not None and tag_field not in value:
                # no variant goes without the tag: say so, not what the schema's first branch lacks
                error = msgspec.ValidationError(f"Object missing required field `{tag_field}`")
            raise (error or msgspec.ValidationError(str(exc))) from None
    return UnknownVariant(value, marker.__acp_tag__)


def check_unique(items: list[Any] | Any, wire: str) -> None:
    """`uniqueItems`: raise ValueError (msgspec reports it) when two items are equal JSON."""
    if not isinstance(items, list):
        return
    plain = [msgspec.to_builtins(item, enc_hook=enc_hook) for item in items]
    for i, item in enumerate(plain):
        if any(json_equal(item, other) for other in plain[:i]):
            raise ValueError(f"Expected `array` of unique items - at `$.{wire}[{i}]`")


def _convert(value: Any, tp: Any) -> Any:
    """msgspec.convert, made cheap: no hook where none is needed, lists item by item (msgspec
    would rebuild the type information of `list[X]` on every call)."""
    converter = _CONVERTERS.get(tp)
    if converter is None:
        converter = _CONVERTERS[tp] = _converter(tp)
    return converter(value)


def _converter(tp: Any) -> Callable[[Any], Any]:
    if type(tp) is types.GenericAlias and tp.__origin__ is list:
        # msgspec would rebuild the type information of `list[X]` on every call; a Struct keeps
        # it, so the whole list converts in one C call through a one-field wrapper.
        wrapper: Any = msgspec.defstruct("_Items", [("items", tp)], module=__name__)
        convert: Callable[[Any], Any] = functools.partial(
            msgspec.convert, type=wrapper, dec_hook=dec_hook if needs_hook(tp) else None
        )

        def items(value: Any) -> Any:
            if not isinstance(value, list):
                raise msgspec.ValidationError(f"Expected `array`, got `{type(value).__name__}`")
            try:
                return convert({"items": value}).items
            except msgspec.ValidationError as exc:
                raise _unwrapped(exc) from None

        return items
    if needs_hook(tp):
        return functools.partial(msgspec.convert, type=tp, dec_hook=dec_hook)
    return functools.partial(msgspec.convert, type=tp)


def _unwrapped(exc: msgspec.ValidationError) -> msgspec.ValidationError:
    """The error of converting `{"items": value}`, with its path as if the list stood alone."""
    text = str(exc)
    return msgspec.ValidationError(text.replace("`$.items", "`$", 1))


_CONVERTERS: dict[Any, Callable[[Any], Any]] = {}
_HOOKED: dict[Any, bool] = {}


def needs_hook(tp: Any) -> bool:
    """Whether converting into `tp` can meet a hook union (msgspec converts faster without)."""
    needs = _HOOKED.get(tp)
    if needs is None:
        needs = _HOOKED[tp] = reaches(
            msgspec.inspect.type_info(tp), lambda info: isinstance(info, msgspec.inspect.CustomType)
        )
    return needs


def reaches(info: Any, test: Callable[[Any], bool], seen: set[int] | None = None) -> bool:
    """Whether a msgspec type (as `msgspec.inspect` describes it) holds a part passing `test`."""
    seen = set() if seen is None else seen
    if id(info) in seen:
        return False
    seen.add(id(info))
    if test(info):
        return True
    if isinstance(info, (msgspec.inspect.StructType, msgspec.inspect.DataclassType)):
        return any(reaches(f.type, test, seen) for f in info.fields)
    for attr in ("item_type", "key_type", "value_type"):
        if hasattr(info, attr) and reaches(getattr(info, attr), test, seen):
            return True
    if isinstance(info, msgspec.inspect.UnionType):
        return any(reaches(t, test, seen) for t in info.types)
    if isinstance(info, msgspec.inspect.TupleType):
        return any(reaches(t, test, seen) for t in info.item_types)
    return False


def dec_hook(tp: Any, value: Any) -> Any:
    """msgspec's decoding hook for the package's non-native unions and checked types.

    A hook union goes through its plan (`_Plan`, made on first use): where the tag (or its
    absence) leaves one variant, or the required keys leave one candidate, that variant's
    converter runs at once (msgspec, in C). Anything else, and any value the chosen variant
    refuses, goes to `choose`, which decides as it always does: the variant chosen here is the one
    `choose` would try alone.
    """
    plan = _PLANS.get(tp)
    if plan is None:
        if type(tp) is not _MarkerMeta:  # a marker class (cheaper to test than issubclass)
            raise NotImplementedError(f"no decoder for {tp!r}")
        if not issubclass(tp, HookUnion):
            return _check(tp, value)
        plan = _PLANS[tp] = _plan(tp)
    # one function, not split into helpers: this runs once per value of every hook union
    sample = value
    if type(value) is dict:
        step = plan.untagged
        tag_field = plan.tag_field
        if tag_field is not None and tag_field in value:
            tag = value[tag_field]
            step = plan.by_tag.get(tag) if type(tag) is str else None
    elif type(value) is list and value and plan.tag_field is None:
        step, sample = plan.untagged, value[0]
    else:
        step = None
    if step is not None:
        convert = step.convert
        if convert is None and type(sample) is dict:
            keys = sample.keys()
            fitting = [c for required, c in step.keyed if required <= keys]
            if len(fitting) == 1:
                convert = fitting[0]
        if convert is not None:
            try:
                return convert(value)
            except msgspec.ValidationError:
                pass
    return choose(tp, value)


def _check(marker: Any, value: Any) -> Any:
    try:
        SCHEMA.validate(marker.__acp_schema__, value)
    except Invalid as exc:
        raise msgspec.ValidationError(str(exc)) from None
    return value


class _Step(NamedTuple):
    """The candidates of one tag (or of no tag): the one converter, or each candidate's converter
    with the keys it requires."""

    convert: Callable[[Any], Any] | None
    keyed: tuple[tuple[frozenset[str], Callable[[Any], Any]], ...]


class _Plan(NamedTuple):
    tag_field: str | None
    by_tag: dict[Any, _Step]
    untagged: _Step | None


def _step(candidates: tuple[Variant, ...]) -> _Step:
    converters = [_converter(v.type) for v in candidates]
    if len(candidates) == 1:
        return _Step(converters[0], ())
    return _Step(
        None, tuple((frozenset(v.required), c) for v, c in zip(candidates, converters, strict=True))
    )


def _plan(marker: type[HookUnion]) -> _Plan:
    untagged = marker.__acp_untagged__
    return _Plan(
        marker.__acp_tag__,
        {tag: _step(variants) for tag, variants in marker.__acp_tagged__.items()},
        _step(untagged) if untagged else None,
    )


_PLANS: dict[Any, _Plan] = {}


def enc_hook(obj: Any) -> Any:
    """msgspec's encoding hook: unknown variants encode as the JSON they came as."""
    if isinstance(obj, UnknownVariant):
        return obj.raw
    raise NotImplementedError(f"cannot encode objects of type {type(obj).__name__}")
