"""`acpgen diff`: exit codes, `--fail-on` and `--role`, bad input, `--list-rules`, colour."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from acpgen.diff.cli import main
from acpgen.diff.rules import RULES
from tests.diff.helpers import SCHEMAS

WriteCase = Callable[[str], tuple[Path, Path]]


def diff(write_case: WriteCase, name: str, *options: str) -> int:
    old, new = write_case(name)
    return main([str(old), str(new), *options])


def test_nothing_fails_by_default(write_case: WriteCase) -> None:
    assert diff(write_case, "field-added-required") == 0


def test_fail_on_breaking_fails_on_a_breaking_change(write_case: WriteCase) -> None:
    assert diff(write_case, "field-added-required", "--fail-on", "breaking") == 1


def test_fail_on_breaking_lets_a_warning_pass(write_case: WriteCase) -> None:
    assert diff(write_case, "enum-value-added", "--fail-on", "breaking") == 0


def test_fail_on_warning_fails_on_a_warning(write_case: WriteCase) -> None:
    assert diff(write_case, "enum-value-added", "--fail-on", "warning") == 1


def test_fail_on_warning_lets_a_python_api_change_pass(write_case: WriteCase) -> None:
    assert diff(write_case, "type-renamed", "--fail-on", "warning") == 0


def test_fail_on_any_fails_on_a_compatible_change(write_case: WriteCase) -> None:
    assert diff(write_case, "field-added-optional", "--fail-on", "any") == 1


def test_fail_on_any_ignores_changes_only_to_descriptions(write_case: WriteCase) -> None:
    assert diff(write_case, "same-allof-wrapper", "--fail-on", "any") == 0


def test_role_counts_only_what_that_side_must_fix(write_case: WriteCase) -> None:
    # A new required field in what the client sends: the client must fix it, the agent need not.
    assert diff(write_case, "field-added-required", "--fail-on", "breaking", "--role", "agent") == 0
    assert (
        diff(write_case, "field-added-required", "--fail-on", "breaking", "--role", "client") == 1
    )


def test_the_json_summary_says_how_many_changes_fail(
    write_case: WriteCase, capsys: pytest.CaptureFixture[str]
) -> None:
    diff(
        write_case,
        "field-added-required",
        "--fail-on",
        "breaking",
        "--role",
        "client",
        "--format",
        "json",
    )
    summary = json.loads(capsys.readouterr().out)["summary"]
    assert (summary["fail_on"], summary["role"], summary["failing"]) == ("breaking", "client", 1)


@pytest.mark.parametrize(
    "content,complaint",
    [
        (None, "cannot read"),
        ("not json", "is not JSON"),
        ('{"$defs": null}', "$defs must be an object, not null"),
        ('{"$defs": {"A": {"$ref": "#/$defs/B"}}}', "does not resolve"),
        ('{"$defs": {"A": {"oneOf": 3}}}', "/$defs/A/oneOf: oneOf must be an array"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | None, complaint: str
) -> None:
    bad = tmp_path / "bad.json"
    if content is not None:
        bad.write_text(content)
    assert main([str(bad), str(SCHEMAS / "v1-stable-2026-01-15.json")]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and complaint in captured.err and str(bad) in captured.err


def test_a_missing_schema_argument_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(SCHEMAS / "v1-stable-2026-01-15.json")]) == 2
    assert "give OLD and NEW" in capsys.readouterr().err


def test_an_unknown_option_value_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["a.json", "b.json", "--fail-on", "sometimes"]) == 2
    assert "invalid choice" in capsys.readouterr().err


def test_list_rules_prints_every_rule_with_its_hint_and_needs_no_files(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["--list-rules"]) == 0
    out = capsys.readouterr().out
    for rule in RULES.values():
        assert rule.id in out and rule.hint in out


def test_list_rules_as_json_gives_both_levels_of_every_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["--list-rules", "--format", "json"])
    rows = json.loads(capsys.readouterr().out)
    assert [(r["rule"], r["sender"], r["receiver"]) for r in rows] == [
        (r.id, r.sender.value, r.receiver.value) for r in RULES.values()
    ]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_text_is_coloured_on_a_terminal(
    write_case: WriteCase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setattr(sys, "stdout", terminal := _Terminal())
    diff(write_case, "field-added-required")
    assert "\033[" in terminal.getvalue()


def test_no_color_turns_colour_off_on_a_terminal(
    write_case: WriteCase, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setattr(sys, "stdout", terminal := _Terminal())
    diff(write_case, "field-added-required")
    assert "\033[" not in terminal.getvalue()


def test_text_is_plain_when_not_a_terminal(
    write_case: WriteCase, capsys: pytest.CaptureFixture[str]
) -> None:
    diff(write_case, "field-added-required")
    assert "\033[" not in capsys.readouterr().out


def test_the_acpgen_command_runs_the_diff() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "acpgen", "diff", str(SCHEMAS / "v1-stable-2025-10-28.json"),
         str(SCHEMAS / "v1-stable-2026-01-15.json"), "--fail-on", "breaking", "--format", "json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 1
    assert json.loads(done.stdout)["summary"]["failing"] > 0


def test_diff_and_generate_tell_a_bad_schema_the_same_way(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from acpgen.cli import main as acpgen

    bad = tmp_path / "bad.json"
    bad.write_text('{"$defs": {"A": {"$ref": "#/$defs/B"}}}')
    assert main([str(bad), str(SCHEMAS / "v1-stable-2026-01-15.json")]) == 2
    from_diff = capsys.readouterr().err
    assert acpgen(["generate", str(bad), "--out", str(tmp_path / "out"), "--package", "p"]) == 2
    from_generate = capsys.readouterr().err
    problem = f"{bad}: /$defs/A/$ref: $ref '#/$defs/B' does not resolve: no def named 'B'"
    assert problem in from_diff and problem in from_generate


def test_diff_reads_what_generate_reads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A schema with constructs in their general form still diffs: what changed is reported."""
    old = {
        "$defs": {
            "A": {"type": "object", "properties": {"x": {"type": "string", "not": {"const": ""}}}}
        }
    }
    new = {
        "$defs": {
            "A": {
                "type": "object",
                "properties": {"x": {"type": "string", "not": {"const": ""}}, "y": {"if": {}}},
            }
        }
    }
    (tmp_path / "old.json").write_text(json.dumps(old))
    (tmp_path / "new.json").write_text(json.dumps(new))
    assert main([str(tmp_path / "old.json"), str(tmp_path / "new.json"), "--format", "json"]) == 0
    changes = json.loads(capsys.readouterr().out)["changes"]
    assert any("y" in json.dumps(c) for c in changes)


def _construct_schemas() -> dict[str, dict]:
    from ..codegen import test_constructs as c

    return {
        "shared": c.SHARED,
        "open-untagged": c.OPEN_UNTAGGED,
        "null-branch": c.NULL_BRANCH,
        "rich-branches": c.RICH_BRANCHES,
        "general": c.GENERAL,
        "closed": c.CLOSED,
        "leniency": c.LENIENCY,
    }


@pytest.mark.parametrize("name", sorted(_construct_schemas()))
def test_diff_reads_every_construct_generate_reads(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    schema = _construct_schemas()[name]
    (tmp_path / "a.json").write_text(json.dumps(schema))
    assert main([str(tmp_path / "a.json"), str(tmp_path / "a.json"), "--fail-on", "any"]) == 0
    capsys.readouterr()
    changed = json.loads(json.dumps(schema))
    first = sorted(changed["$defs"])[0]
    changed["$defs"][first] = {"anyOf": [changed["$defs"][first], {"type": "null"}]}
    (tmp_path / "b.json").write_text(json.dumps(changed))
    code = main([str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--format", "json"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert first in captured.out  # the def that became nullable is reported
