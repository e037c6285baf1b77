"""The zoo: each deliberately broken agent (tests/check/zoo/, the well-behaved v1 base.py with one
method overridden; tests/check/zoo_v2/, the same on v2's base_v2.py) is caught by the checks
citing the requirement it breaks, and by no other."""

from __future__ import annotations

import pytest

from acpgen.check.catalogue import CHECKS
from acpgen.check.model import NOT_EXERCISED, PASS, Run

from .runs import HERE, PYTHON, ZOO, findings, not_exercised, run_all

ZOO_V2 = HERE / "zoo_v2"

BREAKS = {
    "echo_version": "ACP-V1-INIT-AGENT-LATEST-VERSION",
    "bad_update": "ACP-V1-SCHEMA-SESSION-UPDATE-VARIANTS",
    "stdout_noise": "ACP-V1-TRANSPORT-AGENT-STDOUT-ONLY-ACP",
    "latin1": "ACP-V1-TRANSPORT-UTF8",
    "ext_null": "ACP-V1-EXT-UNKNOWN-METHOD-NOT-FOUND",
    "bad_params_internal": "ACP-V1-SCHEMA-ERROR-OBJECT",
    "numeric_ids": "ACP-V1-JSONRPC-RESPONSE-ID-ECHO",
    "notification_reply": "ACP-V1-JSONRPC-NO-REPLY-TO-NOTIFICATION",
    "late_update": "ACP-V1-PROMPT-UPDATES-BEFORE-RESPONSE",
    "no_cancel": "ACP-V1-PROMPT-AGENT-CANCELLED-STOP-REASON",
    "unannounced_tool": "ACP-V1-TOOLS-REPORT-TOOL-CALL",
    "line_limit": "ACP-V1-TRANSPORT-STDIO-NEWLINE-DELIMITED",
    "chunk_reader": "ACP-V1-TRANSPORT-STDIO-NEWLINE-DELIMITED",
    "same_session_id": "ACP-V1-SETUP-NEW-SESSION-ID",
    "fs_without_capability": "ACP-V1-FS-AGENT-NO-CALL-WITHOUT-CAPABILITY",
    "eof_hang": "ACPGEN-STDIO-EOF-EXIT",
    "load_no_replay": "ACP-V1-SETUP-LOAD-REPLAY",
    "load_answer_first": "ACP-V1-SETUP-LOAD-RESPOND-AFTER-REPLAY",
    "resume_replays": "ACP-V1-SETUP-RESUME-NO-REPLAY",
    "config_partial": "ACP-V1-CONFIG-SET-RESPONSE-COMPLETE",
    "list_error": "ACP-V1-LIST-AGENT-RESPONSE",
    "close_keeps": "ACP-V1-SETUP-CLOSE-CANCELS-AND-FREES",
    "error_turn": "ACP-V1-PROMPT-RESPOND-WITH-STOP-REASON",
    "dies_on_notification": "ACP-V1-EXT-IGNORE-UNKNOWN-NOTIFICATIONS",
    "no_info": "ACP-V1-INIT-IMPLEMENTATION-INFO",
    "silent_unknown": "ACP-V1-JSONRPC-RESPONSE-REQUIRED",
    "mode_refused": "ACP-V1-MODES-INITIAL-STATE-MAY",
    "cancel_request_drops": "ACP-V1-CANCEL-REQUEST-MUST-RESPOND",
    "delete_strict": "ACP-V1-DELETE-IDEMPOTENT",
    "delete_unadvertised": "ACP-V1-INIT-SESSION-OPTIONAL-MAY",
    "info_version_number": "ACP-V1-SCHEMA-INITIALIZE-SHAPE",
    "resource_link_refused": "ACP-V1-INIT-PROMPT-BASELINE",
    "terminal_auth_unasked": "ACP-V1-AUTH-AGENT-TERMINAL-METHOD-ONLY-WITH-CAPABILITY",
    "terminal_kept": "ACP-V1-TERM-AGENT-RELEASE",
    "version_zero_high": "ACP-V1-INIT-AGENT-LATEST-VERSION",
    "auth_required_no_methods": "ACPGEN-AUTH-REQUIRED-NEEDS-METHODS",
    "elicits_unoffered": "ACP-V1-ELIC-AGENT-NO-UNADVERTISED-MODE",
    "boolean_option": "ACP-V1-CONFIG-NO-BOOLEAN-WITHOUT-CAPABILITY",
    "resume_replays_after": "ACP-V1-SETUP-RESUME-NO-REPLAY",
    "dies_on_garbage": "ACP-V1-JSONRPC-RESPONSE-REQUIRED",
    "garbage_id": "ACP-V1-JSONRPC-RESPONSE-ID-ECHO",
}
# the one check that catches each (where others cite the same requirement)
CAUGHT_BY = {
    "version_zero_high": "version.higher",
    "resume_replays_after": "session.resume-history",
    "dies_on_garbage": "rpc.malformed-survives",
    "garbage_id": "rpc.malformed-null-id",
}
# not breaks: behaviour the protocol allows, which the checker once failed (issue 38)
FINE = {
    "state_after_turn": "session_info_update and available_commands_update after a turn",
    "auth_gated": "blocked by authentication: not a failure",
    "busy_turn": "a cancel read only after the turn ended: the cancel raced the turn and lost",
}

