"""`acpgen diff --prove`: every verdict of a diff checked against real exchanges.

Both revisions' packages are generated (peers.py). For each listed change, values are drawn from
each revision's schema with the def the change is about narrowed so that they carry it
(target.py), inside the params or result of the methods that carry it. Each is sent from the side
that sends it under that revision to the other revision's decoder of the side that receives it:

- old → new: an old sender's message to a new receiver. If it is rejected, the old sender broke.
- new → old: a new sender's message to an old receiver. If the old receiver cannot take it, the
  old receiver broke. (A call of a method the old receiver never had is answered "method not
  found", as any unknown call is: that is the protocol working, not the old receiver breaking.)

A rejection counts against a change only where the receiver's error names the place of the change
(the field, the def, the variant), or, for a method change, the call itself; a rejection elsewhere
is another change's. Then, role by role: a change reported breaking for a role must have at least
one exchange that fails for it, and a change reported compatible (or python-api: the wire is
unchanged) must have none. A warning is a claim about strict receivers or about meaning, which a
decoder cannot settle: its exchanges are counted and shown, not judged. Any other outcome is a
disagreement: a bug in the diff's rules or in the generator.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..instances import MAX_VALUES, instances_with_refs
from ..ir import Method
from .blame import Blame, Where
from .fill import fill
from .model import ROLES, Change, Level, Report
from .peers import Outcome, Peer, deliver, peers, wire_message
from .prune import prune
from .reach import method_flows
from .revision import Revision
from .target import Target, beyond, narrowed, target
from .toward import closure, refs, toward

DRAWS = 3  # values drawn per carrier and side
SEARCH = 4  # more rounds of draws, at most, for a breaking verdict not confirmed yet
REPAIRS = 6  # rejections elsewhere pruned away from one drawn value, at most
CARRIERS = 2  # methods (params or result) a change is carried in, per side
MAX_EXCHANGES = 5_000  # per proof: the changes after it are listed as not tried
NAMES_ONLY = {"type-added", "type-removed", "type-shadows"}
# ^ a def's name coming or going: no message of the other revision holds it, and where it is used
#   the change is listed on its own (a field's type, a variant, a method's params)
_ASSERTED = {
    Level.BREAKING: "breaking",
    Level.COMPATIBLE: "compatible",
    Level.PYTHON_API: "python-api",
}


@dataclass(frozen=True)
class Exchange:
    """One message sent from a peer of one revision to a peer of the other, and what came of it."""

    direction: str  # "old→new" or "new→old"
    sender: str  # the role that sends it
    receiver: str
    method: str  # wire name
    part: str  # "params" or "result"
    message: str  # the JSON on the wire
    outcome: Outcome
    hits: bool  # failed, and the rejection is this change's (blame.py)
    explained: bool = True  # False: failed where no listed change is (a change the diff missed)
    masked_by: str = ""  # rejected first, beyond pruning, for another change (its rule and subject)
    kind: str = ""  # the method's kind: "request" or "notification"

    @property
    def old_role(self) -> str:
        """The role whose old implementation takes part: the sender, or the receiver."""
        return self.sender if self.direction == "old→new" else self.receiver


@dataclass(frozen=True)
class ChangeProof:
    change: Change
    exchanges: tuple[Exchange, ...]
    disagreements: tuple[str, ...]
    masked: tuple[str, ...] = ()  # breaking verdicts no exchange reached past another change
    unreachable: tuple[str, ...] = ()  # breaking verdicts no exchange can reach (`_gone`)
    capped: tuple[str, ...] = ()  # verdicts not judged: a bound of the proof was reached

    def failing(self, role: str) -> tuple[Exchange, ...]:
        """The exchanges that fail for a role at the place of the change."""
        return tuple(x for x in self.exchanges if x.hits and x.old_role == role)

    def masked_for(self, role: str) -> bool:
        """Whether the verdict for a role is breaking and no exchange reached it: masked by another
        change (`_masked`) or unreachable (`_gone`)."""
        return any(n.startswith(_about(role)) for n in self.masked + self.unreachable)


@dataclass(frozen=True)
class Proof:
    changes: tuple[ChangeProof, ...]

    @property
    def disagreements(self) -> tuple[tuple[Change, str], ...]:
        return tuple((p.change, d) for p in self.changes for d in p.disagreements)

    @property
    def exchanges(self) -> int:
        return sum(len(p.exchanges) for p in self.changes)

    @property
    def masked(self) -> tuple[tuple[Change, str], ...]:
        return tuple((p.change, m) for p in self.changes for m in p.masked)

    @property
    def unreachable(self) -> tuple[tuple[Change, str], ...]:
        return tuple((p.change, u) for p in self.changes for u in p.unreachable)

    @property
    def capped(self) -> tuple[tuple[Change, str], ...]:
        return tuple((p.change, c) for p in self.changes for c in p.capped)


def _about(role: str) -> str:
    return f"reported breaking for {role}s: "


def prove(report: Report, old: Revision, new: Revision, draws: int = DRAWS) -> Proof:
    """Check every change of `report` (a diff of `old` and `new`) against real exchanges."""
    with peers(old, new) as (old_peer, new_peer):
        sides = (
            _Side("old", old_peer, new_peer, Blame(report.changes, "old", old)),
            _Side("new", new_peer, old_peer, Blame(report.changes, "new", new)),
        )
        proofs: list[ChangeProof] = []
        for c in report.changes:
            tried = sum(len(p.exchanges) for p in proofs)
            if tried >= MAX_EXCHANGES:
                note = f"not tried: the proof's bound of {MAX_EXCHANGES} exchanges was reached"
                proofs.append(ChangeProof(c, (), (), capped=(note,)))
            else:
                proofs.append(_prove_change(c, sides, draws))
        return Proof(tuple(proofs))


@dataclass(frozen=True)
class _Side:
    """One direction: the revision that sends, its peer, the other peer, and its blame."""

    name: str  # "old" or "new": the revision that sends
    sender: Peer
    receiver: Peer
    blame: Blame


def _prove_change(change: Change, sides: tuple[_Side, _Side], draws: int) -> ChangeProof:
    """Draw rounds of exchanges; more rounds (new seeds) only while a breaking verdict still has
    no failing exchange: a breakage is searched for, a compatibility is tried as often as any."""
    proof = ChangeProof(change, (), ())
    stats: dict[str, Any] = {"capped": 0}
    for attempt in range(SEARCH + 1):
        more = tuple(x for side in sides for x in _exchanges(change, side, draws, attempt, stats))
        proof = ChangeProof(change, proof.exchanges + more, ())
        if not more or not _unconfirmed(proof):
            break
    masked = dict(_masked(proof))
    unreachable: dict[str, str] = {}
    for role in ROLES:
        gone = _gone(proof, role, sides[0].sender.revision, sides[1].sender.revision)
        if gone and _unconfirmed_for(proof, role):
            masked.pop(role, None)
            unreachable[role] = gone
    capped: dict[str, str] = {}
    if stats["capped"]:
        for role in ROLES:
            if _unconfirmed_for(proof, role) and role not in masked and role not in unreachable:
                capped[role] = (
                    f"{_about(role)}not judged: {stats['capped']} drawn value(s) were given up at"
                    f" the bound of {MAX_VALUES} values each"
                )
    skip = frozenset(masked) | frozenset(unreachable) | frozenset(capped)
    problems = tuple(_judge(proof, skip=skip))
    return ChangeProof(
        change,
        proof.exchanges,
        problems,
        tuple(masked.values()),
        tuple(unreachable.values()),
        tuple(capped.values()),
    )


def _masked(proof: ChangeProof) -> Iterator[tuple[str, str]]:
    """The roles for which a breaking verdict met no exchange that reached it: no exchange failed
    at the change, and some were rejected first, beyond pruning, for another change (a sibling
    required field that cannot be made up, the method itself gone the other way). Such a verdict
    is neither confirmed nor contradicted; it is listed as masked."""
    for role in ROLES:
        if proof.change.severity.of(role) is not Level.BREAKING or proof.failing(role):
            continue
        masked = [x for x in proof.exchanges if x.old_role == role and x.masked_by]
        if masked:
            yield role, (
                f"{_about(role)}masked, {len(masked)} exchange(s) rejected first"
                f" for {masked[0].masked_by}"
            )


def _unconfirmed_for(proof: ChangeProof, role: str) -> bool:
    return proof.change.severity.of(role) is Level.BREAKING and not proof.failing(role)


def _gone(proof: ChangeProof, role: str, old: Revision, new: Revision) -> str:
    """Why no exchange can reach a breaking verdict for a role, when that is so: a way the change
    flows in the old revision, with an old `role` in it, is gone from the new one (the method
    carrying it moved to the other side), and every exchange of the role that was rejected for
    another change was rejected on such a way. The old role would break where a message it sent
    or received no longer flows at all, an absence no exchange can show; what does still flow is
    tried, and must not contradict the verdict. "" when that is not so."""
    gone: dict[tuple[str, str, str, str, str], str] = {}
    for wire, kind, part in dict.fromkeys((x.method, x.kind, x.part) for x in proof.exchanges):
        for before in (m for m in old.methods if m.wire == wire and m.kind == kind):
            after = {
                f for m in new.methods if m.wire == wire and m.kind == kind for f in _roles(m, part)
            }
            for sender, receiver in _roles(before, part):
                if role in (sender, receiver) and (sender, receiver) not in after:
                    gone[wire, kind, part, sender, receiver] = (
                        f"{wire} ({kind}) {part} from {sender} to {receiver}"
                    )
    blocked = [x for x in proof.exchanges if x.old_role == role and x.masked_by]
    if not gone or any(
        (x.method, x.kind, x.part, x.sender, x.receiver) not in gone for x in blocked
    ):
        return ""
    return (
        f"{_about(role)}unreachable, {next(iter(gone.values()))} no longer"
        f" flows in the new revision (the method moved side), so no exchange can show an old"
        f" {role} break there; {sum(x.old_role == role for x in proof.exchanges)} exchange(s)"
        " of the ways that still flow were tried"
    )


def _unconfirmed(proof: ChangeProof) -> bool:
    return any(
        proof.change.severity.of(role) is Level.BREAKING and not proof.failing(role)
        for role in ROLES
    )


def _judge(proof: ChangeProof, skip: frozenset[str] = frozenset()) -> Iterator[str]:
    change = proof.change
    for role in ROLES:
        if role in skip:
            continue
        level = change.severity.of(role)
        failing = proof.failing(role)
        tried = sum(x.old_role == role for x in proof.exchanges)
        if level is Level.BREAKING and not failing:
            yield (
                f"reported breaking for {role}s, but none of the {tried} exchange(s) an old"
                f" {role} takes part in failed at {change.subject}"
            )
        elif level in _ASSERTED and level is not Level.BREAKING and failing:
            x = failing[0]
            yield (
                f"reported {_ASSERTED[level]} for {role}s, but {len(failing)} of {tried}"
                f" exchange(s) failed for them, e.g. {x.method} {x.part} {x.direction}:"
                f" {x.message} → {x.outcome.error}"
            )


# ---------------------------------------------------------------- drawing and sending


def _exchanges(
    change: Change, side: _Side, draws: int, attempt: int, stats: dict[str, Any]
) -> list[Exchange]:
    """The exchanges from peers of the revision `side.name` to peers of the other."""
    rev = side.sender.revision
    t = target(change, side.name)
    if change.rule in NAMES_ONLY:
        return []
    if t is not None and t.root not in rev.defs:
        return []  # the def is not in this revision (added or removed): its uses are changes too
    document = narrowed(rev, change, t, side.name) if t is not None else rev.schema.document
    documents = [document]  # the first that gives values holding the def is drawn from
    further = beyond(document, change, t, side.name, side.receiver.revision) if t else None
    if further is not None:
        documents.insert(0, further)
    if t is not None:
        documents = [toward(d, t.root) for d in documents]
    out: list[Exchange] = []
    carriers = [
        (m, part)
        for m, part in _carriers(change, rev, t, document)
        if _judged(change, side.name, _roles(m, part))
    ]
    for method, part in _covering(carriers):
        carrier = method.params if part == "params" else method.result
        assert carrier is not None
        seed = zlib.crc32(
            f"{change.rule} {change.subject} {side.name} {method.wire} {part} {attempt}".encode()
        )
        exercising: list[tuple[Any, dict[str, tuple[Where, ...]]]] = []
        for doc in documents:
            drawn = instances_with_refs(doc, carrier, count=draws, seed=seed, stats=stats)
            exercising = [
                (value, {name: tuple(ps) for name, ps in refs.items()})
                for value, refs in drawn
                if t is None or refs.get(t.root)
            ]  # values drawn without the def in them do not exercise the change
            if exercising:
                break
        for value, places in exercising[:draws]:
            for roles in _judged(change, side.name, _roles(method, part)):
                out.append(_send(change, side, t, _Drawn(method, part, value, places), roles))
    return out


@dataclass(frozen=True)
class _Drawn:
    """A value drawn for a method's params or result, and where each def's values are in it."""

    method: Method
    part: str
    value: Any
    places: dict[str, tuple[tuple[Any, ...], ...]]


def _judged(change: Change, side: str, flows: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The flows whose exchanges can confirm or contradict a verdict: those of a role (the sender
    from the old revision, the receiver in the old revision) whose level is not a warning."""
    return [
        f for f in flows if change.severity.of(f[0] if side == "old" else f[1]) is not Level.WARNING
    ]


