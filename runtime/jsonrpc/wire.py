"""Read and build generated objects by their wire names, so the runtime needs no Python names.

The protocol rules speak the wire (`sessionId`, `promptCapabilities.image`); generated Structs
carry the matching Python attribute names. These helpers map one to the other through msgspec's
own field table, so they work for any generated package, whatever its naming rule.
"""

from __future__ import annotations

import enum
import functools
import operator
import re
from typing import TYPE_CHECKING, Any, Callable, Iterator

import msgspec

from .errors import SchemaMismatchError

if TYPE_CHECKING:
    from ..jsonrpc.package import Package, TypeForm

MISSING: Any = None
"""What `get` returns for an absent, UNSET or null value: in ACP all three mean "not there"."""


_FIELDS: dict[type, dict[str, str]] = {}


def _fields(cls: type) -> dict[str, str]:
    """Wire name -> attribute name, per Struct type."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = {f.encode_name: f.name for f in msgspec.structs.fields(cls)}
    return fields


def attribute(cls: Any, key: str) -> str | None:
    """The attribute name of a Struct type's field of wire name `key` (None: no such field, or
    not a Struct type)."""
    if not (isinstance(cls, type) and issubclass(cls, msgspec.Struct)):
        return None
    return _fields(cls).get(key)


def reader(cls: Any, *keys: str) -> Callable[[Any], Any]:
    """What reads the values at these wire keys of a value of type `cls` (one key: its value;
    several: a tuple of them): one C call for a Struct type declaring them all, else `get`."""
    names = [attribute(cls, key) for key in keys]
    if all(names):
        return operator.attrgetter(*names)  # type: ignore[arg-type]  # all str, as checked
    if len(keys) == 1:
        return lambda obj: get(obj, keys[0])
    return lambda obj: tuple(get(obj, key) for key in keys)


def declares_any(obj: Any, keys: tuple[str, ...]) -> bool:
    """Whether a Struct declares any of these wire keys (dicts and other values: assume so)."""
    if not isinstance(obj, msgspec.Struct):
        return obj is not None
    return _declares_any(type(obj), keys)


@functools.cache
def _declares_any(cls: type, keys: tuple[str, ...]) -> bool:
    fields = _fields(cls)
    return any(key in fields for key in keys)


def get(obj: Any, *path: str) -> Any:
    """The value at a wire path (`get(caps, "sessionCapabilities", "list")`), or None.

    Walks Structs by wire name (a tagged Struct also answers its tag field), dicts by key, and the
    `.raw` of an unknown variant. Enum members come back as their values.
    """
    for key in path:
        if obj is None or obj is msgspec.UNSET:
            return MISSING
        fields = _FIELDS.get(type(obj))  # a Struct type seen before: the common, fast case
        if fields is not None or isinstance(obj, msgspec.Struct):
            cls = type(obj)
            name = (fields if fields is not None else _fields(cls)).get(key)
            if name is not None:
                obj = getattr(obj, name)
                continue
            config = cls.__struct_config__
            obj = config.tag if config.tag_field == key else MISSING
        elif isinstance(obj, dict):
            obj = obj.get(key)
        elif hasattr(obj, "raw"):  # the generated UnknownVariant
            obj = obj.raw.get(key) if isinstance(obj.raw, dict) else MISSING
        else:
            return MISSING
    if obj is msgspec.UNSET:
        return MISSING
    return obj.value if isinstance(obj, enum.Enum) else obj


def items(obj: Any, *path: str) -> list[Any]:
    """The list at a wire path, or [] when absent."""
    value = get(obj, *path)
    return list(value) if isinstance(value, (list, tuple)) else []


def values(obj: Any, path: str) -> list[Any]:
    """Every value at a dotted wire path, `*` standing for each item of a list:
    `values(params, "update.locations.*.path")`. Absent values are left out."""
    found = [obj]
    keys = _PATHS.get(path) or _PATHS.setdefault(path, tuple(path.split(".")))
    for i, key in enumerate(keys):
        step: list[Any] = []
        for value in found:
            if (
                key != "*"
                and isinstance(value, msgspec.Struct)
                and not _may_hold(type(value), keys[i:])
            ):
                continue  # this type cannot hold the rest of the path: skip it without walking
            if key == "*":
                step.extend(v for v in items(value) if v is not None)
            else:
                value = get(value, key)
                if value is not None:
                    step.append(value)
        if not step:
            return step
        found = step
    return found


class Reach:
    """Whether a value may hold any of some dotted wire paths, judged by its type and by the types
    of the values at the paths' first step: a cheap first look before walking (`values`).

    One per set of paths; its plans are kept per type, so a message of a type seen before costs a
    few dict lookups and attribute reads.
    """

    __slots__ = ("paths", "_plans", "one_field")

    def __init__(self, paths: tuple[str, ...]) -> None:
        self.paths = paths
        # type -> ((wire key, attribute name or "", rests after it, held by the value's type), ...)
        self._plans: dict[
            type, tuple[tuple[str, str, tuple[tuple[str, ...], ...], dict[type, bool]], ...]
        ] = {}
        # the types whose paths all start at one field: its attribute name and what a value of each
        # type there may hold (that plan's `held`)
        self.one_field: dict[type, tuple[str, dict[type, bool]]] = {}

    def may_hold(self, obj: Any) -> bool:
        """Whether `obj` may hold any of the paths (a bound method is a cheaper call than the
        instance: keep `reach.may_hold` where it is called per message)."""
        one = self.one_field.get(type(obj))  # the common case: one field read, its type seen before
        if one is not None:
            holds = one[1].get(type(getattr(obj, one[0])))
            if holds is not None:
                return holds
        plan = self._plans.get(type(obj))  # a Struct type seen before
        if plan is None:
            if not isinstance(obj, msgspec.Struct):
                return True
            plan = self._plans[type(obj)] = self._plan(type(obj))
            if len(plan) == 1 and plan[0][1]:
                self.one_field[type(obj)] = (plan[0][1], plan[0][3])
        for key, attr, rests, held in plan:
            first = getattr(obj, attr) if attr else get(obj, key)
            holds = held.get(type(first))  # what a value of its type may hold: one lookup
            if holds is None:
                holds = held[type(first)] = _first_holds(first, rests)
            if holds:
                return True
        return False

    def _plan(
        self, cls: type
    ) -> tuple[tuple[str, str, tuple[tuple[str, ...], ...], dict[type, bool]], ...]:
        """The paths `cls` may hold, grouped by their first key."""
        groups: dict[str, list[tuple[str, ...]]] = {}
        for path in self.paths:
            keys = tuple(path.split("."))
            if _may_hold(cls, keys):
                rests = groups.setdefault(keys[0], [])
                if len(keys) > 1:
                    rests.append(keys[1:])
        fields = _fields(cls)
        return tuple(
            (first, fields.get(first, ""), tuple(rests), {}) for first, rests in groups.items()
        )


def _first_holds(first: Any, rests: tuple[tuple[str, ...], ...]) -> bool:
    """Whether the value at a path's first key may hold the rest of one of the paths: decided by
    its type alone (absent: no; not a Struct, or no rest: yes; a Struct: its fields say)."""
    if first is None or first is msgspec.UNSET:
        return False
    kind: type = type(first)
    return (
        not rests or not isinstance(first, msgspec.Struct) or any(_may_hold(kind, r) for r in rests)
    )


_PATHS: dict[str, tuple[str, ...]] = {}


@functools.cache
def _may_hold(cls: type, path: tuple[str, ...]) -> bool:
    return declares(cls, *path)


def declares(cls: TypeForm, *path: str) -> bool:
    """Whether the type `cls` declares the wire path (through optional fields, unions and lists).

    A type it cannot see into (a hook-decoded union) counts as declaring it.
    """
    return _declares(type_info(cls), path) if cls is not None else False


@functools.cache
def type_info(cls: TypeForm) -> msgspec.inspect.Type:
    """`msgspec.inspect.type_info(cls)`, worked out once per type (it walks every type `cls`
    reaches, which costs milliseconds for a large union). A type form is hashable: a Struct
    class, a union or generic alias, an enum."""
    return msgspec.inspect.type_info(cls)


def _declares(info: msgspec.inspect.Type, path: tuple[str, ...]) -> bool:
    if not path:
        return True
    inspect = msgspec.inspect
    if isinstance(info, inspect.UnionType):
        return any(_declares(member, path) for member in info.types)
    if isinstance(info, (inspect.ListType, inspect.VarTupleType)):
        return _declares(info.item_type, path[1:] if path[0] == "*" else path)
    if isinstance(info, inspect.StructType):
        return any(f.encode_name == path[0] and _declares(f.type, path[1:]) for f in info.fields)
    return isinstance(info, (inspect.CustomType, inspect.AnyType, inspect.DictType))


def replace(obj: Any, key: str, value: Any) -> Any:
    """A copy of a Struct (or dict) with the field of wire name `key` set to `value`."""
    if isinstance(obj, dict):
        return {**obj, key: value}
    return msgspec.structs.replace(obj, **{_fields(type(obj))[key]: value})


def build(
    schema: Package,
    data: Any,
    cls: TypeForm,
    *,
    method: str = "",
    at: str = "",
    received: bool = False,
) -> Any:
    """A typed instance of `cls` from wire-shaped builtins (generated objects inside are fine).

    Built to be sent, it is checked as a sender must (`check`): a value that breaks the schema, or
    a key the schema does not declare (at any depth: it would not be sent), raises
    `SchemaMismatchError` naming `method`, the path (under `$.{at}`: "params" or "result" of the
    message the value goes in, when given) and the value there.
    `received=True` reads a value a peer sent instead, as a receiver may: through the package's
    forgiving decoder (`x-deserialize-*` marks), raising its `msgspec.ValidationError`.
    """
    if received:
        return schema.decode(msgspec.json.encode(data), cls)
    return _built(schema, data, cls, method, at)[0]


def to_send(
    schema: Package, value: Any, cls: TypeForm, *, method: str = "", at: str = ""
) -> tuple[Any, bytes]:
    """What a sender sends of `value` (wire JSON or a generated object) as the `at` member
    ("params" or "result") of a `method` message, checked strictly (`build`, `check`), and its
    JSON, encoded once: the envelope takes these bytes as they are (`sending.Envelopes`). Wire JSON
    comes back typed into `cls` (its JSON: the typed value's, defaults and all), a generated
    object as it is. Raises `SchemaMismatchError` as `build` does."""
    if type(value) is dict:
        return _built(schema, value, cls, method, at)
    return value, _checked(schema, value, cls, method, at)[0]


def _built(schema: Package, data: Any, cls: TypeForm, method: str, at: str) -> tuple[Any, bytes]:
    """`build` of a value to send: the typed value, and its JSON."""
    sent, typed = _checked(schema, data, cls, method, at)
    encoded: bytes = schema.encode_message(typed)
    if type(data) is dict and encoded != sent:  # else nothing was dropped
        extra = _undeclared(data, typed, _implied_tags(cls))
        if extra is not None:
            steps, value = extra
            raise SchemaMismatchError(
                method,
                _root(at) + "".join(reversed(steps)),
                value,
                f"{steps[0][1:]!r} not declared by the schema (custom data goes in _meta)",
            )
    return typed, encoded


def check(schema: Package, value: Any, cls: TypeForm, *, method: str = "", at: str = "") -> Any:
    """`value` (a generated object or wire JSON) checked strictly against `cls`, as what a sender
    sends must be: the schema's `x-deserialize-*` marks forgive a receiver, never a sender. Returns
    it decoded into `cls`; raises `SchemaMismatchError` (the method, the path under `$.{at}`, the
    value there and what is wrong) when it does not fit."""
    return _checked(schema, value, cls, method, at)[1]


def _checked(schema: Package, value: Any, cls: TypeForm, method: str, at: str) -> tuple[bytes, Any]:
    """`check`: the value's JSON, and the value decoded from it."""
    try:
        data: bytes = schema.encode_message(value)
    except (TypeError, ValueError, msgspec.EncodeError) as exc:
        raise SchemaMismatchError(method, _root(at), value, f"cannot be encoded ({exc})") from None
    try:
        return data, schema.decode(data, cls, strict=True)
    except msgspec.ValidationError as exc:
        reason, sep, where = str(exc).rpartition(" - at `")
        path = where.rstrip("`") if sep else "$"
        if not sep:
            reason = str(exc)
        raise SchemaMismatchError(
            method, _root(at) + path[1:], _at(msgspec.json.decode(data), path), reason
        ) from None


def _root(at: str) -> str:
    return f"$.{at}" if at else "$"


_STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]|\[\.\.\.\]")


