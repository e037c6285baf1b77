"""Whether every use of a def forgives a bad value of it: the receivers then never reject it.

A def is forgiven in a revision when every use of it forgives a bad value: the type of a field that
replaces a bad value by its default (`x-deserialize-default-on-error`), the items of a list that
skips a bad item (`x-deserialize-skip-invalid-items`), possibly nullable, or any use inside a def
that is itself forgiven (a bad value there makes its holder bad, and the holder is dropped where it
is used). A value of it that the receiver cannot read is then dropped, not refused. A def used as
a method's params or result, or anywhere else in a def that is not forgiven (a union's variant, an
alias, a base, a plain field), is not.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..ir import AliasDef, Field, ListOf, ObjectDef, Ref, TypeExpr, UnionDef, without_null
from .reach import type_refs
from .revision import Revision

Use = tuple[str, bool, str | None]  # the def used, whether the use forgives, the def using it


def forgiven(rev: Revision, name: str) -> bool:
    key = rev.schema.sha256  # the same bytes build the same defs
    if key not in _FORGIVEN:
        _FORGIVEN[key] = _forgiven_defs(rev)
    return name in _FORGIVEN[key]


_FORGIVEN: dict[str, frozenset[str]] = {}


def _forgiven_defs(rev: Revision) -> frozenset[str]:
    """The largest set of used defs each use of which forgives or sits in a def of the set (a def
    used only by itself and by forgiving uses is forgiven)."""
    uses = list(_uses(rev))
    kept = {name for name, _, _ in uses}
    changed = True
    while changed:
        changed = False
        for name, ok, holder in uses:
            if name in kept and not ok and (holder is None or holder not in kept):
                kept.discard(name)
                changed = True
    return frozenset(kept)


def _uses(rev: Revision) -> Iterator[Use]:
    """Every use of a def: (its name, whether that use forgives a bad value, the def using it;
    None for a method)."""
    for m in rev.methods:
        yield from ((n, False, None) for n in (m.params, m.result) if n is not None)
    for d in rev.defs.values():
        if isinstance(d, ObjectDef):
            if d.base:
                yield d.base, False, d.name
            for f in d.fields:
                yield from ((n, ok, d.name) for n, ok in _field_uses(f))
        elif isinstance(d, UnionDef):
            yield from ((v.type, False, d.name) for v in d.variants)
        elif isinstance(d, AliasDef):
            yield from ((n, False, d.name) for n in type_refs(d.type))


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
