"""Every capability a side can advertise, read from a generated package's capabilities Struct, and
a covering design over them: each pair of capabilities meets in each pair of states.

A capability is a field of the Struct, at any depth, that is a boolean (omitted, false, true) or an
optional object (omitted, null, `{}`); `_meta` is not one. An optional object's own capabilities
are advertised only inside it. A field holding a required object is only a container: it appears
when one of its capabilities does."""

from __future__ import annotations

import itertools
import random
from typing import Any

import msgspec
from msgspec import inspect

OMITTED = "omitted"
BOOLEAN_STATES: tuple[Any, ...] = (OMITTED, False, True)
OBJECT_STATES: tuple[Any, ...] = (OMITTED, None, {})
META = "_meta"


class Capability(msgspec.Struct, frozen=True):
    path: tuple[str, ...]  # wire names from the capabilities object down
    states: tuple[Any, ...]
    parent: int | None  # index of the optional object it lives in, if any

    @property
    def name(self) -> str:
        return ".".join(self.path)


def struct_of(t: inspect.Type) -> inspect.StructType | None:
    """The Struct of a field typed `S` or `S | None`."""
    if isinstance(t, inspect.StructType):
        return t
    if isinstance(t, inspect.UnionType):
        structs = [u for u in t.types if isinstance(u, inspect.StructType)]
        return structs[0] if len(structs) == 1 else None
    return None


def _is_optional_object(t: inspect.Type) -> bool:
    if not isinstance(t, inspect.UnionType):
        return False
    kinds = {type(u) for u in t.types}
    return inspect.NoneType in kinds and kinds <= {
        inspect.NoneType,
        inspect.StructType,
        inspect.DictType,
    }


def capabilities(struct: type) -> list[Capability]:
    """Every capability of the capabilities Struct `struct`, parents before their children."""
    found: list[Capability] = []

    def walk(info: inspect.StructType, prefix: tuple[str, ...], parent: int | None) -> None:
        for field in info.fields:
            if field.encode_name == META:
                continue
            path = (*prefix, field.encode_name)
            inner = struct_of(field.type)
            if isinstance(field.type, inspect.BoolType):
                found.append(Capability(path, BOOLEAN_STATES, parent))
            elif _is_optional_object(field.type):
                found.append(Capability(path, OBJECT_STATES, parent))
                if inner is not None:
                    walk(inner, path, len(found) - 1)
            elif inner is not None:
                walk(inner, path, parent)  # a required object: a container only
            else:
                raise AssertionError(f"capability field {'.'.join(path)} has an unknown type")

    info = inspect.type_info(struct)
    assert isinstance(info, inspect.StructType), struct
    walk(info, (), None)
    return found


def advertised(caps: list[Capability], row: tuple[Any, ...], index: int) -> bool:
    """Whether capability `index` is advertised (true or `{}`, inside advertised parents)."""
    while True:
        if row[index] is OMITTED or row[index] is None or row[index] is False:
            return False
        parent = caps[index].parent
        if parent is None:
            return True
        index = parent


def effective(caps: list[Capability], row: tuple[Any, ...]) -> tuple[Any, ...]:
    """The row as sent: a capability inside an object that is not sent is omitted."""
    out = list(row)
    for i, cap in enumerate(caps):  # parents come first
        if cap.parent is not None and out[cap.parent] != {}:
            out[i] = OMITTED
    return tuple(out)


def to_wire(caps: list[Capability], row: tuple[Any, ...]) -> dict[str, Any]:
    """The capabilities object of a row (effective states), as wire JSON."""
    result: dict[str, Any] = {}
    for cap, state in zip(caps, effective(caps, row), strict=True):
        if state is OMITTED:
            continue
        node = result
        for key in cap.path[:-1]:
            node = node.setdefault(key, {})
        node[cap.path[-1]] = {} if state == {} else state
    return result


def _pairs(caps: list[Capability], row: tuple[Any, ...]) -> set[tuple[int, int, int, int]]:
    states = [c.states.index(s) for c, s in zip(caps, row, strict=True)]
    return {(i, states[i], j, states[j]) for i, j in itertools.combinations(range(len(caps)), 2)}


def _forced(caps: list[Capability], row: list[Any], index: int, state: Any) -> None:
    """Set `index` to `state`, and make its parents `{}` so that a sent state is seen."""
    row[index] = state
    if state is not OMITTED:
        parent = caps[index].parent
        while parent is not None:
            row[parent] = {}
            parent = caps[parent].parent


def covering_rows(caps: list[Capability], seed: int = 11, tries: int = 40) -> list[tuple[Any, ...]]:
    """Rows (one state per capability) in which every feasible pair of states of two capabilities
    occurs (as sent), greedily and deterministically from `seed`; the first row advertises
    nothing and the second everything."""
    rng = random.Random(seed)
    nothing = tuple(OMITTED for _ in caps)
    everything = tuple(c.states[-1] for c in caps)
    feasible: set[tuple[int, int, int, int]] = set()
    for i, j in itertools.combinations(range(len(caps)), 2):
        for a, b in itertools.product(range(len(caps[i].states)), range(len(caps[j].states))):
            row = list(nothing)
            _forced(caps, row, i, caps[i].states[a])
            _forced(caps, row, j, caps[j].states[b])
            sent = effective(caps, tuple(row))
            if (sent[i], sent[j]) == (caps[i].states[a], caps[j].states[b]):
                feasible.add((i, a, j, b))
    rows = [nothing, everything]
    uncovered = feasible - _pairs(caps, nothing) - _pairs(caps, everything)
    while uncovered:
        i, a, j, b = min(uncovered)
        best: tuple[Any, ...] = ()
        best_gain = -1
        for _ in range(tries):
            row = [rng.choice(c.states) for c in caps]
            _forced(caps, row, i, caps[i].states[a])
            _forced(caps, row, j, caps[j].states[b])
            sent = effective(caps, tuple(row))
            gain = len(_pairs(caps, sent) & uncovered)
            if gain > best_gain:
                best, best_gain = sent, gain
        assert best_gain > 0, (i, a, j, b)
        rows.append(best)
        uncovered -= _pairs(caps, best)
    return rows
