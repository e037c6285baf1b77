"""A required field another change made the receiver ask for, filled in so the value gets past it.

A value drawn from one revision's schema lacks a field the other revision requires (a listed
`field-added-required`, `field-became-required`): the receiver rejects it there, before it reaches
the change under test. Pruning cannot help (there is nothing to drop), but the receiver's own
schema says what the field takes: `fill` draws a value for it from the receiver's revision and
puts it in at the place the rejection names.
"""

from __future__ import annotations

import copy
import zlib
from typing import Any

from ..instances import instances_with_refs
from .blame import value_at
from .model import Change
from .revision import Revision
from .target import hoisted, property_schema, target

Where = tuple[Any, ...]
_SLOT = "__acpgen_fill__"


def fill(
    value: Any, where: Where | None, owners: tuple[Change, ...], side: str, rev: Revision
) -> Any | None:
    """`value` with the field missing at `where` drawn from `rev` (the receiver's revision, the
    `side` "old" or "new" of the diff) as one of `owners` declares it there; None when no owner
    declares that field, or the field's object is not in the value, or the field is there."""
    if not where or not isinstance(where[-1], str):
        return None
    parent = value_at(value, where[:-1])
    if not isinstance(parent, dict) or where[-1] in parent:
        return None
    for change in owners:
        t = target(change, side)
        if t is None or t.field is None or t.field != where[-1]:
            continue
        document = hoisted(rev, t.root)
        node = property_schema(document.get("$defs", {}).get(t.root), t.field)
        if node is None:
            continue
        seed = zlib.crc32(f"{change.rule} {change.subject} {side}".encode())
        drawn = instances_with_refs(
            {**document, "$defs": {**document["$defs"], _SLOT: node}}, _SLOT, count=1, seed=seed
        )
        if not drawn:
            continue
        out = copy.deepcopy(value)
        value_at(out, where[:-1])[where[-1]] = drawn[0][0]
        return out
    return None