def _at(value: Any, path: str) -> Any:
    """The value at a `$.a[0].b['key']` path of decoded JSON (where a step cannot be followed:
    the value reached so far)."""
    for match in _STEP.finditer(path, 1):
        key, index, quoted = match.group(1), match.group(2), match.group(3)
        if quoted is not None:
            import ast  # only on the way to an error

            key = ast.literal_eval(quoted)
        if key is not None and isinstance(value, dict) and key in value:
            value = value[key]
        elif index is not None and isinstance(value, list) and int(index) < len(value):
            value = value[int(index)]
        else:
            break
    return value


def _undeclared(
    data: Any, typed: Any, tags: frozenset[str] = frozenset()
) -> tuple[list[str], Any] | None:
    """The first key of wire JSON `data` that `typed` (what it decoded into) does not keep, as the
    steps of its path (innermost first) and its value: a key its Struct does not declare, at any
    depth. `tags` are the tag fields of the union `typed` was chosen from: a variant that stands for
    a tag does not keep it (`"type": "agent"` of a default variant), and the schema declares it."""
    for step, value, became, inner in _children(data, typed, tags):
        if became is _UNDECLARED:
            return [step], value
        found = _undeclared(value, became, inner)
        if found is not None:
            found[0].append(step)
            return found
    return None


