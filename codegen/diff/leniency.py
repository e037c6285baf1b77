"""Whether every use of a def forgives a bad value of it: the receivers then never reject it.

A def is forgiven in a revision when it is used only as the type of fields that replace a bad
value by their default (`x-deserialize-default-on-error`), or as the items of lists that skip a
bad item (`x-deserialize-skip-invalid-items`), possibly nullable: a value of it that the receiver
cannot read is dropped, not refused. A def used anywhere else (a union's variant, an alias, a base,
a method's params or result, a plain field) is not.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..ir import AliasDef, Field, ListOf, ObjectDef, Ref, TypeExpr, UnionDef, without_null
from .reach import type_refs
from .revision import Revision


def forgiven(rev: Revision, name: str) -> bool:
    key = rev.schema.sha256  # the same bytes build the same defs
    if key not in _FORGIVEN:
        _FORGIVEN[key] = _forgiven_defs(rev)
    return name in _FORGIVEN[key]


_FORGIVEN: dict[str, frozenset[str]] = {}


def _forgiven_defs(rev: Revision) -> frozenset[str]:
    lenient: dict[str, bool] = {}
    for name, ok in _uses(rev):
        lenient[name] = lenient.get(name, True) and ok
    return frozenset(name for name, ok in lenient.items() if ok)


def _uses(rev: Revision) -> Iterator[tuple[str, bool]]:
    """Every use of a def: (its name, whether that use forgives a bad value)."""
    for m in rev.methods:
        yield from ((n, False) for n in (m.params, m.result) if n is not None)
    for d in rev.defs.values():
        if isinstance(d, ObjectDef):
            if d.base:
                yield d.base, False
            for f in d.fields:
                yield from _field_uses(f)
        elif isinstance(d, UnionDef):
            yield from ((v.type, False) for v in d.variants)
        elif isinstance(d, AliasDef):
            yield from ((n, False) for n in type_refs(d.type))


def _field_uses(f: Field) -> Iterator[tuple[str, bool]]:
    t: TypeExpr = without_null(f.type)
    if isinstance(t, Ref):
        yield t.name, f.default_on_error
    elif isinstance(t, ListOf) and isinstance(without_null(t.item), Ref):
        item = without_null(t.item)
        assert isinstance(item, Ref)
        yield item.name, f.default_on_error or f.skip_invalid_items
    else:
        yield from ((n, False) for n in type_refs(f.type))
