"""`acpgen diff --prove`: every verdict checked against real exchanges between the generated
packages of both revisions.

On every fixture pair (consecutive revisions of one line, found by listing the fixtures) every
verdict is confirmed; a rule given a wrong severity is caught, in the diff, the CLI and the bump.
"""

from __future__ import annotations

import dataclasses
import functools
import io
import json
import re
import shutil
from collections import defaultdict
from pathlib import Path

import pytest

from acpgen.bump import BumpError, Paths, bump
from acpgen.diff import diff_revisions
from acpgen.diff.cli import main
from acpgen.diff.model import ROLES, Level
from acpgen.diff.prove import Proof, prove
from acpgen.diff.rules import RULES
from acpgen.diff.severity import Gate
from tests.diff.helpers import (
    SCHEMAS,
    case,
    case_names,
    case_revisions,
    fixture_diff,
    fixture_revision,
)

DRAWS = 2  # values drawn per method and side: a few, seeded (breaking verdicts search further)
_VERSION = re.compile(r"v\d+")
_STABLE = re.compile(r"\bstable\b")  # `v1-stable-…`; anything else (unstable, a preview) is not
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


def fixture_pairs() -> list[tuple[str, str]]:
    """Consecutive revisions of each line (protocol version, stable or not), by the date in the
    name; a revision without one (a package's release) comes after the dated ones."""
    lines: dict[tuple[str, bool], list[str]] = defaultdict(list)
    for path in sorted(SCHEMAS.glob("*.json")):
        version = _VERSION.search(path.stem)
        if version:
            lines[version.group(0), bool(_STABLE.search(path.stem))].append(path.stem)
    pairs = []
    for names in lines.values():
        names.sort(key=lambda n: (_DATE.search(n).group(0) if _DATE.search(n) else "~", n))
        pairs += list(zip(names, names[1:], strict=False))
    return pairs


@functools.cache
def proved(old: str, new: str) -> Proof:
    return prove(fixture_diff(old, new), fixture_revision(old), fixture_revision(new), DRAWS)


def test_the_fixture_pairs_are_found() -> None:
    assert ("v1-stable-2025-10-28", "v1-stable-2026-01-15") in fixture_pairs()
    assert len(fixture_pairs()) >= 5


@pytest.mark.parametrize("old,new", fixture_pairs(), ids=[f"{a}→{b}" for a, b in fixture_pairs()])
def test_every_verdict_of_a_fixture_pair_is_confirmed_by_exchanges(old: str, new: str) -> None:
    proof = proved(old, new)
    problems = [f"{c.rule} {c.subject}: {d}" for c, d in proof.disagreements]
    assert not problems, "\n".join(problems)
    # no breaking verdict is left masked by another change's rejection: those are pruned away or
    # (a required field another change added) filled in from the receiver's schema
    assert not proof.masked, "\n".join(f"{c.rule} {c.subject}: {m}" for c, m in proof.masked)
    # nor unreachable: a change counts only through the messages both revisions have (a method's
    # params or result, of one kind, from one role to the other), so every breaking verdict has
    # an exchange that can fail
    assert not proof.unreachable, "\n".join(
        f"{c.rule} {c.subject}: {u}" for c, u in proof.unreachable
    )
    for p in proof.changes:
        for role in ROLES:
            if p.change.severity.of(role) is Level.BREAKING:
                x = p.failing(role)[0]  # the message, and the error the receiver answered
                assert x.outcome.error and json.loads(x.message)["jsonrpc"] == "2.0"


UPPER_BOUNDS = {  # rules the proof shows to be upper bounds on their own cases (docs/diff.md)
    "method-params-changed": "breaking for the agent, whose old params type reads the new params",
    "method-result-changed": "breaking for the client, whose old result type reads the new result",
}


@pytest.mark.parametrize(
    "name",
    [
        (
            pytest.param(n, marks=pytest.mark.xfail(strict=True, reason=UPPER_BOUNDS[n]))
            if n in UPPER_BOUNDS
            else n
        )
        for n in case_names()
    ],
)
def test_every_verdict_of_a_rule_case_is_confirmed_by_exchanges(name: str) -> None:
    old, new = case_revisions(name)
    proof = prove(diff_revisions(old, new), old, new, DRAWS)
    assert not proof.disagreements, proof.disagreements


def test_exchanges_are_drawn_for_the_changes_on_the_wire() -> None:
    """Not a vacuous proof: nearly every change that methods of both revisions carry is tried."""
    proof = proved("v1-stable-2025-10-28", "v1-stable-2026-01-15")
    on_wire = [p for p in proof.changes if p.change.affects and "type-" not in p.change.rule[:5]]
    tried = [p for p in on_wire if p.exchanges]
    assert len(tried) >= 0.9 * len(on_wire) and proof.exchanges > 300


def _planted(monkeypatch: pytest.MonkeyPatch, rule: str, **levels: Level) -> None:
    monkeypatch.setitem(RULES, rule, dataclasses.replace(RULES[rule], **levels))


