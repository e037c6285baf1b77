"""The markdown output, ready to paste into a pull request: who must act first, then every change
grouped by method and type."""

from __future__ import annotations

from .model import LEVELS, ROLES, Change, Level, Report
from .severity import Gate
from .summary import Group, counts, groups, to_fix_batched

_SHOWN = 4  # subjects named in a batch of the same change


def render_markdown(report: Report, gate: Gate) -> str:
    lines = [f"### ACP schema changes: `{report.old}` → `{report.new}`", ""]
    if not report.changes:
        described = report.descriptions_changed
        lines.append(
            f"No changes listed; {described} changes only to descriptions."
            if described
            else "No changes."
        )
        return "\n".join(lines) + "\n"
    lines += _counts(report)
    if gate.fail_on != "none":
        failing = len(gate.failing(report.changes))
        lines += [
            (
                f"**{failing} change(s) fail the check** (`--fail-on {gate.fail_on} --role"
                f" {gate.role}`)."
            ),
            "",
        ]
    for role in ROLES:
        lines += _to_fix(report.changes, role)
    lines += python_api_section(report)
    lines += [
        f"<details><summary>All {len(report.changes)} changes, by method and type</summary>",
        "",
    ]
    for scope, title in (("method", "Methods"), ("type", "Types")):
        section = [g for g in groups(report.changes) if g.scope == scope]
        if section:
            lines += [f"#### {title}", ""]
            for group in section:
                lines += _group(group)
    lines += ["</details>", ""]
    if report.stale:
        lines += [
            "#### Stale accept entries",
            "",
            "These entries of the accept file match no change:",
            "",
        ]
        lines += [f"- `{s.rule}` `{s.subject}`: {_cell(s.reason)}" for s in report.stale]
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def python_api_section(report: Report) -> list[str]:
    """The names of the generated package that code using it must change: one line each."""
    lines = ["#### Python API", ""]
    if not report.python_api:
        none = "No class, handler or proxy method, attribute or enum member is renamed or removed."
        return lines + [none, ""]
    lines += [
        f"Code that uses the generated package must change these {len(report.python_api)} name(s)"
        " (renamed or removed when it is regenerated):",
        "",
    ]
    return lines + [f"- {a.line}" for a in report.python_api] + [""]


def _counts(report: Report) -> list[str]:
    table = counts(report.changes)
    lines = [
        "| | " + " | ".join(level.value for level in LEVELS) + " |",
        "|---|" + "---:|" * len(LEVELS),
    ]
    lines += [
        f"| **{role}s** | " + " | ".join(str(table[role][level]) for level in LEVELS) + " |"
        for role in ROLES
    ]
    accepted = sum(c.accepted is not None for c in report.changes)
    note = f", {accepted} of them accepted" if accepted else ""
    lines += [
        "",
        (
            f"{len(report.changes)} changes{note}; {report.descriptions_changed} changes only to"
            " descriptions are not listed."
        ),
        "",
    ]
    return lines


def _to_fix(changes: tuple[Change, ...], role: str) -> list[str]:
    batches = to_fix_batched(changes, role)
    lines = [f"#### What affects {role}s", ""]
    if not batches:
        return lines + [f"Nothing breaking and nothing to check for {role}s.", ""]
    for b in batches:
        if len(b.changes) == 1:
            c = b.changes[0]
            lines.append(
                f"- {_level(b.level)} `{c.subject}`: {_cell(c.detail)} (`{c.rule}`){_affects(c)}"
            )
        else:
            shown = ", ".join(f"`{c.subject}`" for c in b.changes[:_SHOWN])
            more = f" and {len(b.changes) - _SHOWN} more" if len(b.changes) > _SHOWN else ""
            lines.append(
                f"- {_level(b.level)} {len(b.changes)} × `{b.rule}`: {_cell(b.detail)} —"
                f" {shown}{more}"
            )
    return lines + [""]


def _group(group: Group) -> list[str]:
    carried = ""
    if group.scope == "type" and group.affects:
        carried = " — carried by " + ", ".join(f"`{m}`" for m in group.affects)
    lines = [f"**`{group.name}`**{carried}", ""]
    lines += ["| subject | change | agent | client | detail |", "|---|---|---|---|---|"]
    for c in group.changes:
        accepted = f" _(accepted: {_cell(c.accepted)})_" if c.accepted is not None else ""
        lines.append(
            f"| `{c.subject}` | `{c.rule}` | {_level(c.severity.agent)} |"
            f" {_level(c.severity.client)} | {_cell(c.detail)}{accepted} |"
        )
    return lines + [""]


def _affects(c: Change) -> str:
    if c.scope == "method" or not c.affects:
        return ""
    return " — " + ", ".join(f"`{m}`" for m in c.affects)


def _level(level: Level) -> str:
    return f"**{level.value}**" if level is Level.BREAKING else level.value


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