def _covering(carriers: list[tuple[Method, str]]) -> list[tuple[Method, str]]:
    """The first CARRIERS carriers, and more where they leave a way the change flows untried."""
    kept: list[tuple[Method, str]] = []
    flows: set[tuple[str, str]] = set()
    for method, part in carriers:
        new_flows = set(_roles(method, part)) - flows
        if len(kept) < CARRIERS or new_flows:
            kept.append((method, part))
            flows |= new_flows
    return kept


def _send(
    change: Change, side: _Side, t: Target | None, drawn: _Drawn, roles: tuple[str, str]
) -> Exchange:
    """Send a drawn value; while the receiver rejects it for another change, prune that part."""
    method, part, value, places = drawn.method, drawn.part, drawn.value, drawn.places
    owners: tuple[Change, ...] = ()
    data, outcome = b"", Outcome()
    for _ in range(REPAIRS + 1):
        data = wire_message(method.wire, method.kind, part, value)
        outcome = deliver(side.receiver, roles[1], method.wire, method.kind, part, data)
        if side.name == "new" and outcome.unknown_method and not side.receiver.knows(method.wire):
            outcome = Outcome()  # "method not found" from a receiver that never had the method
        if outcome.ok:
            break
        where = None if outcome.unknown_method else outcome.where or ()
        claim = side.blame.owners(method.wire, where, places, value)
        owners = claim.changes
        if change in owners:
            break
        pruned = prune(value, claim.anchor, places, t.root if t is not None else "")
        if pruned is not None:
            value, places = pruned
            continue
        filled = fill(value, where, owners, _other(side.name), side.receiver.revision)
        if filled is None:
            break  # rejected where the change's own values are, or where nothing can go
        value = filled  # a field the receiver requires for another change, drawn from its schema
    direction = "old→new" if side.name == "old" else "new→old"
    return Exchange(
        direction,
        roles[0],
        roles[1],
        method.wire,
        part,
        data.decode("utf-8"),
        outcome,
        change in owners,
        outcome.ok or bool(owners),
        (
            ""
            if outcome.ok or change in owners
            else ", ".join(f"{c.rule} {c.subject}" for c in owners[:2])
        ),
        method.kind,
    )


