"""`acpgen diff --list-rules`: each rule, its effect on sender and receiver, why, and what to do."""

from __future__ import annotations

import json

from .rules import RULES


def list_rules(fmt: str) -> str:
    if fmt == "json":
        rows = [
            {
                "rule": r.id,
                "category": r.category,
                "sender": r.sender.value,
                "receiver": r.receiver.value,
                "explanation": r.explanation,
                "hint": r.hint,
            }
            for r in RULES.values()
        ]
        return json.dumps(rows, indent=2) + "\n"
    if fmt == "markdown":
        lines = [
            "| rule | category | sender | receiver | why | what to do |",
            "|---|---|---|---|---|---|",
        ]
        lines += [
            f"| `{r.id}` | {r.category} | {r.sender.value} | {r.receiver.value} |"
            f" {_cell(r.explanation)} | {_cell(r.hint)} |"
            for r in RULES.values()
        ]
        return "\n".join(lines) + "\n"
    width = max(len(r.id) for r in RULES.values())
    lines = []
    for r in RULES.values():
        lines.append(
            f"{r.id:<{width}}  {r.category:<9}  sender {r.sender.value:<10}  receiver"
            f" {r.receiver.value}"
        )
        lines.append(f"{'':<{width}}  {r.explanation}")
        lines.append(f"{'':<{width}}  what to do: {r.hint}")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|")
