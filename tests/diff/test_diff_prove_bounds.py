"""Issue 40 item 6: `acpgen diff --prove` is bounded in memory and time.

A 5 KB schema whose required fields fan out x2 through 30 levels of `$ref`s took the proof past
2 GiB (a drawn value of 2^30 leaves). Now a drawn value holds at most MAX_VALUES values, a proof
makes at most MAX_EXCHANGES exchanges, and what a bound left unjudged is reported as capped.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from acpgen.diff import diff_revisions
from acpgen.diff import prove as prove_module
from acpgen.diff.prove import prove
from tests.diff.helpers import fixture_revision

LIMIT = 1024**3  # address space of the proof's process


def _fan_out(leaf: dict[str, Any]) -> dict[str, Any]:
    defs: dict[str, Any] = {
        f"L{i}": {
            "type": "object",
            "properties": {"a": {"$ref": f"#/$defs/L{i + 1}"}, "b": {"$ref": f"#/$defs/L{i + 1}"}},
            "required": ["a", "b"],
        }
        for i in range(30)
    }
    defs["L30"] = leaf
    ping = {"x-method": "ping", "x-side": "agent", "type": "object"}
    defs["PingRequest"] = ping | {"properties": {"x": {"$ref": "#/$defs/L0"}}, "required": ["x"]}
    defs["PingResponse"] = ping | {"properties": {}}
    return {"$defs": defs}


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def test_a_ref_fan_out_is_proved_within_bounds_and_reported_capped(tmp_path: Path) -> None:
    (tmp_path / "old.json").write_text(json.dumps(_fan_out({"type": "string"})))
    (tmp_path / "new.json").write_text(json.dumps(_fan_out({"type": "string", "maxLength": 3})))
    assert (tmp_path / "old.json").stat().st_size < 5000
    run = subprocess.run(
        [sys.executable, "-m", "acpgen", "diff", "--prove", "old.json", "new.json"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=240,
        preexec_fn=_limited,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    assert "1 verdict(s) not judged: a bound of the proof was reached" in run.stdout
    assert "capped constraint-tightened L30" in run.stdout
    assert f"at the bound of {prove_module.MAX_VALUES} values each" in run.stdout


def test_the_changes_past_the_exchange_bound_are_listed_as_not_tried(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prove_module, "MAX_EXCHANGES", 1)
    old, new = fixture_revision("v1-stable-2025-10-28"), fixture_revision("v1-stable-2026-01-15")
    proof = prove(diff_revisions(old, new), old, new, 1)
    tried = [p for p in proof.changes if p.exchanges]
    assert len(tried) == 1 and not proof.disagreements
    assert len(proof.capped) == len(proof.changes) - 1
    assert all("bound of 1 exchanges was reached" in note for _, note in proof.capped)
