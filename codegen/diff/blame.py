"""Which listed change a receiver's rejection belongs to.

A rejection names a place in the message (`$.params.update.content._meta`). Every listed change
whose def has a value at or above that place may claim it: a field change the rejections at or
below its field, a variant or enum value change the rejections at its def's value when that value
is the variant or the value, a change of the def as a whole the rejections at the def's value
(and at its tag). The most specific claim wins: the deepest def value, then a field over a
variant over the whole def, then a change on the wire over one that only renames or re-documents
(`NOT_ON_THE_WIRE`). A method change owns the "method not found" answers of its method, and the
rejections of its messages that no type change claims (its params or result became another type).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..ir import EnumDef, UnionDef
from .model import Change
from .revision import Revision, variant_keys
from .target import Target, target

Where = tuple[Any, ...]
Score = tuple[int, int, int, int]
NOT_ON_THE_WIRE = frozenset(
    {
        "type-added",
        "type-removed",
        "type-renamed",
        "type-shadows",
        "enum-member-renamed",
        "became-stable",
        "became-unstable",
        "default-added",
        "default-removed",
        "default-changed",
    }
)
WHOLE = frozenset(
    {
        "type-kind-changed",
        "object-became-union",
        "union-became-object",
        "object-became-compatible-union",
        "compatible-union-became-object",
        "union-tag-changed",
    }
)  # rules about a def's shape as a whole: a rejection just below the def's value is theirs too


@dataclass(frozen=True)
class Claim:
    """The changes a rejection belongs to, and the value they are about (`anchor`: the field's
    value, or the def's value; None for the call itself): what to drop to get past them."""

    changes: tuple[Change, ...]
    anchor: Where | None


@dataclass(frozen=True)
class Suspect:
    change: Change
    target: Target


class Blame:
    """The listed changes, by the def they are about in the revision of one side."""

    def __init__(self, changes: tuple[Change, ...], side: str, rev: Revision) -> None:
        self.rev = rev
        self.by_root: dict[str, list[Suspect]] = {}
        self.methods: dict[str, list[Change]] = {}
        for c in changes:
            t = target(c, side)
            if t is None:
                self.methods.setdefault(c.subject.split(" (")[0], []).append(c)
            else:
                self.by_root.setdefault(t.root, []).append(Suspect(c, t))

    def owners(
        self, wire: str, where: Where | None, places: Mapping[str, tuple[Where, ...]], value: Any
    ) -> Claim:
        """The changes a rejection at `where` (None: the method itself) belongs to."""
        if where is None:
            return Claim(tuple(self.methods.get(wire, ())), None)
        best: Score | None = None
        found: list[Change] = []
        anchor: Where = where
        for root, ps in places.items():
            for suspect in self.by_root.get(root, ()):
                for p in ps:
                    score = self._claim(suspect, p, where, value)
                    if score is None or (best is not None and score < best):
                        continue
                    if best is None or score > best:
                        best, found, anchor = score, [], _concrete(where, p)[: score[0]]
                    if suspect.change not in found:
                        found.append(suspect.change)
        if not found:  # the method's, when its params or result became another type
            return Claim(tuple(self.methods.get(wire, ())), where)
        return Claim(tuple(found), anchor)

    def _claim(self, s: Suspect, p: Where, where: Where, value: Any) -> Score | None:
        where = _concrete(where, p)
        t, rule = s.target, s.change.rule
        wire = 0 if rule in NOT_ON_THE_WIRE else 1
        d = self.rev.defs.get(t.root)
        tag = d.tag_field if isinstance(d, UnionDef) else None
        if t.key is not None and not self._is_key(d, t.key, value_at(value, p)):
            return None
        if t.field is not None:
            f = (*p, t.field)
            if where[: len(f)] != f:
                return None
            if t.value is not None and (where != f or _text(value_at(value, f)) != t.value):
                return None
            return (len(f), len(p), 2, wire)
        if where == p or (tag is not None and where == (*p, tag)):
            return (len(p), len(p), 1 if t.key is not None else 0, wire)
        if rule in WHOLE and where[: len(p)] == p and len(where) == len(p) + 1:
            return (len(p), len(p), 0, wire)
        return None

    def _is_key(self, d: Any, key: str, here: Any) -> bool:
        """Whether the value of a def is the enum value or the variant `key` names."""
        if isinstance(d, EnumDef):
            return _text(here) == key
        if isinstance(d, UnionDef):
            variant = variant_keys(d).get(key)
            if variant is None or variant.tag is None:
                return True  # an untagged variant cannot be told from the value alone
            return isinstance(here, dict) and here.get(variant.tag.field) == variant.tag.value
        return True


def _concrete(where: Where, place: Where) -> Where:
    """`where` with the keys a decoder leaves out (`[...]`, a map's key) read from `place` where
    `where` runs through it."""
    head = where[: len(place)]
    if len(head) == len(place) and all(w in (q, "...") for w, q in zip(head, place, strict=True)):
        return (*place, *where[len(place) :])
    return where


def value_at(value: Any, where: Where) -> Any:
    """The value at `where` in decoded JSON; None where a step cannot be followed."""
    for step in where:
        try:
            value = value[step]
        except (KeyError, IndexError, TypeError):
            return None
    return value


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)
