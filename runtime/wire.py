"""Read and build generated objects by their wire names, so the runtime needs no Python names.

The protocol rules speak the wire (`sessionId`, `promptCapabilities.image`); generated Structs
carry the matching Python attribute names. These helpers map one to the other through msgspec's
own field table, so they work for any generated package, whatever its naming rule.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from .package import Package, TypeForm, Wire

MISSING: Wire = None
"""What `get` returns for an absent, UNSET or null value: in ACP all three mean "not there"."""


_FIELDS: dict[type, dict[str, str]] = {}


def _fields(cls: type) -> dict[str, str]:
    """Wire name -> attribute name, per Struct type."""
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = {f.encode_name: f.name for f in msgspec.structs.fields(cls)}
    return fields


def declares_any(obj: Wire, keys: tuple[str, ...]) -> bool:
    """Whether a Struct declares any of these wire keys (dicts and other values: assume so)."""
    if not isinstance(obj, msgspec.Struct):
        return obj is not None
    cls = type(obj)
    found = _DECLARES.get((cls, keys))
    if found is None:
        fields = _fields(cls)
        found = _DECLARES[(cls, keys)] = any(key in fields for key in keys)
    return found


_DECLARES: dict[tuple[type, tuple[str, ...]], bool] = {}


def get(obj: Wire, *path: str) -> Wire:
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


def items(obj: Wire, *path: str) -> list[Wire]:
    """The list at a wire path, or [] when absent."""
    value = get(obj, *path)
    return list(value) if isinstance(value, (list, tuple)) else []


def values(obj: Wire, path: str) -> list[Wire]:
    """Every value at a dotted wire path, `*` standing for each item of a list:
    `values(params, "update.locations.*.path")`. Absent values are left out."""
    found = [obj]
    keys = _PATHS.get(path) or _PATHS.setdefault(path, tuple(path.split(".")))
    for i, key in enumerate(keys):
        step: list[Wire] = []
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

    __slots__ = ("paths", "_plans")

    def __init__(self, paths: tuple[str, ...]) -> None:
        self.paths = paths
        # type -> ((wire key, attribute name or "", rests after it, held by the value's type), ...)
        self._plans: dict[
            type, tuple[tuple[str, str, tuple[tuple[str, ...], ...], dict[type, bool]], ...]
        ] = {}

    def __call__(self, obj: Wire) -> bool:
        if not isinstance(obj, msgspec.Struct):
            return True
        plan = self._plans.get(type(obj))
        if plan is None:
            plan = self._plans[type(obj)] = self._plan(type(obj))
        for key, attr, rests, held in plan:
            first = getattr(obj, attr) if attr else get(obj, key)
            if first is None or first is msgspec.UNSET:
                continue
            if not rests or not isinstance(first, msgspec.Struct):
                return True
            holds = held.get(type(first))
            if holds is None:
                holds = held[type(first)] = any(_may_hold(type(first), rest) for rest in rests)
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


_PATHS: dict[str, tuple[str, ...]] = {}
_HOLDS: dict[tuple[type, tuple[str, ...]], bool] = {}


def _may_hold(cls: type, path: tuple[str, ...]) -> bool:
    found = _HOLDS.get((cls, path))
    if found is None:
        found = _HOLDS[(cls, path)] = declares(cls, *path)
    return found


def declares(cls: TypeForm, *path: str) -> bool:
    """Whether the type `cls` declares the wire path (through optional fields, unions and lists).

    A type it cannot see into (a hook-decoded union) counts as declaring it.
    """
    return _declares(type_info(cls), path) if cls is not None else False


_INFO: dict[TypeForm, msgspec.inspect.Type] = {}


def type_info(cls: TypeForm) -> msgspec.inspect.Type:
    """`msgspec.inspect.type_info(cls)`, worked out once per type (it walks every type `cls`
    reaches, which costs milliseconds for a large union)."""
    try:
        found = _INFO.get(cls)
    except TypeError:  # an unhashable type form: not kept
        return msgspec.inspect.type_info(cls)
    if found is None:
        found = _INFO[cls] = msgspec.inspect.type_info(cls)
    return found


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


def replace(obj: Wire, key: str, value: Wire) -> Wire:
    """A copy of a Struct (or dict) with the field of wire name `key` set to `value`."""
    if isinstance(obj, dict):
        return {**obj, key: value}
    return msgspec.structs.replace(obj, **{_fields(type(obj))[key]: value})


def has_field(cls: TypeForm, key: str) -> bool:
    """Whether a Struct type declares a field of wire name `key`."""
    return isinstance(cls, type) and issubclass(cls, msgspec.Struct) and key in _fields(cls)


def build(schema: Package, data: Wire, cls: TypeForm) -> Wire:
    """A typed instance of `cls` from wire-shaped builtins, through the package's own decoder."""
    return schema.decode(msgspec.json.encode(data), cls)


def structured(value: Wire) -> bool:
    """Whether a params value is absent or a JSON-RPC "structured value" (an object or an array)."""
    if (
        value is None
        or value is msgspec.UNSET
        or isinstance(value, (msgspec.Struct, dict, list, tuple))
    ):
        return True
    return hasattr(value, "raw") and isinstance(value.raw, (dict, list))  # an UnknownVariant


def undeclared(data: dict[str, Wire], typed: Wire) -> list[str]:
    """The keys of `data` that `typed` (what `data` decoded into) does not declare: custom ones."""
    if not isinstance(typed, msgspec.Struct):
        return []
    config = type(typed).__struct_config__
    return sorted(
        key for key in data if key not in _fields(type(typed)) and key != config.tag_field
    )
