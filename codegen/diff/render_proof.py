"""The proof's part of each output format: exchanges per change, one failing exchange per breaking
verdict, and every disagreement (a bug in acpgen: the verdict and the exchanges disagree)."""

from __future__ import annotations

from typing import Any

from .model import ROLES, Level
from .prove import ChangeProof, Exchange, Proof

_SHOWN = 300  # characters of a message shown


def summary(proof: Proof) -> str:
    n, tried = len(proof.changes), proof.exchanges
    found = len(proof.disagreements)
    verdict = (
        "every verdict confirmed"
        if not found
        else f"{found} verdict(s) contradicted: a bug in acpgen's diff rules or generator"
    )
    if proof.masked:
        verdict += (
            f" ({len(proof.masked)} breaking verdict(s) masked: no exchange reached them past"
            " another change)"
        )
    if proof.unreachable:
        verdict += (
            f" ({len(proof.unreachable)} breaking verdict(s) unreachable: the way they break no"
            " longer flows, so no exchange can show it)"
        )
    if proof.capped:
        verdict += (
            f" ({len(proof.capped)} verdict(s) not judged: a bound of the proof was reached,"
            " see below)"
        )
    return (
        f"{tried} exchanges between the two revisions' generated packages, for {n} changes:"
        f" {verdict}"
    )


def text_lines(proof: Proof) -> list[str]:
    lines = ["", "Proof", f"  {summary(proof)}"]
    for c, problem in proof.disagreements:
        lines.append(f"  DISAGREEMENT {c.rule} {c.subject}: {problem}")
    for c, note in proof.masked:
        lines.append(f"  masked {c.rule} {c.subject}: {note}")
    for c, note in proof.unreachable:
        lines.append(f"  unreachable {c.rule} {c.subject}: {note}")
    for c, note in proof.capped:
        lines.append(f"  capped {c.rule} {c.subject}: {note}")
    lines.append("  exchanges per change (failing for agents/clients):")
    for p in proof.changes:
        counts = "/".join(str(len(p.failing(role))) for role in ROLES)
        lines.append(
            f"  {len(p.exchanges):>5} ({counts:>5})  {p.change.rule:<26} {p.change.subject}"
        )
        for role in ROLES:
            if p.change.severity.of(role) is Level.BREAKING and p.failing(role):
                x = p.failing(role)[0]
                lines.append(f"{'':>16}breaks {role}s: {_exchange(x)}")
    return lines


def markdown_lines(proof: Proof) -> list[str]:
    lines = ["#### Proof", "", summary(proof).capitalize() + ".", ""]
    if proof.disagreements:
        lines += [
            f"- **disagreement** `{c.rule}` `{c.subject}`: {_cell(d)}"
            for c, d in proof.disagreements
        ]
        lines.append("")
    if proof.masked:
        lines += [f"- masked `{c.rule}` `{c.subject}`: {_cell(m)}" for c, m in proof.masked]
        lines.append("")
    if proof.unreachable:
        lines += [
            f"- unreachable `{c.rule}` `{c.subject}`: {_cell(u)}" for c, u in proof.unreachable
        ]
        lines.append("")
    if proof.capped:
        lines += [f"- capped `{c.rule}` `{c.subject}`: {_cell(n)}" for c, n in proof.capped]
        lines.append("")
    breaking = [
        p for p in proof.changes if any(p.change.severity.of(r) is Level.BREAKING for r in ROLES)
    ]
    if breaking:
        lines += ["One failing exchange per breaking verdict:", ""]
        for p in breaking:
            lines += _breaking(p)
        lines.append("")
    lines += [
        "<details><summary>Exchanges tried per change</summary>",
        "",
        "| subject | change | exchanges | failing for agents | failing for clients |",
        "|---|---|---:|---:|---:|",
    ]
    lines += [
        f"| `{p.change.subject}` | `{p.change.rule}` | {len(p.exchanges)} |"
        f" {len(p.failing('agent'))} | {len(p.failing('client'))} |"
        for p in proof.changes
    ]
    return lines + ["", "</details>", ""]


def _breaking(p: ChangeProof) -> list[str]:
    lines = []
    for role in ROLES:
        failing = p.failing(role)
        if p.change.severity.of(role) is Level.BREAKING and failing:
            x = failing[0]
            lines.append(
                f"- `{p.change.subject}` (`{p.change.rule}`) breaks {role}s: {x.direction},"
                f" `{x.method}` {x.part} from the {x.sender} to the {x.receiver}:"
                f" `{_cell(_short(x.message))}` → {_cell(x.outcome.error)}"
            )
    return lines


def json_value(proof: Proof) -> dict[str, Any]:
    return {
        "exchanges": proof.exchanges,
        "confirmed": not proof.disagreements,
        "disagreements": [
            {"rule": c.rule, "subject": c.subject, "problem": d} for c, d in proof.disagreements
        ],
        "masked": [{"rule": c.rule, "subject": c.subject, "note": m} for c, m in proof.masked],
        "unreachable": [
            {"rule": c.rule, "subject": c.subject, "note": u} for c, u in proof.unreachable
        ],
        "capped": [{"rule": c.rule, "subject": c.subject, "note": n} for c, n in proof.capped],
        "changes": [_change_json(p) for p in proof.changes],
    }


def _change_json(p: ChangeProof) -> dict[str, Any]:
    return {
        "rule": p.change.rule,
        "subject": p.change.subject,
        "exchanges": len(p.exchanges),
        "failing": {role: len(p.failing(role)) for role in ROLES},
        "example": {role: _exchange_json(p.failing(role)[0]) for role in ROLES if p.failing(role)},
    }


def _exchange_json(x: Exchange) -> dict[str, Any]:
    return {
        "direction": x.direction,
        "method": x.method,
        "part": x.part,
        "sender": x.sender,
        "receiver": x.receiver,
        "message": x.message,
        "error": x.outcome.error,
    }


def _exchange(x: Exchange) -> str:
    return (
        f"{x.direction} {x.method} {x.part} {x.sender}→{x.receiver}: {_short(x.message)}"
        f" → {x.outcome.error}"
    )


def _short(message: str) -> str:
    return message if len(message) <= _SHOWN else message[:_SHOWN] + "…"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ").replace("`", "'")
