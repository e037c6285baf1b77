"""The JSON output: a stable shape for scripts (documented in docs/diff.md)."""

from __future__ import annotations

import json
from typing import Any

from .model import ROLES, Change, Report
from .rules import RULES
from .severity import Gate
from .summary import counts

FORMAT_VERSION = 1


def render_json(report: Report, gate: Gate) -> str:
    table = counts(report.changes)
    document = {
        "format": FORMAT_VERSION,
        "old": {"file": report.old, "sha256": report.old_sha256},
        "new": {"file": report.new, "sha256": report.new_sha256},
        "changes": [change_json(c) for c in report.changes],
        "python_api": [
            {"kind": a.kind, "old": a.old, "new": a.new or None} for a in report.python_api
        ],
        "summary": {
            "changes": len(report.changes),
            "descriptions_changed": report.descriptions_changed,
            **{role: {level.value: n for level, n in table[role].items()} for role in ROLES},
            "accepted": sum(c.accepted is not None for c in report.changes),
            "stale_accepts": [
                {"rule": s.rule, "subject": s.subject, "reason": s.reason} for s in report.stale
            ],
            "fail_on": gate.fail_on,
            "role": gate.role,
            "failing": len(gate.failing(report.changes)),
        },
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def change_json(c: Change) -> dict[str, Any]:
    return {
        "rule": c.rule,
        "category": RULES[c.rule].category,
        "scope": c.scope,
        "subject": c.subject,
        "severity": {"agent": c.severity.agent.value, "client": c.severity.client.value},
        "affects": list(c.affects),
        "detail": c.detail,
        "accepted": c.accepted,
    }
