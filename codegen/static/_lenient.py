"""The slow, forgiving path of `decode`, taken only when the fast msgspec decoding fails.

It walks the untyped JSON value along the type's annotations and applies what the schema allows a
receiver to forgive: a field marked `x-deserialize-default-on-error` takes its default if its value
is bad, a list marked `x-deserialize-skip-invalid-items` drops the bad items, and a field marked
`x-deserialize-default-on-null` takes its default for a null. With `unknown=True`
(the `lenient` option of the decoders) an unknown enum value or union variant of a closed set also
decodes into its unknown form instead of failing, for receivers that must survive a newer peer.
With `forgive=False` (a sender checking its own value: `decode(..., strict=True)`) the marks are
not applied, and the walk only says where the value breaks the schema.
"""

from __future__ import annotations

import collections.abc
import enum
import re
import types
import typing
from functools import lru_cache
from typing import Any, Callable, Literal, Union

import msgspec

from ._schema import DEFAULT_ON_ERROR, DEFAULT_ON_NULL, SKIP_INVALID_ITEMS
from ._support import Checked, HookUnion, UnknownVariant, choose, dec_hook, reaches

_ARRAYS = (list, collections.abc.Sequence)  # fields are Sequences (they decode as lists)


def forgiving(tp: Any) -> bool:
    """Whether decoding `tp` can meet a field the schema lets a receiver forgive (only then does a
    failed strict decode retry here: leniency stays where the schema marks it)."""
    found = _FORGIVING.get(tp)
    if found is None:
        marked = {owner for owner, _ in (*DEFAULT_ON_ERROR, *SKIP_INVALID_ITEMS, *DEFAULT_ON_NULL)}
        found = _FORGIVING[tp] = bool(marked) and reaches(
            msgspec.inspect.type_info(tp),
            lambda info: isinstance(info, msgspec.inspect.StructType)
            and any(k.__name__ in marked for k in info.cls.__mro__),
        )
    return found


_FORGIVING: dict[Any, bool] = {}


_REPAIRS = 8
"""How many failing places one decode repairs in place before it walks the whole value."""
_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]|(\[\.\.\.\])")


def repair(
    value: Any,
    tp: Any,
    error: msgspec.ValidationError,
    *,
    root: Any = None,
    prefixes: tuple[str, ...] = ("$",),
    at: Callable[[Any], Any] | None = None,
) -> Any:
    """Forgive the place msgspec's error names, where the schema marks it, and decode natively
    again; repeat for the next place. None when a place is not forgivable this way (a dict key, a
    hook union on the path, an unmarked field): the full walk (`convert`) decides then.

    With `root`, the part `at(value)` of `value` has type `tp`, the paths msgspec names reach it
    through one of `prefixes`, and the converted value is `value` converted into `root`.
    """
    for _ in range(_REPAIRS):
        _, where = split_error(error)
        prefix = next((p for p in prefixes if where.startswith(p)), None) if where else None
        if where is None or prefix is None:
            return None
        part = value if at is None else at(value)
        if not _forgive_at(part, tp, "$" + where[len(prefix) :]):
            return None
        try:
            return msgspec.convert(value, tp if root is None else root, dec_hook=dec_hook)
        except msgspec.ValidationError as exc:
            error = exc
    return None


def _forgive_at(value: Any, tp: Any, where: str) -> bool:
    """Remove the value at `where` (a `$.a[1].b` path) from its container, at the deepest place on
    the path that the schema forgives: an item of a skip-invalid-items list, or a default-on-error
    field (absent, it takes its default). A null in a default-on-null field takes the default
    (`_schema.DEFAULT_ON_NULL`). False when there is none."""
    steps = _steps(where)
    if steps is None:
        return False
    places: list[tuple[Any, Any, bool]] = []  # (container, key or index, forgivable there)
    node, t, marked_list = value, tp, False
    on_null: tuple[Any, ...] | None = None  # the null mark of the field the path ends in
    for name, index in steps:
        on_null = None
        t = _plain(t, node)
        if t is None:
            return False
        if name is not None:
            fields = _struct_fields(t)
            if fields is None or type(node) is not dict:
                return False
            field = fields.get(name)
            if field is None or name not in node:
                return False
            hint, forgivable, skip, on_null = field
            places.append((node, name, forgivable))
            node, t, marked_list = node[name], hint, skip
        else:
            item = _item_type(t)
            if item is None or type(node) is not list or index >= len(node):
                return False
            places.append((node, index, marked_list))
            node, t, marked_list = node[index], item, False
    if on_null is not None and node is None and places:
        container, key, _ = places[-1]
        if on_null:
            container[key] = on_null[0]
        else:
            del container[key]
        return True
    for container, key, forgivable in reversed(places):
        if forgivable:
            del container[key]
            return True
    return False