_UNDECLARED: Any = object()


def _children(data: Any, typed: Any, tags: frozenset[str]) -> Iterator[tuple[str, Any, Any, Any]]:
    """`_undeclared`'s steps in order: (step, nested value, what it became, its tags), or a key
    the Struct does not keep (what it became: `_UNDECLARED`)."""
    if type(data) is dict and isinstance(typed, msgspec.Struct):
        cls = type(typed)
        fields, tag = _fields(cls), cls.__struct_config__.tag_field
        for key, value in data.items():
            name = fields.get(key)
            if name is None:
                if key != tag and key not in tags:
                    yield f".{key}", value, _UNDECLARED, tags
            elif type(value) in _NESTED:
                yield f".{key}", value, getattr(typed, name), _field_tags(cls)[key]
    elif type(data) is dict and type(typed) is dict:
        yield from ((f".{k}", v, typed.get(k), tags) for k, v in data.items() if type(v) in _NESTED)
    elif type(data) is not dict and isinstance(typed, (list, tuple)):
        pairs = enumerate(zip(data, typed, strict=False))
        yield from ((f"[{i}]", v, item, tags) for i, (v, item) in pairs if type(v) in _NESTED)


_NESTED = frozenset((dict, list, tuple))


@functools.cache
def _field_tags(cls: type) -> dict[str, frozenset[str]]:
    """Wire name -> `_implied_tags` of the field's type, per Struct type."""
    info = type_info(cls)
    fields = info.fields if isinstance(info, msgspec.inspect.StructType) else ()
    return {f.encode_name: _tags(f.type) for f in fields}


