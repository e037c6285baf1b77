"""Another change's rejection taken out of a drawn value, so the value can still test its own.

A value drawn to exercise one change may also carry others (a field another change narrowed, a
variant another change removed): the receiver then rejects it there first and says nothing about
the change under test. `prune` drops the rejected part (an object's key, a list's item) when it
holds none of the places of the change, and moves the defs' places past a dropped list item.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

Where = tuple[Any, ...]
Places = Mapping[str, tuple[Where, ...]]  # def name -> where its values are in a drawn value


def prune(
    value: Any, where: Where | None, places: Places, keep: str
) -> tuple[Any, dict[str, tuple[Where, ...]]] | None:
    """`value` without the part at `where`, with the places of the defs left in it; None when
    that part is the whole value, holds a value of the def `keep`, or is not in the value (a
    missing field)."""
    if not where or any(p[: len(where)] == where for p in places.get(keep, ())):
        return None
    out = copy.deepcopy(value)
    parent = out
    for step in where[:-1]:
        if not _has(parent, step):
            return None
        parent = parent[step]
    if not _has(parent, where[-1]):
        return None
    del parent[where[-1]]
    in_list = isinstance(parent, list)
    moved = {
        name: tuple(_shifted(p, where) if in_list else p for p in ps if p[: len(where)] != where)
        for name, ps in places.items()
    }
    return out, moved


def _has(node: Any, step: Any) -> bool:
    if isinstance(node, dict):
        return step in node
    return isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node)


def _shifted(place: Where, removed: Where) -> Where:
    """A place after the list item at `removed` was dropped: later items move down by one."""
    n = len(removed)
    if len(place) >= n and place[: n - 1] == removed[:-1] and place[n - 1] > removed[-1]:
        return (*place[: n - 1], place[n - 1] - 1, *place[n:])
    return place
