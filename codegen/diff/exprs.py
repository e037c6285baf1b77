"""Type expressions compared: the values a field, an alias or a list item accepts, before/after.

References to paired defs are equal (what changed inside them is reported on them); aliases are
seen through (`SessionId` and `str` are the same on the wire); a union of consts is an enum.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..ir import (
    ANY,
    NULL,
    AliasDef,
    Checked,
    Const,
    EnumDef,
    ListOf,
    MapOf,
    Prim,
    Ref,
    TypeExpr,
    UnionOf,
    is_nullable,
    without_null,
)
from .revision import Revision

Span = tuple[float | int | None, float | int | None]

INT_FORMATS: dict[str, Span] = {
    f"{sign}int{bits}": (0, 2**bits - 1) if sign else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    for sign in ("", "u")
    for bits in (8, 16, 32, 64)
}
_JSON_KIND = {str: "str", int: "int", float: "float", bool: "bool"}


@dataclass(frozen=True)
class Finding:
    """A change of a type expression; `member` extends the subject (`[value]` of an inline enum)."""

    rule: str
    detail: str
    member: str = ""


@dataclass(frozen=True)
class _Enum:
    values: frozenset[Any]
    open: bool


class Exprs:
    def __init__(self, old: Revision, new: Revision, pairs: Mapping[str, str]) -> None:
        self.old, self.new, self.pairs = old, new, pairs

    # ------------------------------------------------------------ equality

    def same(self, a: TypeExpr, b: TypeExpr) -> bool:
        """Equal on the wire: paired refs are equal, aliases are what they name."""
        if isinstance(a, Ref) and isinstance(b, Ref) and self.pairs.get(a.name) == b.name:
            return True
        ea, eb = _expand(a, self.old), _expand(b, self.new)
        if ea != a or eb != b:
            return self.same(ea, eb)
        if isinstance(a, ListOf) and isinstance(b, ListOf):
            return (a.min_items, a.max_items) == (b.min_items, b.max_items) and self.same(
                a.item, b.item
            )
        if isinstance(a, MapOf) and isinstance(b, MapOf):
            return self.same(a.value, b.value)
        if isinstance(a, UnionOf) and isinstance(b, UnionOf):
            return self._within(a.options, b.options, self.same) and self._within(
                b.options, a.options, self._same_back
            )
        if isinstance(a, Checked) and isinstance(b, Checked):  # general forms: their schema nodes
            return bool(self.old.schema.node(a.pointer) == self.new.schema.node(b.pointer))
        if isinstance(a, Ref) != isinstance(b, Ref):  # an enum def against an inline enum
            values_a = _enum_of(a, self.old)
            return values_a is not None and values_a == _enum_of(b, self.new)
        return a == b

    def values_of(self, t: TypeExpr, old: bool) -> tuple[frozenset[Any], bool] | None:
        """The values of an enum-like type of the old or new revision, and whether it takes
        others too (an open enum, a plain string); None when it is not enum-like."""
        e = _enum_of(t, self.old if old else self.new)
        return None if e is None else (e.values, e.open)

    def _same_back(self, b: TypeExpr, a: TypeExpr) -> bool:
        return self.same(a, b)

    def _covers(self, wide: TypeExpr, narrow: TypeExpr, wide_is_new: bool) -> bool:
        """Every value of `narrow` is a value of `wide`."""
        if wide == ANY or (self.same(narrow, wide) if wide_is_new else self.same(wide, narrow)):
            return True
        if (
            isinstance(wide, Prim)
            and wide.kind == "float"
            and isinstance(narrow, Prim)
            and narrow.kind == "int"
        ):
            return True
        if isinstance(wide, Prim) and isinstance(narrow, Const):
            return _JSON_KIND.get(type(narrow.value)) == wide.kind and wide == Prim(wide.kind)
        return False

    @staticmethod
    def _within(
        xs: tuple[TypeExpr, ...], ys: tuple[TypeExpr, ...], eq: Callable[[TypeExpr, TypeExpr], bool]
    ) -> bool:
        return all(any(eq(x, y) for y in ys) for x in xs)

    # ------------------------------------------------------------ comparison

    def compare(self, a: TypeExpr, b: TypeExpr, where: str = "") -> Iterator[Finding]:
        if self.same(a, b):
            return
        a, b = _expand(a, self.old), _expand(b, self.new)
        shown = (show(a), show(b))
        if _nullable(a) != _nullable(b):
            if _nullable(b):
                yield Finding("became-nullable", _say(where, "may now be null"))
            else:
                yield Finding("became-non-nullable", _say(where, "may no longer be null"))
        a, b = without_null(a), without_null(b)
        if self.same(a, b):
            return
        ea, eb = _enum_of(a, self.old), _enum_of(b, self.new)
        if (
            ea is not None
            and eb is not None
            and (ea.values or eb.values)
            and not _two_consts(ea, eb)
        ):
            yield from _enum_values(ea, eb, where)
        elif isinstance(a, Prim) and isinstance(b, Prim) and a.kind == b.kind:
            yield from _constraints(a, b, where)
        elif isinstance(a, ListOf) and isinstance(b, ListOf):
            yield from _span_change(
                "item count", (a.min_items, a.max_items), (b.min_items, b.max_items), where
            )
            yield from self.compare(a.item, b.item, _join(where, "items"))
        elif isinstance(a, MapOf) and isinstance(b, MapOf):
            yield from self.compare(a.value, b.value, _join(where, "values"))
        else:
            yield from self._options(a, b, where, shown)

    def _options(
        self, a: TypeExpr, b: TypeExpr, where: str, shown: tuple[str, str]
    ) -> Iterator[Finding]:
        olds, news = _options(a), _options(b)
        gained = [y for y in news if not any(self._covers(x, y, wide_is_new=False) for x in olds)]
        lost = [x for x in olds if not any(self._covers(y, x, wide_is_new=True) for y in news)]
        pairs = self._alike(lost, gained)
        if pairs:  # each option changed only in its constraints: say how, option by option
            for x, y in pairs:
                yield from self.compare(x, y, _join(where, f"option {show(y)}"))
            return
        yield self._widened_or_narrowed(gained, lost, where, shown)

    def _alike(
        self, lost: list[TypeExpr], gained: list[TypeExpr]
    ) -> list[tuple[TypeExpr, TypeExpr]]:
        """The options lost and gained paired one to one, each pair the same kind of value
        differing only in its constraints (a list of the same items with other item counts, a
        number or string with another range, length or pattern); [] when they do not pair."""
        if len(lost) != len(gained) or not lost:
            return []
        pairs = []
        for x in lost:
            alike = [y for y in gained if self._constrained_alike(x, y)]
            if len(alike) != 1 or sum(self._constrained_alike(z, alike[0]) for z in lost) != 1:
                return []
            pairs.append((x, alike[0]))
        return pairs

    def _constrained_alike(self, x: TypeExpr, y: TypeExpr) -> bool:
        if isinstance(x, ListOf) and isinstance(y, ListOf):
            return self.same(x.item, y.item)
        return isinstance(x, Prim) and isinstance(y, Prim) and x.kind == y.kind

    def _widened_or_narrowed(
        self, gained: list[TypeExpr], lost: list[TypeExpr], where: str, shown: tuple[str, str]
    ) -> Finding:
        if not lost and gained:
            text = (
                f"now any JSON value (was {shown[0]})"
                if ANY in gained
                else f"now also accepts {_show_all(gained)}"
            )
            return Finding("type-widened", _say(where, text))
        if not gained and lost:
            text = (
                f"now only {shown[1]} (was any JSON value)"
                if ANY in lost
                else f"no longer accepts {_show_all(lost)}"
            )
            return Finding("type-narrowed", _say(where, text))
        return Finding("type-changed", _say(where, f"{shown[0]} → {shown[1]}"))


# ---------------------------------------------------------------- helpers


def _expand(t: TypeExpr, rev: Revision) -> TypeExpr:
    """An alias is what it names."""
    for _ in range(20):
        d = rev.defs.get(t.name) if isinstance(t, Ref) else None
        if not isinstance(d, AliasDef):
            break
        t = d.type
    return _normal(t)


def _normal(t: TypeExpr) -> TypeExpr:
    """Null is null: `type: [string, null]` beside a `format` gives the IR a null carrying it."""
    if isinstance(t, Prim) and t.kind == "null":
        return NULL
    if isinstance(t, UnionOf):
        return UnionOf(tuple(dict.fromkeys(_normal(o) for o in t.options)))
    if isinstance(t, ListOf):
        return ListOf(_normal(t.item), t.min_items, t.max_items)
    if isinstance(t, MapOf):
        return MapOf(_normal(t.value))
    return t


def _options(t: TypeExpr) -> tuple[TypeExpr, ...]:
    return t.options if isinstance(t, UnionOf) else (t,)


def _nullable(t: TypeExpr) -> bool:
    return t == ANY or is_nullable(t)


def _enum_of(t: TypeExpr, rev: Revision) -> _Enum | None:
    """The values of an enum def, of a const or a union of consts (with at most one plain string or
    integer catch-all, which makes it open); a plain string or integer is an open enum of no values.
    """
    d = rev.defs.get(t.name) if isinstance(t, Ref) else None
    if isinstance(d, EnumDef):
        return _Enum(frozenset(m.value for m in d.members), d.open)
    if isinstance(t, Prim) and t.kind in ("str", "int") and t == Prim(t.kind, format=t.format):
        return _Enum(frozenset(), True)
    options = _options(t)
    consts = [o.value for o in options if isinstance(o, Const)]
    others = [o for o in options if not isinstance(o, Const)]
    if not consts or len(others) > 1 or any(o not in (Prim("str"), Prim("int")) for o in others):
        return None
    return _Enum(frozenset(consts), bool(others))


def _two_consts(a: _Enum, b: _Enum) -> bool:
    """One const against another reads better as a type change than as a value added and removed."""
    return len(a.values) == len(b.values) == 1 and not a.open and not b.open


def _enum_values(a: _Enum, b: _Enum, where: str) -> Iterator[Finding]:
    for value in sorted(b.values - a.values, key=_text):
        rule = "open-enum-value-added" if a.open else "enum-value-added"
        yield Finding(rule, _say(where, f"new value {json.dumps(value)}"), f"[{_text(value)}]")
    for value in sorted(a.values - b.values, key=_text):
        rule = "open-enum-value-removed" if b.open else "enum-value-removed"
        yield Finding(rule, _say(where, f"value {json.dumps(value)} removed"), f"[{_text(value)}]")
    if a.open != b.open:
        yield Finding(
            "enum-opened" if b.open else "enum-closed",
            _say(where, "now accepts other values" if b.open else "no longer accepts other values"),
        )


def _constraints(a: Prim, b: Prim, where: str) -> Iterator[Finding]:
    if a.kind in ("int", "float"):
        ra, rb = _range(a), _range(b)
        names = f" ({a.format or a.kind} → {b.format or b.kind})" if a.format != b.format else ""
        yield from _span_change("range", ra, rb, where, names)
        if a.kind == "float" or (a.format not in INT_FORMATS and b.format not in INT_FORMATS):
            yield from _text_change("format", a.format, b.format, where)
    if a.kind == "str":
        yield from _span_change(
            "length", (a.min_length, a.max_length), (b.min_length, b.max_length), where
        )
        yield from _text_change("pattern", a.pattern, b.pattern, where)
        yield from _text_change("format", a.format, b.format, where)


def _range(p: Prim) -> Span:
    lo, hi = INT_FORMATS.get(p.format or "", (None, None)) if p.kind == "int" else (None, None)
    if p.minimum is not None:
        lo = p.minimum if lo is None else max(lo, p.minimum)
    if p.maximum is not None:
        hi = p.maximum if hi is None else min(hi, p.maximum)
    return lo, hi


def _contains(outer: Span, inner: Span) -> bool:
    lo_ok = outer[0] is None or (inner[0] is not None and inner[0] >= outer[0])
    hi_ok = outer[1] is None or (inner[1] is not None and inner[1] <= outer[1])
    return lo_ok and hi_ok


def _span_change(what: str, a: Span, b: Span, where: str, note: str = "") -> Iterator[Finding]:
    if a == b:
        return
    rule = (
        "constraint-loosened"
        if _contains(b, a)
        else "constraint-tightened" if _contains(a, b) else "constraint-changed"
    )
    yield Finding(rule, _say(where, f"{what} {_span(a)} → {_span(b)}{note}"))


def _text_change(what: str, a: str | None, b: str | None, where: str) -> Iterator[Finding]:
    if a == b:
        return
    if a is None:
        yield Finding("constraint-tightened", _say(where, f"{what} {b!r} added"))
    elif b is None:
        yield Finding("constraint-loosened", _say(where, f"{what} {a!r} dropped"))
    else:
        yield Finding("constraint-changed", _say(where, f"{what} {a!r} → {b!r}"))


def _span(s: Span) -> str:
    if s == (None, None):
        return "unbounded"
    return f"{'' if s[0] is None else s[0]}..{'' if s[1] is None else s[1]}"


def show(t: TypeExpr) -> str:
    """A type expression as a reader expects it: `list[ContentBlock] | null`."""
    if isinstance(t, Prim):
        return t.kind
    if isinstance(t, Ref):
        return t.name
    if isinstance(t, ListOf):
        return f"list[{show(t.item)}]"
    if isinstance(t, MapOf):
        return f"dict[str, {show(t.value)}]"
    if isinstance(t, Const):
        return json.dumps(t.value)
    if isinstance(t, Checked):
        return f"any JSON checked against {t.pointer}"
    return " | ".join(show(o) for o in t.options)


def _show_all(ts: list[TypeExpr]) -> str:
    return " | ".join(show(t) for t in ts)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value)


def _join(where: str, part: str) -> str:
    return f"{where} {part}" if where else part


def _say(where: str, text: str) -> str:
    return f"{where}: {text}" if where else text
