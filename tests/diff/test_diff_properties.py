"""Properties every diff has: nothing against itself, a mirror when swapped, a stable order, and
the same changes in every output format."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest

from acpgen.diff import diff_revisions
from acpgen.diff.render_json import render_json
from acpgen.diff.render_markdown import render_markdown
from acpgen.diff.render_text import render_text
from acpgen.diff.rules import RULES
from acpgen.diff.severity import Gate
from tests.diff.helpers import SCHEMAS, fixture_diff, fixture_revision

TEXT_ROW = re.compile(r"^    agent \S+\s+client \S+\s+(?P<rule>\S+)\s+(?P<subject>.+?): ")
ALL = sorted(p.stem for p in SCHEMAS.glob("*.json"))
PAIRS = [
    ("v1-stable-2025-10-28", "v1-stable-2026-01-15"),
    ("v1-stable-2026-04-23", "v1-unstable-2026-04-23"),
    ("v1-stable-2026-08-20", "v2-stable-2026-08-20"),
    ("v1-unstable-2026-04-23", "v1-preview-pr-2026-08-21"),
    ("v1-stable-2025-10-28", "v2-unstable-2026-08-21"),
]


@pytest.mark.parametrize("name", ALL)
def test_a_schema_against_itself_has_no_change(name: str) -> None:
    report = fixture_diff(name, name)
    assert report.changes == () and report.descriptions_changed == 0


@pytest.mark.parametrize("old,new", PAIRS)
def test_swapping_the_revisions_mirrors_every_change(old: str, new: str) -> None:
    forward, backward = fixture_diff(old, new), fixture_diff(new, old)
    mirrored = Counter((RULES[c.rule].mirror, c.old_subject, c.subject) for c in forward.changes)
    assert mirrored == Counter((c.rule, c.subject, c.old_subject) for c in backward.changes)
    assert forward.descriptions_changed == backward.descriptions_changed


def test_the_same_inputs_give_the_same_output() -> None:
    old, new = fixture_revision("v1-stable-2026-08-20"), fixture_revision("v2-stable-2026-08-20")
    assert render_json(diff_revisions(old, new), Gate()) == render_json(
        diff_revisions(old, new), Gate()
    )


def test_changes_are_listed_methods_first_then_types_by_name() -> None:
    changes = fixture_diff("v1-stable-2026-08-20", "v2-stable-2026-08-20").changes
    scopes = [c.scope for c in changes]
    assert scopes == sorted(scopes, key=lambda s: s != "method")
    types = [c.subject.split(".")[0].split("[")[0] for c in changes if c.scope == "type"]
    assert types == sorted(types)


@pytest.mark.parametrize("old,new", PAIRS)
def test_every_format_carries_the_same_changes(old: str, new: str) -> None:
    report = fixture_diff(old, new)
    listed = Counter((c.rule, c.subject) for c in report.changes)
    as_json = json.loads(render_json(report, Gate()))
    assert Counter((c["rule"], c["subject"]) for c in as_json["changes"]) == listed
    markdown_rows = [
        line.split(" | ")
        for line in render_markdown(report, Gate()).splitlines()
        if line.startswith("| `")
    ]
    assert Counter((row[1].strip("`"), row[0].strip("| `")) for row in markdown_rows) == listed
    text_rows = [TEXT_ROW.match(line) for line in render_text(report, Gate()).splitlines()]
    assert Counter((row["rule"], row["subject"]) for row in text_rows if row) == listed