@functools.cache
def _implied_tags(cls: TypeForm) -> frozenset[str]:
    """The tag fields of the hook-decoded unions a value of `cls` may be (through optionals, lists
    and dict values): keys the schema declares that the variant chosen may not keep."""
    return _tags(type_info(cls)) if cls is not None else frozenset()


def _tags(info: msgspec.inspect.Type) -> frozenset[str]:
    inspect = msgspec.inspect
    if isinstance(info, inspect.UnionType):
        return frozenset().union(*(_tags(member) for member in info.types))
    if isinstance(info, (inspect.ListType, inspect.VarTupleType)):
        return _tags(info.item_type)
    if isinstance(info, inspect.DictType):
        return _tags(info.value_type)
    if isinstance(info, inspect.CustomType):
        tag = getattr(info.cls, "__acp_tag__", None)
        return frozenset((tag,)) if isinstance(tag, str) else frozenset()
    return frozenset()


def structured(value: Any) -> bool:
    """Whether a params value is absent or a JSON-RPC "structured value" (an object or an array)."""
    kind = type(value)
    found = _STRUCTURED.get(kind)  # by type: one lookup for the types seen before
    if found is None:
        found = issubclass(kind, (msgspec.Struct, dict, list, tuple))
        if found or not hasattr(value, "raw"):  # an UnknownVariant: by its own value, each time
            _STRUCTURED[kind] = found
    if found or value is None or value is msgspec.UNSET:
        return True
    return hasattr(value, "raw") and isinstance(value.raw, (dict, list))  # an UnknownVariant


_STRUCTURED: dict[type, bool] = {}
