"""The text output: for a terminal (coloured unless NO_COLOR is set) or a log (plain)."""

from __future__ import annotations

from .model import LEVELS, ROLES, Change, Level, Report
from .severity import Gate
from .summary import counts, groups

_COLOURS = {
    Level.BREAKING: "1;31",
    Level.WARNING: "33",
    Level.PYTHON_API: "36",
    Level.COMPATIBLE: "2",
}
_WIDTH = max(len(level.value) for level in LEVELS)


class _Paint:
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled

    def __call__(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.enabled else text

    def level(self, level: Level) -> str:
        return self(level.value.ljust(_WIDTH), _COLOURS[level])


def render_text(report: Report, gate: Gate, colour: bool = False) -> str:
    paint = _Paint(colour)
    lines = [f"acpgen diff {report.old} → {report.new}"]
    lines += _summary(report, gate)
    section = None
    for group in groups(report.changes):
        if group.scope != section:
            section = group.scope
            lines += ["", paint("Methods" if section == "method" else "Types", "1")]
        affects = (
            f"  (affects {', '.join(group.affects)})"
            if group.affects and group.scope == "type"
            else ""
        )
        lines.append(f"  {paint(group.name, '1')}{affects}")
        lines += [f"    {_line(c, paint)}" for c in group.changes]
    if report.python_api:
        lines += ["", paint("Python API (names of the generated package renamed or removed)", "1")]
        lines += [f"  {a.line.replace('`', '')}" for a in report.python_api]
    if report.stale:
        lines += ["", paint("Stale accept entries (they match no change)", "1")]
        lines += [f"  {s.rule} {s.subject} ({s.reason})" for s in report.stale]
    return "\n".join(lines) + "\n"


def _summary(report: Report, gate: Gate) -> list[str]:
    if not report.changes:
        described = (
            f" ({report.descriptions_changed} description changes not listed)"
            if report.descriptions_changed
            else ""
        )
        return [f"no changes{described}"]
    table = counts(report.changes)
    lines = [
        f"{len(report.changes)} changes, {report.descriptions_changed} description changes not"
        " listed"
    ]
    lines.append("          " + "".join(level.value.rjust(12) for level in LEVELS))
    lines += [
        f"  {role:<8}" + "".join(str(table[role][level]).rjust(12) for level in LEVELS)
        for role in ROLES
    ]
    accepted = sum(c.accepted is not None for c in report.changes)
    if accepted:
        lines.append(f"{accepted} accepted")
    if gate.fail_on != "none":
        lines.append(
            f"{len(gate.failing(report.changes))} failing (--fail-on {gate.fail_on}, --role"
            f" {gate.role})"
        )
    return lines


def _line(c: Change, paint: _Paint) -> str:
    accepted = paint(f"  [accepted: {c.accepted}]", "2") if c.accepted is not None else ""
    return (
        f"agent {paint.level(c.severity.agent)}  client {paint.level(c.severity.client)} "
        f" {c.rule:<26} {c.subject}: {c.detail}{accepted}"
    )
