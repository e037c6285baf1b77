"""Methods compared by wire name and kind: added, removed, moved to the other side, request <->
notification, params or result replaced by an unrelated type, UNSTABLE <-> stable."""

from __future__ import annotations

import functools
from collections.abc import Iterable

from ..ir import ROLES, Method
from .emitter import Emitter


def compare_methods(out: Emitter) -> None:
    olds, news = _by_wire(out.old.methods), _by_wire(out.new.methods)
    for wire in sorted(olds.keys() | news.keys()):
        a, b = olds.get(wire, {}), news.get(wire, {})
        if len(a) == 1 and len(b) == 1 and a.keys() != b.keys():
            (kind_a, ma), (kind_b, mb) = next(iter(a.items())), next(iter(b.items()))
            out.emit("method-kind-changed", wire, f"{kind_a} → {kind_b}", out.at_method(ma, mb))
            _compare(out, ma, mb, wire)
            continue
        both_kinds = len(a) > 1 or len(b) > 1  # mcp/message is a request and a notification
        subject = functools.partial(_subject, wire, both_kinds)
        for kind in sorted(a.keys() - b.keys()):
            out.emit(
                "method-removed",
                subject(kind),
                _describe(a[kind], "removed"),
                out.at_method(a[kind], None),
            )
        for kind in sorted(b.keys() - a.keys()):
            out.emit(
                "method-added",
                subject(kind),
                _describe(b[kind], "new"),
                out.at_method(None, b[kind]),
            )
        for kind in sorted(a.keys() & b.keys()):
            _compare(out, a[kind], b[kind], subject(kind))


def _subject(wire: str, both_kinds: bool, kind: str) -> str:
    """A method named in a finding: by its kind too where the wire name has both kinds."""
    return f"{wire} ({kind})" if both_kinds else wire


def _compare(out: Emitter, a: Method, b: Method, subject: str) -> None:
    place = out.at_method(a, b)
    if a.side != b.side:
        out.emit(
            "method-side-changed",
            subject,
            f"received by {_receiver(a.side)} → by {_receiver(b.side)}",
            out.at_moved_method(a, b),
        )
    if out.pairs.get(a.params) != b.params:
        out.emit("method-params-changed", subject, f"params {a.params} → {b.params}", place)
    if a.result and b.result and out.pairs.get(a.result) != b.result:
        out.emit("method-result-changed", subject, f"result {a.result} → {b.result}", place)
    out.stability(a.doc, b.doc, subject, place, subject)


def _by_wire(methods: Iterable[Method]) -> dict[str, dict[str, Method]]:
    out: dict[str, dict[str, Method]] = {}
    for m in methods:
        out.setdefault(m.wire, {})[m.kind] = m
    return out


def _describe(m: Method, what: str) -> str:
    note = " (UNSTABLE)" if m.unstable else ""
    return f"{what} {m.kind} received by {_receiver(m.side)}{note}"


def _receiver(side: str) -> str:
    if side in ROLES:
        return f"the {side}"  # a proxy's methods are judged for both roles (see reach.py)
    return f"either side (x-side {side!r})"