def _steps(where: str) -> list[tuple[str | None, int]] | None:
    """A `$.a[1].b` path as (field name, None) and (None, index) steps; None for a path that
    does not start at `$` or goes through a dict key (`[...]`). Kept per path: the same bad field
    tends to come again."""
    if where in _STEPS:
        return _STEPS[where]
    steps: list[tuple[str | None, int]] | None = None
    if where.startswith("$"):
        found = _STEP.findall(where[1:])
        if not any(unknown for _, _, unknown in found):
            steps = [(name or None, int(index or 0)) for name, index, _ in found]
    if len(_STEPS) < 1024:
        _STEPS[where] = steps
    return steps


_STEPS: dict[str, list[tuple[str | None, int]] | None] = {}


def _struct_fields(tp: Any) -> dict[str, tuple[Any, bool, bool, tuple[Any, ...] | None]] | None:
    """`_path_fields` of a Struct type, None for any other type (kept by id, see `_PLAIN`)."""
    known = _STRUCT_FIELDS.get(id(tp))
    if known is None or known[0] is not tp:
        fields = (
            _path_fields(tp) if isinstance(tp, type) and issubclass(tp, msgspec.Struct) else None
        )
        known = _STRUCT_FIELDS[id(tp)] = (tp, fields)
    return known[1]


_STRUCT_FIELDS: dict[int, tuple[Any, Any]] = {}


def _plain(tp: Any, value: Any) -> Any:
    """The one type a value stands for on a path: Annotated and Optional unwrapped, a tagged union
    resolved by the value's tag. None where that takes a hook (the full walk decides there)."""
    # keyed by id: hashing a typing construct (Annotated, Union) runs Python code each time
    known = _PLAIN.get(id(tp))
    if known is None or known[0] is not tp:
        known = _PLAIN[id(tp)] = (tp, _unwrap(tp))
    plain = known[1]
    if type(plain) is tuple:  # a tagged union of Structs: (tag field, {tag: Struct})
        tag_field, by_tag = plain
        tag = value.get(tag_field) if isinstance(value, dict) else None
        return by_tag.get(tag) if isinstance(tag, (str, int)) else None
    return plain


_PLAIN: dict[int, tuple[Any, Any]] = {}
"""id(type) -> (type, what `_unwrap` makes of it); the type is kept, so its id stays its own."""


def _item_type(tp: Any) -> Any:
    """The item type of a list type (None for any other type)."""
    known = _ITEMS.get(id(tp))
    if known is None or known[0] is not tp:
        item = typing.get_args(tp)[0] if typing.get_origin(tp) in _ARRAYS else None
        known = _ITEMS[id(tp)] = (tp, item)
    return known[1]


_ITEMS: dict[int, tuple[Any, Any]] = {}


def _unwrap(tp: Any) -> Any:
    while True:
        origin = typing.get_origin(tp)
        if origin is typing.Annotated:
            tp = typing.get_args(tp)[0]
            continue
        if origin in (Union, types.UnionType):
            options = [o for o in typing.get_args(tp) if o not in (msgspec.UnsetType, type(None))]
            if len(options) == 1:
                tp = options[0]
                continue
            structs = [o for o in options if isinstance(o, type) and issubclass(o, msgspec.Struct)]
            tag_field = structs[0].__struct_config__.tag_field if structs else None
            if tag_field is None or len(structs) != len(options):
                return None
            return (tag_field, {o.__struct_config__.tag: o for o in structs})
        if isinstance(tp, type) and issubclass(tp, (HookUnion, Checked)):
            return None
        return tp


def convert(value: Any, tp: Any, unknown: bool = True, forgive: bool = True) -> Any:
    """Decode an untyped JSON value into `tp`, forgiving what the schema (and `unknown`) allow;
    with `forgive=False`, not what the schema's `x-deserialize-*` marks allow a receiver."""
    try:
        return msgspec.convert(value, tp, dec_hook=dec_hook)
    except msgspec.ValidationError as exc:
        return _walk(value, tp, unknown, exc, forgive)


