"""Zoo members for what real agents do (issue 38, tests/check/zoo_real/): each reproduces one
behaviour of codex-acp 2.6.0, claude-agent-acp 0.101.0 or fast-agent-acp 0.10.48 that the checker
once judged wrongly, or one real finding that must stay found."""

from __future__ import annotations

import pytest

from acpgen.check.model import FAIL, NOT_EXERCISED, PASS, Run

from .runs import HERE, PYTHON, findings, not_exercised, run_all

ZOO_REAL = HERE / "zoo_real"
MEMBERS = {
    "refuses_version_zero": [1],
    "v2_refuses_version_zero": [2],
    "v2_auth_gated": [2],
    "v2_cancel_before_accept": [2],
    "files_turn_under_newest": [1],
}


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    return run_all({n: ([PYTHON, str(ZOO_REAL / f"{n}.py")], v) for n, v in MEMBERS.items()})


def test_every_member_is_run() -> None:
    assert {p.stem for p in ZOO_REAL.glob("*.py")} == set(MEMBERS)


def _result(run: Run, check: str) -> tuple[str, str]:
    [result] = [r for r in run.results if r.check == check]
    return result.outcome, result.detail


def test_version_zero_refused_on_v1_stays_a_failure(runs: dict[str, Run]) -> None:
    """v1's schema names no code for it: initialization.mdx L96 ("MUST respond with the latest
    version it supports") stands, as for codex-acp on v1."""
    run = runs["refuses_version_zero"]
    assert findings(run) == {("version.lower", "ACP-V1-INIT-AGENT-LATEST-VERSION", FAIL)}
    assert "-32022" in _result(run, "version.lower")[1] and run.exit_status == 1


def test_version_zero_refused_with_the_v2_schemas_code_passes(runs: dict[str, Run]) -> None:
    run = runs["v2_refuses_version_zero"]
    assert findings(run) == set() and not_exercised(run) == set(), run.results
    outcome, detail = _result(run, "version.lower")
    assert outcome == PASS and "Unsupported protocol version" in detail, detail


def test_v2_auth_methods_are_listed_by_their_method_id(runs: dict[str, Run]) -> None:
    run = runs["v2_auth_gated"]
    assert run.blocked_by_auth == ["zoo-login"] and run.exit_status == 4, run.verdict()
    assert "advertised auth methods: zoo-login" in run.verdict()
    assert findings(run) == set()
    skipped = [r for r in run.results if r.outcome == NOT_EXERCISED]
    assert skipped and all("auth methods: zoo-login" in r.detail for r in skipped), skipped


def test_v2_auth_method_runs_the_v2_auth_flow_then_checks_fully() -> None:
    """--auth-method sends the request the v2 schema gives `methodId` (auth/login, found in the
    package, not v1's authenticate): every check then runs, and the agent passes."""
    argv = [PYTHON, str(ZOO_REAL / "v2_auth_gated.py")]
    run = run_all({"gated": (argv, [2])}, auth_method="zoo-login")["gated"]
    assert run.blocked_by_auth is None and run.exit_status == 0, run.verdict()
    assert findings(run) == set() and not_exercised(run) == set(), run.results
    sent = [r for r in run.results if r.check == "prompt.accepted"]
    assert [r.outcome for r in sent] == [PASS], sent


def test_a_prompt_refused_before_it_was_accepted_is_no_cancel_failure(
    runs: dict[str, Run],
) -> None:
    run = runs["v2_cancel_before_accept"]
    assert findings(run) == set(), findings(run)
    assert not_exercised(run) == {"cancel.cancelled", "prompt.no-update-after-answer"}
    outcome, detail = _result(run, "cancel.cancelled")
    assert outcome == NOT_EXERCISED and "-32800" in detail and "no `running`" in detail


def test_resume_replay_is_found_on_an_agent_that_files_turns_under_the_newest_session(
    runs: dict[str, Run],
) -> None:
    """The main session cannot be loaded (its turn was filed under the second session's id): a
    real failure. session/resume is judged on a session of its own, whose turn it replays:
    before that, the resume failed "Session not found" and the replay went unseen."""
    run = runs["files_turn_under_newest"]
    assert findings(run) == {
        ("session.load-replay", "ACP-V1-SETUP-LOAD-REPLAY", FAIL),
        ("session.resume-no-replay", "ACP-V1-SETUP-RESUME-NO-REPLAY", FAIL),
        ("session.resume-history", "ACP-V1-SETUP-RESUME-NO-REPLAY", FAIL),
    }
    assert "-32002" in _result(run, "session.load-replay")[1]
    assert _result(run, "session.resume-no-replay")[1].endswith("2 updates before it")
    history = _result(run, "session.resume-history")[1]
    assert "agent_message_chunk, user_message_chunk" in history, history