def test_a_rule_that_calls_a_breaking_change_compatible_fails_the_proof(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _planted(monkeypatch, "type-narrowed", sender=Level.COMPATIBLE)
    old, new = fixture_revision("v1-stable-2025-10-28"), fixture_revision("v1-stable-2026-01-15")
    proof = prove(diff_revisions(old, new), old, new, DRAWS)
    caught = {(c.rule, c.subject) for c, d in proof.disagreements if "reported compatible" in d}
    assert ("type-narrowed", "AgentCapabilities._meta") in caught
    assert {rule for rule, _ in caught} == {"type-narrowed"}


def test_a_rule_that_calls_a_compatible_change_breaking_fails_the_proof(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _planted(monkeypatch, "field-added-optional", sender=Level.BREAKING)
    old, new = case_revisions("field-added-optional")
    proof = prove(diff_revisions(old, new), old, new, DRAWS)
    ((change, problem),) = proof.disagreements
    assert change.rule == "field-added-optional"
    assert problem.startswith("reported breaking for clients, but none of the")


@pytest.fixture
def case_files(tmp_path: Path) -> tuple[str, str]:
    body = case("field-added-required")
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(body["old"]))
    new.write_text(json.dumps(body["new"]))
    return str(old), str(new)


def test_the_command_reports_the_exchanges_and_one_failing_exchange_per_breaking_change(
    case_files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*case_files, "--prove", "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "#### Proof" in out and "for 1 changes: every verdict confirmed" in out
    assert (
        "`Thing.size` (`field-added-required`) breaks clients: old→new, `thing/send` params" in out
    )
    assert "missing required field 'size'" in out


def test_the_command_counts_exchanges_per_change_in_json(
    case_files: tuple[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*case_files, "--prove", "--format", "json"]) == 0
    proof = json.loads(capsys.readouterr().out)["proof"]
    (change,) = proof["changes"]
    assert proof["confirmed"] and change["exchanges"] >= 2 and change["failing"]["client"] >= 1
    assert "missing required field" in change["example"]["client"]["error"]


def test_a_contradicted_verdict_fails_the_command_with_exit_3(
    case_files: tuple[str, str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _planted(monkeypatch, "field-added-required", sender=Level.COMPATIBLE)
    assert main([*case_files, "--prove"]) == 3
    captured = capsys.readouterr()
    assert "DISAGREEMENT field-added-required Thing.size: reported compatible" in captured.out
    assert "a bug in acpgen's diff rules or generator" in captured.err


def test_a_bump_whose_proof_contradicts_a_verdict_is_refused_with_exit_3_and_changes_nothing(
    case_files: tuple[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _planted(monkeypatch, "field-added-required", sender=Level.COMPATIBLE)
    schema = tmp_path / "schema.json"
    shutil.copy(case_files[0], schema)
    paths = Paths(schema, tmp_path / "generated", "acp_case", tmp_path / "CHANGES.md")
    with pytest.raises(BumpError) as refused:
        bump(Path(case_files[1]), paths, Gate("breaking"), out=io.StringIO(), err=io.StringIO())
    assert refused.value.exit_code == 3 and "the proof contradicts 1 verdict" in str(refused.value)
    assert schema.read_text() == Path(case_files[0]).read_text()
    assert not (tmp_path / "generated").exists() and not paths.changes.exists()


def test_a_method_that_moved_side_breaks_the_roles_an_exchange_shows_and_none_is_unreachable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """thing/ping moved from the agent to the client: old clients' calls and new agents' calls of
    old clients meet "method not found"; an old agent's handler is just never called, which is
    not reported breaking, so nothing is left that no exchange can show."""
    body = case("method-side-changed")
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(body["old"]))
    new.write_text(json.dumps(body["new"]))
    assert main([str(old), str(new), "--prove", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    proof = out["proof"]
    assert proof["confirmed"] and not proof["masked"] and not proof["unreachable"]
    (change,) = proof["changes"]
    assert change["failing"]["client"] >= 2 and change["failing"]["agent"] == 0
    assert "Method not found: thing/ping" in change["example"]["client"]["error"]


def _ping(kind: str, side: str) -> dict[str, object]:
    defs: dict[str, object] = {
        f"Ping{kind.title()}": {
            "x-method": "thing/ping",
            "x-side": side,
            "type": "object",
            "properties": {"at": {"type": "string"}},
            "required": ["at"],
        }
    }
    if kind == "request":
        defs["PingResponse"] = {"x-method": "thing/ping", "x-side": side, "type": "object"}
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}


def test_a_verdict_whose_way_of_breaking_no_longer_flows_is_listed_as_unreachable_with_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """thing/ping, a request the agent received, became a notification the client receives. The
    side change breaks only clients (their calls meet "method not found" both ways); the kind
    change is reported breaking for both, but an old agent neither sends it nor is sent it any
    more: no exchange can show that, and the proof says so, in every format, instead of calling
    the verdict wrong."""
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(_ping("request", "agent")))
    new.write_text(json.dumps(_ping("notification", "client")))
    assert main([str(old), str(new), "--prove"]) == 0
    out = capsys.readouterr().out
    assert "1 breaking verdict(s) unreachable" in out and "DISAGREEMENT" not in out
    assert "unreachable method-kind-changed thing/ping: reported breaking for agents" in out
    assert "no longer flows in the new revision (the method moved side)" in out
    assert main([str(old), str(new), "--prove", "--format", "json"]) == 0
    proof = json.loads(capsys.readouterr().out)["proof"]
    assert proof["confirmed"] and not proof["masked"]
    assert [(u["rule"], u["subject"]) for u in proof["unreachable"]] == [
        ("method-kind-changed", "thing/ping")
    ]