def _walk(
    value: Any, tp: Any, unknown: bool, error: msgspec.ValidationError, forgive: bool = True
) -> Any:
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        inner, *metas = typing.get_args(tp)
        return _lengths(_walk(value, inner, unknown, error, forgive), metas)
    if origin in (Union, types.UnionType):
        options = tuple(o for o in typing.get_args(tp) if o is not msgspec.UnsetType)
        return _union(value, options, unknown, error, forgive)
    if origin in _ARRAYS and isinstance(value, list):
        (item,) = typing.get_args(tp)
        items = []
        for i, v in enumerate(value):
            try:
                items.append(convert(v, item, unknown, forgive))
            except msgspec.ValidationError as exc:
                raise located(exc, f"[{i}]") from None
        return items
    if origin is dict and isinstance(value, dict):
        _, item = typing.get_args(tp)
        out = {}
        for k, v in value.items():
            try:
                out[k] = convert(v, item, unknown, forgive)
            except msgspec.ValidationError as exc:
                raise located(exc, f"[{k!r}]") from None
        return out
    if origin is Literal:
        if unknown and value is not None:
            return value
        raise error
    if isinstance(tp, type):
        if issubclass(tp, msgspec.Struct) and isinstance(value, dict):
            return _struct(value, tp, unknown, forgive)
        if issubclass(tp, enum.Enum) and unknown:
            member = tp._unknown(value)  # type: ignore[attr-defined]
            if member is not None:
                return member
        if issubclass(tp, HookUnion):
            try:
                return choose(tp, value, lambda v, option: convert(v, option, unknown, forgive))
            except msgspec.ValidationError:
                if unknown and isinstance(value, dict):
                    return UnknownVariant(value, tp.__acp_tag__)
                raise
        if issubclass(tp, Checked):
            raise error
    raise error


def _lengths(result: Any, metas: list[Any]) -> Any:
    """`result`, walked into a list or a dict, held to the item counts its Annotated type sets
    (the walk goes past the Annotated; scalars never get here: their errors are re-raised)."""
    kind = "array" if isinstance(result, list) else "object" if isinstance(result, dict) else None
    for meta in metas:
        if kind is None or not isinstance(meta, msgspec.Meta):
            continue
        if meta.min_length is not None and len(result) < meta.min_length:
            raise msgspec.ValidationError(f"Expected `{kind}` of length >= {meta.min_length}")
        if meta.max_length is not None and len(result) > meta.max_length:
            raise msgspec.ValidationError(f"Expected `{kind}` of length <= {meta.max_length}")
    return result


def split_error(exc: msgspec.ValidationError) -> tuple[str, str | None]:
    """msgspec's error as (message, path `$...`), the path None when the error names none."""
    text = str(exc)
    message, sep, path = text.rpartition(" - at `")
    return (message, path.rstrip("`")) if sep else (text, None)


def located(exc: msgspec.ValidationError, step: str) -> msgspec.ValidationError:
    """The error one step further out: its path (`$...`) now starts with `step`."""
    message, path = split_error(exc)
    return msgspec.ValidationError(f"{message} - at `${step}{(path or '$')[1:]}`")


def locate(value: Any, tp: Any, forgive: bool = True) -> msgspec.ValidationError | None:
    """The error strict decoding of `value` meets, with the path msgspec cannot give via hooks
    (`forgive=False`: where the schema's marks would have let a receiver forgive it, too)."""
    try:
        convert(value, tp, unknown=False, forgive=forgive)
    except msgspec.ValidationError as exc:
        return exc
    return None


def _union(
    value: Any,
    options: tuple[Any, ...],
    unknown: bool,
    error: msgspec.ValidationError,
    forgive: bool = True,
) -> Any:
    structs = [o for o in options if isinstance(o, type) and issubclass(o, msgspec.Struct)]
    tag_field = structs[0].__struct_config__.tag_field if structs else None
    if tag_field is not None and isinstance(value, dict):
        # A native tagged union: the tag alone decides (a Struct on its own would not insist on it).
        for cls in structs:
            if tag_field in value and cls.__struct_config__.tag == value[tag_field]:
                return _struct(value, cls, unknown, forgive)
        if unknown and isinstance(value.get(tag_field), str):
            return UnknownVariant(value, tag_field)
        if tag_field not in value:
            raise msgspec.ValidationError(f"Object missing required field `{tag_field}`")
        raise msgspec.ValidationError(f"Invalid value {value[tag_field]!r} - at `$.{tag_field}`")
    failures = []
    for option in options:
        try:
            return convert(value, option, unknown, forgive)
        except msgspec.ValidationError as exc:
            failures.append(exc)
    if unknown and isinstance(value, dict) and structs:
        return UnknownVariant(value)
    # the option that got furthest into the value says best what is wrong (msgspec's own error
    # leaves out the steps inside a hook-decoded part)
    deepest = max(failures, key=_depth, default=error)
    raise deepest if _depth(deepest) > _depth(error) else error


