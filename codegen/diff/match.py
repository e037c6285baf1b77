"""Which def of the old revision is which def of the new one: same name, or a rename.

A rename is recognised by structure, never by a resemblance of names, in two ways:
- by position: two unpaired defs standing in the same place (the params or result of the same
  method, the type of the same field of paired defs, the variant of the same tag of paired unions,
  the base of paired variants), when nothing else stands there and they are of the same kind and
  share at least half of their members;
- by body: an unpaired def whose body (with references to paired defs read as their pair) equals
  the body of exactly one def of the other revision, and no other def of its own revision has that
  body. Many defs share a body (a dozen results are just `{_meta}`): those never pair that way.
Both are repeated until nothing new pairs up, so a rename found in one place helps find the next.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Hashable, Iterator
from typing import Any

from ..ir import (
    AliasDef,
    Const,
    Def,
    EnumDef,
    ListOf,
    MapOf,
    Method,
    ObjectDef,
    Ref,
    TypeExpr,
    UnionDef,
    UnionOf,
    without_null,
)
from .revision import Revision, pair_variants, variant_keys

Pairs = dict[str, str]  # old def name -> new def name
NameOf = Callable[[str], str]  # how a body names the defs it refers to


def match_defs(old: Revision, new: Revision) -> Pairs:
    pairs: Pairs = {name: name for name in old.defs if name in new.defs}
    while True:
        found = _by_position(old, new, pairs) or _by_body(old, new, pairs)
        if not found:
            return pairs
        pairs.update(found)


# ---------------------------------------------------------------- by position


def _by_position(old: Revision, new: Revision, pairs: Pairs) -> Pairs:
    taken = set(pairs.values())
    olds: dict[str, set[str]] = defaultdict(set)
    news: dict[str, set[str]] = defaultdict(set)
    for a, b in _positions(old, new, pairs):
        if a not in pairs and b not in taken:
            olds[a].add(b)
            news[b].add(a)
    return {
        a: b
        for a, (b, *more) in ((a, sorted(bs)) for a, bs in olds.items())
        if not more and news[b] == {a} and _alike(old, new, a, b)
    }


def _positions(old: Revision, new: Revision, pairs: Pairs) -> Iterator[tuple[str, str]]:
    for ma, mb in method_pairs(old.methods, new.methods):
        yield ma.params, mb.params
        if ma.result and mb.result:
            yield ma.result, mb.result
    for a, b in pairs.items():
        da, db = old.defs[a], new.defs[b]
        if isinstance(da, ObjectDef) and isinstance(db, ObjectDef):
            if da.base and db.base:
                yield da.base, db.base
            fields_b = {f.wire: f for f in db.fields}
            for fa in da.fields:
                if fa.wire in fields_b:
                    yield from _refs_in_place(fa.type, fields_b[fa.wire].type)
        elif isinstance(da, UnionDef) and isinstance(db, UnionDef):
            for _, _, va, vb in pair_variants(da, db, pairs)[0]:
                yield va.type, vb.type
        elif isinstance(da, AliasDef) and isinstance(db, AliasDef):
            yield from _refs_in_place(da.type, db.type)


def _refs_in_place(a: TypeExpr, b: TypeExpr) -> Iterator[tuple[str, str]]:
    a, b = without_null(a), without_null(b)
    if isinstance(a, Ref) and isinstance(b, Ref):
        yield a.name, b.name
    elif isinstance(a, ListOf) and isinstance(b, ListOf):
        yield from _refs_in_place(a.item, b.item)
    elif isinstance(a, MapOf) and isinstance(b, MapOf):
        yield from _refs_in_place(a.value, b.value)


def _alike(old: Revision, new: Revision, a: str, b: str) -> bool:
    da, db = old.defs[a], new.defs[b]
    if type(da) is not type(db) or old.is_synthetic(a) != new.is_synthetic(b):
        return False
    ma, mb = _members(da), _members(db)
    return 2 * len(ma & mb) >= min(len(ma), len(mb))


def _members(d: Def) -> set[str]:
    if isinstance(d, ObjectDef):
        return {f.wire for f in d.fields} - {"_meta"}
    if isinstance(d, EnumDef):
        return {str(m.value) for m in d.members}
    if isinstance(d, UnionDef):
        return set(variant_keys(d))
    return set()


def method_pairs(
    old: tuple[Method, ...], new: tuple[Method, ...]
) -> Iterator[tuple[Method, Method]]:
    """Methods of both revisions with the same wire name and kind, or the same wire name when each
    revision has only one method of that name (a request that became a notification)."""
    olds, news = _by_wire(old), _by_wire(new)
    for wire in olds.keys() & news.keys():
        a, b = olds[wire], news[wire]
        if len(a) == 1 and len(b) == 1:
            yield a[0], b[0]
        else:
            yield from ((ma, mb) for ma in a for mb in b if ma.kind == mb.kind)


def _by_wire(methods: tuple[Method, ...]) -> dict[str, list[Method]]:
    out: dict[str, list[Method]] = defaultdict(list)
    for m in methods:
        out[m.wire].append(m)
    return out


# ---------------------------------------------------------------- by body


def _by_body(old: Revision, new: Revision, pairs: Pairs) -> Pairs:
    taken = set(pairs.values())
    back = {b: a for a, b in pairs.items()}
    old_bodies = _bodies(old, lambda name: pairs.get(name, "?"))
    new_bodies = _bodies(new, lambda name: name if name in back else "?")
    found: Pairs = {}
    for body, names_a in old_bodies.items():
        names_b = new_bodies.get(body, [])
        if (
            len(names_a) == 1
            and len(names_b) == 1
            and names_a[0] not in pairs
            and names_b[0] not in taken
        ):
            found[names_a[0]] = names_b[0]
    return found


def _bodies(rev: Revision, name_of: NameOf) -> dict[Hashable, list[str]]:
    """Defs grouped by body, with refs named by `name_of` (the paired name, or "?")."""
    groups: dict[Hashable, list[str]] = defaultdict(list)
    for name, d in rev.defs.items():
        if not rev.is_synthetic(name):
            groups[_body(rev, d, name_of)].append(name)
    return groups


def _body(rev: Revision, d: Def, name_of: NameOf) -> Hashable:
    if isinstance(d, ObjectDef):
        return (
            "object",
            name_of(d.base) if d.base else None,
            frozenset(
                (
                    f.wire,
                    f.required,
                    _expr(f.type, name_of),
                    _json(f.default),
                    f.default_on_error,
                    f.skip_invalid_items,
                )
                for f in d.fields
            ),
        )
    if isinstance(d, EnumDef):
        return ("enum", d.kind, d.open, frozenset(m.value for m in d.members))
    if isinstance(d, UnionDef):
        variants = frozenset(
            (
                key,
                (
                    _body(rev, rev.defs[v.type], name_of)
                    if rev.is_synthetic(v.type)
                    else name_of(v.type)
                ),
            )
            for key, v in variant_keys(d).items()
        )
        return ("union", d.tag_field, d.open, variants)
    return ("alias", _expr(d.type, name_of))


def _expr(t: TypeExpr, name_of: NameOf) -> Hashable:
    if isinstance(t, Ref):
        return ("ref", name_of(t.name))
    if isinstance(t, ListOf):
        return ("list", _expr(t.item, name_of), t.min_items, t.max_items)
    if isinstance(t, MapOf):
        return ("map", _expr(t.value, name_of))
    if isinstance(t, UnionOf):
        return ("union", frozenset(_expr(o, name_of) for o in t.options))
    if isinstance(t, Const):
        return ("const", _json(t.value))
    return t


def _json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=repr)
