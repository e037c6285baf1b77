"""`acpgen check` as a command: exit status, options, the four report formats."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest

from acpgen.cli import main

from .runs import PYTHON, ROOT, ZOO

BASE = ["--", PYTHON, str(ZOO / "base.py")]
QUICK = ["--quiet", "--timeout", "5", "--protocol-version", "1", "--only", "rpc"]


def test_a_conforming_agent_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", *QUICK, *BASE]) == 0
    out = capsys.readouterr().out
    assert "ok   v1 rpc.id-echo" in out
    assert "0 fail" in out and "passed (no MUST-level failure)" in out
    assert "stdio" not in out  # --only rpc: nothing else ran


def test_a_must_failure_exits_1_and_a_should_failure_only_warns(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["check", *QUICK, "--", PYTHON, str(ZOO / "numeric_ids.py")]) == 1
    out = capsys.readouterr().out
    assert "FAIL v1 rpc.id-echo" in out and "ACP-V1-JSONRPC-RESPONSE-ID-ECHO (MUST)" in out
    assert main(["check", *QUICK, "--", PYTHON, str(ZOO / "ext_null.py")]) == 0
    assert "warn v1 rpc.unknown-extension" in capsys.readouterr().out


def test_skip_by_requirement_id(capsys: pytest.CaptureFixture[str]) -> None:
    skip = ["--skip", "ACP-V1-JSONRPC-RESPONSE-ID-ECHO"]
    assert main(["check", *QUICK, *skip, "--", PYTHON, str(ZOO / "numeric_ids.py")]) == 0
    assert "rpc.id-echo" not in capsys.readouterr().out


def test_progress_goes_to_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    quick = [a for a in QUICK if a != "--quiet"]
    assert main(["check", *quick, *BASE]) == 0
    err = capsys.readouterr().err
    assert "acpgen check: v1 starting the agent (main)" in err
    assert "acpgen check: v1 rpc.bad-params [ACP-V1-SCHEMA-ERROR-OBJECT]: pass" in err


@pytest.mark.parametrize("fmt", ["json", "junit", "markdown"])
def test_report_formats(tmp_path: Path, fmt: str) -> None:
    report = tmp_path / "report"
    argv = ["check", *QUICK, "--format", fmt, "--report", str(report)]
    assert main([*argv, "--", PYTHON, str(ZOO / "numeric_ids.py")]) == 1
    text = report.read_text(encoding="utf-8")
    if fmt == "json":
        body = json.loads(text)
        failed = [r for r in body["results"] if r["outcome"] == "fail"]
        assert [r["check"] for r in failed] == ["rpc.id-echo"] and body["failed"] is True
        assert failed[0]["source"] == "jsonrpc/specification.html #response_object"
        # the wire transcript of the failed check: the request with id "7", answered with 7
        assert any(
            '"id": "7"' in line and line.startswith("->") for line in failed[0]["transcript"]
        )
        assert any('"id": 7,' in line and line.startswith("<-") for line in failed[0]["transcript"])
    elif fmt == "junit":
        root = ET.fromstring(text)
        failures = root.findall(".//testcase/failure/..")
        assert [c.get("name") for c in failures] == [
            "rpc.id-echo [ACP-V1-JSONRPC-RESPONSE-ID-ECHO]"
        ]
    else:
        assert "| fail | v1 | `rpc.id-echo` | ACP-V1-JSONRPC-RESPONSE-ID-ECHO | MUST |" in text
        assert "<details><summary>rpc.id-echo (v1): wire</summary>" in text


@pytest.mark.parametrize(
    "argv, says",
    [
        ([], "name the agent to check after --"),
        (["--only", "no-such-check", *BASE], "unknown check, group or requirement 'no-such-check'"),
        (["--timeout", "0", *BASE], "--timeout must be a positive number"),
        (["--protocol-version", "3", *BASE], "invalid choice: '3'"),
        (["--schema", "x.json", "--protocol-version", "both", *BASE], "--schema is one revision"),
        (["--", "/no/such/agent"], "cannot start '/no/such/agent'"),
        (["--protocol-version", "1", "--schema", "/no/such.json", *BASE], "--schema /no/such.json"),
    ],
)
def test_bad_usage_exits_2(capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    assert main(["check", "--quiet", *argv]) == 2
    assert says in capsys.readouterr().err


def test_the_version_is_negotiated_by_default(capsys: pytest.CaptureFixture[str]) -> None:
    # the zoo's base speaks only v1: asked for 2 it answers 1, so v1 is what gets checked
    assert main(["check", "--quiet", "--timeout", "5", "--only", "init", *BASE]) == 0
    assert "ok   v1 init.answer" in capsys.readouterr().out


def test_schema_generates_a_package_into_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    argv = ["check", *QUICK, "--only", "schema", "--schema", str(ROOT / "schema" / "schema.json")]
    assert main([*argv, "--", PYTHON, str(ZOO / "bad_params_internal.py")]) == 1
    assert "ACP-V1-SCHEMA-ERROR-OBJECT" in capsys.readouterr().out
    made = list((tmp_path / "acpgen" / "check").glob("acpgen_check_*/methods.py"))
    assert len(made) == 1
    assert made[0].parent.name in sys.modules  # the frames were decoded with it


def test_an_agent_that_dies_at_start_says_why(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--quiet", "--", PYTHON, "-c", "raise SystemExit('no key set')"]) == 1
    err = capsys.readouterr().err
    assert "the agent closed its output; its stderr ends: no key set" in err
    # checked on a version, the failed initialize carries the stderr in its evidence
    argv = ["check", "--quiet", "--protocol-version", "1", "--format", "json"]
    assert main([*argv, "--", PYTHON, "-c", "raise SystemExit('no key set')"]) == 1
    body = json.loads(capsys.readouterr().out)
    failed = [r for r in body["results"] if r["outcome"] == "fail"]
    assert [r["check"] for r in failed] == ["init.answer"]
    assert "stderr: no key set" in failed[0]["transcript"]


def test_blocked_by_authentication_exits_4_and_says_so(tmp_path: Path) -> None:
    """Neither a pass nor a fail: its own exit status, the verdict listing the auth methods."""
    report = tmp_path / "report.json"
    argv = ["check", "--quiet", "--timeout", "5", "--protocol-version", "1", "--only", "session"]
    argv += ["--format", "json", "--report", str(report)]
    assert main([*argv, "--", PYTHON, str(ZOO / "auth_gated.py")]) == 4
    body = json.loads(report.read_text(encoding="utf-8"))
    assert body["verdict"] == "blocked by authentication (advertised auth methods: zoo-login)"
    assert body["blocked_by_authentication"] == ["zoo-login"] and body["exit_status"] == 4
    assert {r["outcome"] for r in body["results"]} == {"not exercised"}
    assert (
        main([*argv, "--auth-method", "zoo-login", "--", PYTHON, str(ZOO / "auth_gated.py")]) == 0
    )