def _other(side: str) -> str:
    return "new" if side == "old" else "old"


def _carriers(
    change: Change, rev: Revision, t: Target | None, document: dict[str, Any]
) -> list[tuple[Method, str]]:
    """The methods of the revision whose params or result carry the change, params first."""
    if t is None:
        wire, _, kind = change.subject.partition(" (")
        methods = [m for m in rev.methods if m.wire == wire and (not kind or kind[:-1] == m.kind)]
        parts = ["params", "result"] if change.rule == "method-result-changed" else ["params"]
        return [(m, p) for p in parts for m in methods if p == "params" or m.result]
    reach = _reach(rev) if t.root in rev.schema.defs else _reach_in(document, rev)
    found = [
        (m, part)
        for part in ("params", "result")
        for m in rev.methods
        if (m.params if part == "params" else m.result) is not None
        and t.root in reach.get(m.params if part == "params" else m.result or "", ())
    ]
    return sorted(found, key=lambda c: (c[1] != "params", c[0].wire, c[0].kind))


_REACH: dict[str, dict[str, frozenset[str]]] = {}


def _reach(rev: Revision) -> dict[str, frozenset[str]]:
    """For each method def of the revision, every def its values may hold (itself too)."""
    key = rev.schema.sha256
    if key not in _REACH:
        edges = {name: frozenset(refs(body)) for name, body in rev.schema.defs.items()}
        _REACH[key] = {name: closure(name, edges) for name in rev.method_defs()}
    return _REACH[key]


def _reach_in(document: dict[str, Any], rev: Revision) -> dict[str, frozenset[str]]:
    edges = {name: frozenset(refs(body)) for name, body in document.get("$defs", {}).items()}
    return {name: closure(name, edges) for name in rev.method_defs()}


def _roles(method: Method, part: str) -> list[tuple[str, str]]:
    """(sender, receiver) of a method's params or result; both ways for a method of no side."""
    params_flows, result_flows = method_flows(method)
    return sorted(params_flows if part == "params" else result_flows)
