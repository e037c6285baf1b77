"""What every output format shares: counts per role and level, and changes grouped by subject."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from .model import LEVELS, ROLES, Change, Level


@dataclass(frozen=True)
class Group:
    """The changes of one method or one type (its fields, values and variants included)."""

    scope: str  # "method" | "type"
    name: str
    changes: tuple[Change, ...]

    @property
    def affects(self) -> tuple[str, ...]:
        return tuple(sorted({m for c in self.changes for m in c.affects}))


def root(change: Change) -> str:
    """The method or type a change belongs to: `Type` for `Type.field` and `Type[value]`."""
    if change.scope == "method":
        return change.subject
    return change.subject.split(".")[0].split("[")[0]


def groups(changes: Iterable[Change]) -> list[Group]:
    """Consecutive changes of the same root, in the (already stable) order of the changes."""
    out: list[Group] = []
    for c in changes:
        if out and out[-1].scope == c.scope and out[-1].name == root(c):
            out[-1] = Group(c.scope, root(c), out[-1].changes + (c,))
        else:
            out.append(Group(c.scope, root(c), (c,)))
    return out


def counts(changes: Iterable[Change]) -> dict[str, dict[Level, int]]:
    """How many changes have each level, per role."""
    table = {role: {level: 0 for level in LEVELS} for role in ROLES}
    for c in changes:
        for role in ROLES:
            table[role][c.severity.of(role)] += 1
    return table


def to_fix(changes: Iterable[Change], role: str) -> list[Change]:
    """The changes that are breaking or a warning for a role and not accepted, worst first."""
    hits = [
        c
        for c in changes
        if c.accepted is None and c.severity.of(role) in (Level.BREAKING, Level.WARNING)
    ]
    return sorted(hits, key=lambda c: -c.severity.of(role).rank)  # stable: keeps the listing order


@dataclass(frozen=True)
class Batch:
    """Changes of a role's to-fix list with one level, rule and detail (`_meta` of every type)."""

    level: Level
    rule: str
    detail: str
    changes: tuple[Change, ...]


def to_fix_batched(changes: Iterable[Change], role: str, at_least: int = 4) -> list[Batch]:
    """`to_fix`, with the same change made to `at_least` subjects or more given once."""
    hits = to_fix(changes, role)

    def key(c: Change) -> tuple[Level, str, str]:
        return c.severity.of(role), c.rule, c.detail

    sizes: dict[tuple[Level, str, str], list[Change]] = {}
    for c in hits:
        sizes.setdefault(key(c), []).append(c)
    batches: list[Batch] = []
    for c in hits:
        same = sizes[key(c)]
        if len(same) < at_least:
            batches.append(Batch(c.severity.of(role), c.rule, c.detail, (c,)))
        elif same[0] is c:
            batches.append(Batch(c.severity.of(role), c.rule, c.detail, tuple(same)))
    return batches