BREAKS_V2 = {
    "no_user_message": "ACP-V2-PROMPT-AGENT-USER-MESSAGE",
    "no_running": "ACP-V2-PROMPT-AGENT-RUNNING",
    "never_idle": "ACP-V2-PROMPT-AGENT-IDLE-STOP-REASON",
    "never_idle_busy": "ACP-V2-PROMPT-AGENT-IDLE-STOP-REASON",
    "answers_after_turn": "ACP-V2-PROMPT-AGENT-RESPOND-ON-ACCEPT",
    "no_cancel": "ACP-V2-CANCEL-AGENT-IDLE-CANCELLED",
    "update_after_cancelled": "ACP-V2-CANCEL-AGENT-UPDATES-BEFORE-IDLE",
    "list_missing": "ACP-V2-SESSION-LIST-BASELINE",
    "batch_refused": "ACPGEN-V2-BATCH",
}
FINE_V2 = {"busy_turn": FINE["busy_turn"]}


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    v1 = {n: ([PYTHON, str(ZOO / f"{n}.py")], [1]) for n in ["base", *BREAKS, *FINE]}
    v2 = {
        f"v2 {n}": ([PYTHON, str(ZOO_V2 / f"{n}.py")], [2])
        for n in ["base_v2", *BREAKS_V2, *FINE_V2]
    }
    return run_all({**v1, **v2})


def test_every_zoo_agent_is_listed() -> None:
    assert {p.stem for p in ZOO.glob("*.py")} - {"base"} == set(BREAKS) | set(FINE)
    assert {p.stem for p in ZOO_V2.glob("*.py")} - {"base_v2"} == set(BREAKS_V2) | set(FINE_V2)


def test_the_well_behaved_base_passes_every_check(runs: dict[str, Run]) -> None:
    run = runs["base"]
    # it advertises every optional session method, so none is left to try unadvertised
    assert findings(run) == set() and not_exercised(run) == {"session.unadvertised"}
    # every v1 check ran on it, so each zoo agent below is judged by all of them
    assert {r.check for r in run.results} == {
        c for c, k in CHECKS.items() if k.cites(1) and k.group != "remote"  # --url only
    }
    assert all(r.outcome == PASS for r in run.results if r.check != "session.unadvertised")


