"""`--accept FILE`: reviewed changes stay listed with their reason, stop counting toward
`--fail-on`, and entries that match nothing are reported as stale."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from acpgen.diff import diff_revisions
from acpgen.diff.accept import AcceptError, Entry, load_accepts
from acpgen.diff.cli import main
from acpgen.diff.severity import Gate
from tests.diff.helpers import case_revisions, fixture_diff, fixture_revision

WriteCase = Callable[[str], tuple[Path, Path]]


def accept_file(tmp_path: Path, *entries: tuple[str, str, str]) -> Path:
    path = tmp_path / "accepted.toml"
    path.write_text(
        "".join(
            f'[[accept]]\nrule = "{r}"\nsubject = "{s}"\nreason = "{why}"\n\n'
            for r, s, why in entries
        )
    )
    return path


def run_json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = main(argv + ["--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_an_accepted_change_stays_listed_with_its_reason(
    write_case: WriteCase, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = write_case("field-added-required")
    accepted = accept_file(tmp_path, ("field-added-required", "Thing.size", "we send it already"))
    _, out = run_json([str(old), str(new), "--accept", str(accepted)], capsys)
    assert [(c["subject"], c["accepted"]) for c in out["changes"]] == [
        ("Thing.size", "we send it already")
    ]
    assert out["summary"]["accepted"] == 1


def test_an_accepted_change_no_longer_fails_the_check(
    write_case: WriteCase, tmp_path: Path
) -> None:
    old, new = write_case("field-added-required")
    assert main([str(old), str(new), "--fail-on", "breaking"]) == 1
    accepted = accept_file(tmp_path, ("field-added-required", "Thing.size", "reviewed"))
    assert main([str(old), str(new), "--fail-on", "breaking", "--accept", str(accepted)]) == 0


def test_accepting_one_change_leaves_the_others_failing() -> None:
    report = fixture_diff("v1-stable-2026-08-20", "v2-stable-2026-08-20")
    gate = Gate("breaking", "both")
    entries = (Entry("method-removed", "terminal/create", "we never ran terminals"),)
    accepted = diff_revisions(
        fixture_revision("v1-stable-2026-08-20"), fixture_revision("v2-stable-2026-08-20"), entries
    )
    assert {c.subject for c in accepted.changes if c.accepted} == {"terminal/create"}
    assert len(gate.failing(accepted.changes)) == len(gate.failing(report.changes)) - 1


def test_an_entry_that_matches_nothing_is_reported_stale(
    write_case: WriteCase, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = write_case("field-added-required")
    accepted = accept_file(
        tmp_path, ("field-added-required", "Thing.size", "ok"), ("method-removed", "fs/gone", "old")
    )
    _, out = run_json([str(old), str(new), "--accept", str(accepted)], capsys)
    assert out["summary"]["stale_accepts"] == [
        {"rule": "method-removed", "subject": "fs/gone", "reason": "old"}
    ]
    main([str(old), str(new), "--accept", str(accepted), "--format", "markdown"])
    assert "`method-removed` `fs/gone`" in capsys.readouterr().out
    main([str(old), str(new), "--accept", str(accepted)])
    assert "method-removed fs/gone (old)" in capsys.readouterr().out


def test_an_entry_for_the_right_subject_but_another_rule_does_not_match() -> None:
    entries = (Entry("field-added-optional", "Thing.size", "wrong rule"),)
    report = diff_revisions(*case_revisions("field-added-required"), entries)
    assert report.changes[0].accepted is None and len(report.stale) == 1


def test_a_star_in_the_subject_matches_any_run_of_characters() -> None:
    entries = (Entry("type-narrowed", "*._meta", "we only ever send objects"),)
    report = diff_revisions(
        fixture_revision("v1-stable-2025-10-28"), fixture_revision("v1-stable-2026-01-15"), entries
    )
    narrowed = [c for c in report.changes if c.rule == "type-narrowed"]
    assert narrowed and all(c.accepted == "we only ever send objects" for c in narrowed)
    assert all(c.accepted is None for c in report.changes if c.rule != "type-narrowed")


def test_brackets_in_a_subject_are_taken_literally() -> None:
    (change,) = diff_revisions(*case_revisions("enum-value-added")).changes
    assert Entry("enum-value-added", "Color[blue]", "x").matches(change)
    assert not Entry("enum-value-added", "Color[b]", "x").matches(change)


@pytest.mark.parametrize(
    "text,complaint",
    [
        (
            '[[accept]]\nrule = "no-such-rule"\nsubject = "X"\nreason = "r"\n',
            "unknown rule 'no-such-rule'",
        ),
        ('[[accept]]\nrule = "type-added"\nsubject = "X"\n', "'reason' must be a non-empty string"),
        (
            '[[accept]]\nrule = "type-added"\nsubject = "X"\nreason = "r"\nwhy = "?"\n',
            "unknown key 'why'",
        ),
        ("accept = 3\n", "must be a list of [[accept]] tables"),
        ("[[accept]\n", "not TOML"),
    ],
)
def test_a_bad_accept_file_is_named_with_what_is_wrong(
    tmp_path: Path, text: str, complaint: str
) -> None:
    path = tmp_path / "accepted.toml"
    path.write_text(text)
    with pytest.raises(AcceptError, match=complaint.replace("[", r"\[").replace("]", r"\]")):
        load_accepts(path)


def test_a_bad_accept_file_is_bad_input(
    write_case: WriteCase, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = write_case("field-added-required")
    path = tmp_path / "accepted.toml"
    path.write_text('[[accept]]\nrule = "nope"\nsubject = "X"\nreason = "r"\n')
    assert main([str(old), str(new), "--accept", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "unknown rule 'nope'" in err