def _depth(exc: msgspec.ValidationError) -> int:
    """How far into the value an error's path reaches (the length of its `$...` path)."""
    return len(split_error(exc)[1] or "")


_FieldFacts = tuple[msgspec.structs.FieldInfo, Any, bool, bool, Union[tuple[Any, ...], None]]
"""A field, its type hint, whether it is default-on-error, skip-invalid-items, and its null mark
(`_schema.DEFAULT_ON_NULL`: None when a null is not forgiven)."""


@lru_cache(maxsize=None)
def _fields(cls: type[msgspec.Struct]) -> tuple[_FieldFacts, ...]:
    hints = typing.get_type_hints(cls, include_extras=True)
    out = []
    for f in msgspec.structs.fields(cls):
        owners = [k.__name__ for k in cls.__mro__ if f.name in getattr(k, "__annotations__", {})]
        forgive = any((o, f.name) in DEFAULT_ON_ERROR for o in owners)
        skip = any((o, f.name) in SKIP_INVALID_ITEMS for o in owners)
        on_null = next(
            (DEFAULT_ON_NULL[o, f.name] for o in owners if (o, f.name) in DEFAULT_ON_NULL), None
        )
        out.append((f, hints[f.name], forgive, skip, on_null))
    return tuple(out)


@lru_cache(maxsize=None)
def _path_fields(
    cls: type[msgspec.Struct],
) -> dict[str, tuple[Any, bool, bool, tuple[Any, ...] | None]]:
    """Wire name -> (type hint, whether an absent value is forgiven, whether its list skips bad
    items, its null mark): what `_forgive_at` needs of a field."""
    return {
        f.encode_name: (hint, forgive and not f.required, skip, on_null)
        for f, hint, forgive, skip, on_null in _fields(cls)
    }


def _struct(
    value: dict[str, Any], cls: type[msgspec.Struct], unknown: bool, forgive_marked: bool = True
) -> Any:
    config = cls.__struct_config__
    if config.tag_field is not None and value.get(config.tag_field) != config.tag:
        # A tagged variant decoded on its own still insists on its tag.
        if config.tag_field not in value:
            raise msgspec.ValidationError(f"Object missing required field `{config.tag_field}`")
        raise msgspec.ValidationError(
            f"Invalid value {value[config.tag_field]!r} - at `$.{config.tag_field}`"
        )
    if config.forbid_unknown_fields:
        known = {f.encode_name for f in msgspec.structs.fields(cls)} | {config.tag_field}
        for key in value:
            if key not in known:
                raise msgspec.ValidationError(f"Object contains unknown field `{key}`")
    kwargs: dict[str, Any] = {}
    for f, hint, forgive, skip, on_null in _fields(cls):
        if f.encode_name not in value:
            if f.required:
                raise msgspec.ValidationError(f"Object missing required field `{f.encode_name}`")
            continue
        raw = value[f.encode_name]
        if raw is None and on_null is not None and forgive_marked:
            if not on_null:
                continue  # left out: the field takes its default
            raw = on_null[0]
        try:
            if skip and forgive_marked and isinstance(raw, list):
                kwargs[f.name] = _skip_invalid(raw, hint, unknown)
            else:
                kwargs[f.name] = convert(raw, hint, unknown, forgive_marked)
        except msgspec.ValidationError as exc:
            if not (forgive and forgive_marked) or f.required:
                raise located(exc, f".{f.encode_name}") from None
    try:
        return cls(**kwargs)
    except (TypeError, ValueError) as exc:  # what __post_init__ checks (unique items)
        raise msgspec.ValidationError(str(exc)) from None


def _skip_invalid(items: list[Any], hint: Any, unknown: bool) -> list[Any]:
    while typing.get_origin(hint) in (typing.Annotated, Union, types.UnionType):
        hint = next(
            a
            for a in typing.get_args(hint)
            if typing.get_origin(a) in _ARRAYS or a is not type(None)
        )
    (item,) = typing.get_args(hint) or (Any,)
    kept = []
    for v in items:
        try:
            kept.append(convert(v, item, unknown))
        except msgspec.ValidationError:
            continue
    return kept