def test_the_well_behaved_v2_base_passes_every_v2_check(runs: dict[str, Run]) -> None:
    run = runs["v2 base_v2"]
    assert findings(run) == set() and not_exercised(run) == set(), run.results
    assert {r.check for r in run.results} == {
        c for c, k in CHECKS.items() if k.cites(2) and k.group != "remote"
    }


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_each_broken_agent_is_caught_by_its_requirement_alone(
    runs: dict[str, Run], name: str
) -> None:
    found = findings(runs[name])
    assert found, f"{name}: nothing caught it"
    assert {rid for _, rid, _ in found} == {BREAKS[name]}, found
    citing = {c for c, k in CHECKS.items() if k.cites(1) == BREAKS[name]}
    assert {check for check, _, _ in found} <= citing | {"schema.frames"}
    if name in CAUGHT_BY:
        assert CAUGHT_BY[name] in {check for check, _, _ in found}, found


def test_state_updates_after_a_turn_are_no_finding(runs: dict[str, Run]) -> None:
    """prompt-turn.mdx L343 binds content and tool call updates to the turn; session state
    (slash-commands.mdx L73, session-list.mdx L179) may come at any time."""
    run = runs["state_after_turn"]
    assert findings(run) == set() and not_exercised(run) == {"session.unadvertised"}


@pytest.mark.parametrize("name", ["busy_turn", "v2 busy_turn", "v2 never_idle_busy"])
def test_a_cancel_the_agent_reads_only_after_its_turn_ended_is_not_judged(
    runs: dict[str, Run], name: str
) -> None:
    """These agents read nothing while a turn runs, so the cancel sent at the turn's first update
    reaches them only after the turn has ended, however loaded the machine: the race a correct
    agent can lose. The turn ended before the agent answered the request sent after the cancel,
    so the cancel is not judged (it failed, 0.4 s after the cancel, or for never_idle_busy for
    want of an idle its turns never send, which prompt.stop-reason reports)."""
    [result] = [r for r in runs[name].results if r.check == "cancel.cancelled"]
    assert result.outcome == NOT_EXERCISED, result
    if name != "v2 never_idle_busy":
        assert "before the agent answered" in result.detail, result.detail
        assert findings(runs[name]) == set()
    else:
        assert "nor after its first turn" in result.detail, result.detail


def test_an_agent_blocked_by_authentication_is_neither_pass_nor_fail(
    runs: dict[str, Run],
) -> None:
    run = runs["auth_gated"]
    assert run.blocked_by_auth == ["zoo-login"] and not run.failed and run.exit_status == 4
    assert "blocked by authentication (advertised auth methods: zoo-login)" in run.verdict()
    assert findings(run) == set()
    # every check that needs a session is there, not exercised, saying why
    skipped = [r for r in run.results if r.outcome == NOT_EXERCISED]
    assert {"session.new-id", "prompt.stop-reason", "session.load-replay"} <= {
        r.check for r in skipped
    }
    assert all(
        "blocked by authentication" in r.detail for r in skipped if r.check != "stdio.eof-mid-turn"
    )
    # what needs no session still ran: JSON-RPC hygiene, the version probes, the split line
    passed = {r.check for r in run.results if r.outcome == PASS}
    assert {"rpc.id-echo", "version.lower", "stdio.split-line", "stdio.eof-mid-turn"} <= passed
    assert {r.check for r in run.results} == {
        c for c, k in CHECKS.items() if k.cites(1) and k.group != "remote"
    }


def test_auth_method_runs_the_auth_flow_first() -> None:
    run = run_all({"auth": ([PYTHON, str(ZOO / "auth_gated.py")], [1])}, auth_method="zoo-login")
    assert run["auth"].blocked_by_auth is None
    assert findings(run["auth"]) == set()
    assert not_exercised(run["auth"]) == {"session.unadvertised"}


@pytest.mark.parametrize("name", sorted(BREAKS_V2))
def test_each_broken_v2_agent_is_caught_by_its_requirement_alone(
    runs: dict[str, Run], name: str
) -> None:
    found = findings(runs[f"v2 {name}"])
    assert {rid for _, rid, _ in found} == {BREAKS_V2[name]}, found
    citing = {c for c, k in CHECKS.items() if k.cites(2) == BREAKS_V2[name]}
    assert {check for check, _, _ in found} <= citing
