"""An accept entry names a whole subject: `*` stands for any run of characters, and nothing else
widens it (no prefix, no suffix, no regular expression)."""

from __future__ import annotations

import pytest

from acpgen.diff.accept import Entry
from acpgen.diff.model import Change, Level, Severity

RULE = "field-removed-required"


def change(subject: str, rule: str = RULE) -> Change:
    level = Level("breaking")
    return Change(
        rule=rule,
        subject=subject,
        detail="d",
        severity=Severity(agent=level, client=level),
        affects=(),
        old_subject=subject,
        scope="type",
    )


@pytest.mark.parametrize(
    ("entry", "subject", "matches"),
    [
        ("Thing.name", "Thing.name", True),
        ("Thing.name", "Thing.nameless", False),
        ("Thing.name", "Thing.name.first", False),
        ("Thing", "Thing.name", False),
        ("Thing.name", "MyThing.name", False),
        ("Thing.*", "Thing.name", True),
        ("Thing.*", "Thing.", True),
        ("Thing.*", "OtherThing.name", False),
        ("*.name", "Thing.name", True),
        ("*.name", "Thing.names", False),
        ("Thing[a.b]", "Thing[a.b]", True),
        ("Thing[a.b]", "Thing[aXb]", False),
        ("Thing.(x)", "Thing.x", False),
    ],
)
def test_an_entry_matches_exactly_its_subject(entry: str, subject: str, matches: bool) -> None:
    got = Entry(RULE, entry, "reviewed").matches(change(subject))
    assert got is matches, f"{entry!r} {'should' if matches else 'should not'} match {subject!r}"


def test_an_entry_matches_only_its_rule() -> None:
    assert not Entry(RULE, "Thing.name", "r").matches(
        change("Thing.name", "field-removed-optional")
    )
