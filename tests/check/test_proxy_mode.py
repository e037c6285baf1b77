"""`acpgen check --proxy` (issue 36): the checker plays conductor and successor to a proxy. The
zoo (tests/check/zoo_proxy/): a pass-through proxy in plain JSON lines (base.py) and one on
acp_runtime's proxy API (runtime_pass.py) pass every check, v1 and v2; every other member breaks
one sentence and is caught by the check citing it, and by no other."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest

from acpgen.check.model import FAIL, INFO, NOT_EXERCISED, PASS, WARN, Run
from acpgen.check.proxy_catalogue import PROXY_CHECKS
from acpgen.check.proxy_mode import run_proxy_checks
from acpgen.check.runner import selector
from acpgen.check.schemas import default_package

from .runs import HERE, PYTHON, TIMEOUT, findings

ZOO_PROXY = HERE / "zoo_proxy"
PASSING = ("base", "runtime_pass")
# member -> (the check that catches it, its requirement, the outcome, a phrase of its detail)
BREAKS = {
    "answers_initialize": (
        "proxy.initialize-forwarded",
        "PROXY-INIT-FORWARD-FIRST",
        FAIL,
        "answered proxy/initialize without forwarding initialize",
    ),
    "rewrites_version": (
        "proxy.version-unchanged",
        "PROXY-INIT-VERSION-UNCHANGED",
        FAIL,
        "the successor answered protocolVersion 1, the proxy 99",
    ),
    "forwards_cancel": (
        "proxy.cancel-hop-local",
        "PROXY-CANCEL-HOP-LOCAL",
        FAIL,
        '"method": "$/cancel_request", "params": {"requestId": 5}',
    ),
    "reshapes_answers": (
        "proxy.answers-unchanged",
        "PROXY-SUCCESSOR-UNCHANGED",
        FAIL,
        '"result": {"value": {"echo"',
    ),
    "refuses_unknown": (
        "proxy.unknown-forwarded",
        "PROXY-FORWARD-UNKNOWN",
        WARN,
        "_acpgen_check/echo not forwarded",
    ),
    "string_meta": (
        "proxy.meta-hop-local",
        "PROXY-META-HOP-LOCAL",
        FAIL,
        "an envelope's _meta is a JSON str",
    ),
    "lingers_on_eof": (
        "proxy.eof-exit",
        "ACPGEN-STDIO-EOF-EXIT",
        INFO,
        "still running",
    ),
}
# what cannot be judged once a member breaks its sentence (nothing else is left unexercised)
UNREACHED = {
    "answers_initialize": {"proxy.version-unchanged"},
    "refuses_unknown": {
        "proxy.answers-unchanged",
        "proxy.cancel-hop-local",
        "proxy.meta-hop-local",
    },
}
PACKAGES = {1: default_package(1), 2: default_package(2)}


def _argv(name: str) -> list[str]:
    return [PYTHON, str(ZOO_PROXY / f"{name}.py")]


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    members = {n: [1] for n in BREAKS} | {n: [1, 2] for n in PASSING}

    async def one(name: str, versions: list[int]) -> Run:
        return await run_proxy_checks(
            _argv(name), PACKAGES, versions, TIMEOUT, selector([], []), lambda _line: None
        )

    async def every() -> list[Run]:
        return list(await asyncio.gather(*(one(n, v) for n, v in members.items())))

    return dict(zip(members, asyncio.run(every()), strict=True))


def test_every_zoo_member_is_listed() -> None:
    assert {p.stem for p in ZOO_PROXY.glob("*.py")} == {*BREAKS, *PASSING}


@pytest.mark.parametrize("name", PASSING)
def test_a_pass_through_proxy_passes_every_check_on_both_versions(
    runs: dict[str, Run], name: str
) -> None:
    run = runs[name]
    assert {(r.version, r.outcome) for r in run.results} == {(1, PASS), (2, PASS)}, run.results
    for version in (1, 2):
        checked = {r.check for r in run.results if r.version == version}
        assert checked == {c.name for c in PROXY_CHECKS}, version
    assert run.exit_status == 0 and not run.notes


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_each_broken_proxy_is_caught_by_its_sentence_alone(runs: dict[str, Run], name: str) -> None:
    check, rid, outcome, phrase = BREAKS[name]
    run = runs[name]
    assert findings(run) == {(check, rid, outcome)}, run.results
    [result] = [r for r in run.results if r.check == check]
    assert phrase in result.detail, result.detail
    assert result.evidence and result.cited.text, result
    skipped = {r.check for r in run.results if r.outcome == NOT_EXERCISED}
    assert skipped == UNREACHED.get(name, set()), skipped
    assert run.exit_status == (1 if outcome == FAIL else 0)


def test_a_proxy_that_exits_fails_initialize_alone_and_says_why() -> None:
    """What it never lived to do is not exercised, not a failure each."""
    argv = [PYTHON, "-c", "import sys; sys.exit('no successor configured')"]
    run = asyncio.run(
        run_proxy_checks(argv, PACKAGES, [1], TIMEOUT, selector([], []), lambda _line: None)
    )
    rid = "PROXY-INIT-FORWARD-FIRST"
    assert findings(run) == {("proxy.initialize-forwarded", rid, FAIL)}, run.results
    [failed] = [r for r in run.results if r.outcome == FAIL]
    assert failed.detail == (
        "neither an answer nor a forwarded initialize: the proxy closed its output (its stderr"
        " ends: no successor configured)"
    )
    skipped = {r.check for r in run.results if r.outcome == NOT_EXERCISED}
    assert "proxy.unknown-forwarded" in skipped and "proxy.answers-unchanged" in skipped


def test_proxy_mode_from_the_command_line(tmp_path: Path) -> None:
    """Exit 1 on a MUST failure, the report citing the schema's sentence; exit 0 on a pass."""
    report = tmp_path / "report.json"
    command = [PYTHON, "-m", "acpgen", "check", "--proxy", "--quiet", "--protocol-version", "2"]
    command += ["--format", "json", "--report", str(report), "--"]
    done = subprocess.run(
        [*command, *_argv("rewrites_version")], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1, done.stderr
    body = json.loads(report.read_text())
    [failed] = [r for r in body["results"] if r["outcome"] == FAIL]
    assert failed["check"] == "proxy.version-unchanged" and failed["version"] == 2
    assert "It MUST NOT change `protocolVersion`." in failed["text"]
    assert "InitializeProxyResponse" in failed["source"]
    done = subprocess.run([*command, *_argv("base")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_proxy_mode_takes_no_client_or_url() -> None:
    command = [PYTHON, "-m", "acpgen", "check", "--proxy", "--client", "--", *_argv("base")]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "--proxy checks a proxy it spawns" in done.stderr


@pytest.mark.parametrize("example", ["context_proxy.py", "policy_proxy.py"])
def test_the_proxy_examples_pass_every_check_on_both_versions(example: str) -> None:
    """examples/context_proxy.py and policy_proxy.py, as the conductor runs them (issue 36)."""
    argv = [PYTHON, str(HERE.parents[1] / "examples" / example)]
    run = asyncio.run(
        run_proxy_checks(argv, PACKAGES, [1, 2], TIMEOUT, selector([], []), lambda _line: None)
    )
    assert {(r.version, r.outcome) for r in run.results} == {(1, PASS), (2, PASS)}, run.results
    for version in (1, 2):
        checked = {r.check for r in run.results if r.version == version}
        assert checked == {c.name for c in PROXY_CHECKS}, version
    assert run.exit_status == 0
