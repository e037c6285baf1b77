"""Where the comparison puts what it finds: each change with its severity, subject and methods.

A change's severity comes from its rule and from where it sits (`Place`): which way that thing
flows and which methods carry it. Description changes are only counted.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import Method, is_unstable
from .match import Pairs
from .model import Change
from .reach import Flow, method_flows, routes_of
from .revision import Revision
from .rules import ORDER
from .severity import assess


@dataclass(frozen=True)
class Place:
    """How a changed thing flows, the methods carrying it, and whether it is a method or a type."""

    flows: frozenset[Flow]
    affects: frozenset[str]
    scope: str  # "method" | "type"
    names: frozenset[Flow] = frozenset()  # ways it flows only in methods one revision lacks
    forgiven: tuple[bool, bool] = (False, False)  # old / new receivers default a bad value
    moved: tuple[frozenset[Flow], frozenset[Flow]] = (frozenset(), frozenset())
    # ^ a method's ways only the old / only the new revision has: their old senders / old receivers


class Emitter:
    def __init__(self, old: Revision, new: Revision, pairs: Pairs) -> None:
        self.old, self.new, self.pairs = old, new, pairs
        self.changes: list[Change] = []
        self.descriptions = 0
        self.common_routes = routes_of(old.package) & routes_of(new.package)

    def emit(
        self, rule: str, subject: str, detail: str, place: Place, old_subject: str | None = None
    ) -> None:
        self.changes.append(
            Change(
                rule=rule,
                subject=subject,
                detail=detail,
                severity=assess(rule, place.flows, place.names, place.forgiven, place.moved),
                affects=tuple(sorted(place.affects)),
                old_subject=subject if old_subject is None else old_subject,
                scope=place.scope,
            )
        )

    def sorted_changes(self) -> tuple[Change, ...]:
        """Methods first, then types; by method or type, subject, rule (rules.py order), detail."""
        return tuple(sorted(self.changes, key=_order))

    def described(self, old_doc: str, new_doc: str) -> None:
        """Count a description change (a change of the UNSTABLE mark is reported as such)."""
        if old_doc != new_doc and is_unstable(old_doc) == is_unstable(new_doc):
            self.descriptions += 1

    def stability(
        self, old_doc: str, new_doc: str, subject: str, place: Place, old_subject: str
    ) -> None:
        was, now = is_unstable(old_doc), is_unstable(new_doc)
        if was and not now:
            self.emit("became-stable", subject, "no longer marked UNSTABLE", place, old_subject)
        elif now and not was:
            self.emit("became-unstable", subject, "marked UNSTABLE", place, old_subject)

    def at_defs(self, old_name: str | None, new_name: str | None) -> Place:
        """A def of either revision (or a pair): every way it flows in the messages both revisions
        have, a method's params or result of the same kind from the same sender to the same
        receiver (only those carry it from a peer of one to a peer of the other); every other way
        it flows (a method one revision lacks, or whose side or kind changed: no exchange carries
        it there, the method's own change says what breaks; only the generated names change);
        and every method carrying it."""
        flows: set[Flow] = set()
        names: set[Flow] = set()
        affects: set[str] = set()
        for rev, name in ((self.old, old_name), (self.new, new_name)):
            if name is not None:
                flows |= rev.reach.flows_through(name, self.common_routes)
                names |= rev.reach.flows_of(name)
                affects |= rev.reach.methods_of(name)
        return Place(frozenset(flows), frozenset(affects), "type", frozenset(names - flows))

    def at_method(self, old: Method | None, new: Method | None) -> Place:
        """A method flows from its caller to the side that receives it."""
        methods = [m for m in (old, new) if m is not None]
        flows = frozenset().union(*(method_flows(m)[0] for m in methods))
        return Place(flows, frozenset({methods[0].wire}), "method")

    def at_moved_method(self, old: Method, new: Method) -> Place:
        """A method now received by another side: the ways its calls flow in the old revision
        only (their old senders' calls now meet "method not found"; their receivers' handlers are
        just never called, as for a removed method) and in the new one only (their old receivers
        meet calls they do not take). A way both revisions have is unchanged."""
        before, after = method_flows(old)[0], method_flows(new)[0]
        return Place(
            frozenset(), frozenset({old.wire}), "method", moved=(before - after, after - before)
        )


def _order(c: Change) -> tuple[int, str, str, int, str]:
    root = c.subject if c.scope == "method" else c.subject.split(".")[0].split("[")[0]
    return (0 if c.scope == "method" else 1, root, c.subject, ORDER[c.rule], c.detail)
