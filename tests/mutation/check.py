"""The mutation check: plant known breaks in a copy of the runtime and show the suite notices each.

    python -m tests.mutation.check [NAME ...]      (what `make mutation` runs; names pick mutants)

Each mutant replaces one exact piece of `runtime/` (an anchor that must occur as often as the
mutant says, or the check fails, so a mutant never rots silently when the code moves) in a copy
made in a temporary directory, which is put first on PYTHONPATH so that `acp_runtime` (and every
agent a test spawns) imports the broken copy; the repository itself is never touched. Then the
mutant's targeted tests run and must fail. Before any mutant, the same tests run against an
unbroken copy and must pass, so a caught mutant means the break was noticed, nothing else.
Generated packages are kept between the runs (ACPGEN_TEST_PACKAGES). Exit status 0 when every
mutant is caught.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONF = "tests/conformance"
RT = "tests/runtime"


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str  # under runtime/
    old: str
    new: str
    tests: tuple[str, ...]  # pytest node ids (or paths) of which at least one must fail
    count: int = 1  # how many times the anchor occurs (all are replaced)


MUTANTS = (
    Mutant(
        "capability guard off (an unadvertised method goes out)",
        "rules.py",
        'if supported(wire.get(initialize, *capability.split(".")))',
        "if True",
        (
            f"{CONF}/test_docs_file_system.py",
            f"{CONF}/test_docs_session_setup.py::test_client_never_loads_a_session_without_load_session",
        ),
    ),
    Mutant(
        "capability by kind off (image prompt, http MCP, boolean option, elicitation mode)",
        "rules.py",
        "capability = required.get(wire.get(entry, tag))",
        "capability = None",
        (
            f"{CONF}/test_docs_prompt_turn.py::test_client_sends_prompt_content_only_within_the_prompt_capabilities",
        ),
    ),
    Mutant(
        "relative paths allowed",
        "rules.py",
        "return posixpath.isabs(path) or",
        "return True or posixpath.isabs(path) or",
        (f"{CONF}/test_docs_overview.py",),
    ),
    Mutant(
        "calls before initialize allowed",
        "connection.py",
        "and method not in rules.ALLOWED_BEFORE_INITIALIZE",
        "and False",
        (f"{CONF}/test_docs_session_setup.py::test_agent_refuses_session_new_before_initialize",),
        count=2,
    ),
    Mutant(
        "agent echoes a protocol version it does not speak",
        "agent.py",
        "version = requested if requested in self.protocol_versions else"
        " self.protocol_versions[-1]",
        "version = requested",
        (
            f"{CONF}/test_docs_initialization.py::test_agent_answers_its_latest_version_when_the_requested_one_is_unknown",
        ),
    ),
    Mutant(
        "a cancelled turn answers end_turn",
        "rules.py",
        'TurnCancel("agent", "session/prompt", {"stopReason": "cancelled"})',
        'TurnCancel("agent", "session/prompt", {"stopReason": "end_turn"})',
        (
            f"{CONF}/test_docs_prompt_turn.py::test_a_cancelled_turn_is_answered_with_stop_reason_cancelled",
        ),
    ),
    Mutant(
        "session/close does not cancel the running turn",
        "rules.py",
        'TURN_ENDED_BY = frozenset({SESSION_CANCEL, "session/close"})',
        "TURN_ENDED_BY = frozenset({SESSION_CANCEL})",
        (f"{CONF}/test_docs_session_setup.py::test_closing_a_session_cancels_its_running_prompt",),
    ),
    Mutant(
        "history replayed while resuming",
        "rules.py",
        'NO_HISTORY_DURING = "session/resume"',
        'NO_HISTORY_DURING = "session/none"',
        (f"{CONF}/test_docs_session_setup.py::test_agent_cannot_replay_history_while_resuming",),
    ),
    Mutant(
        "a session id may be answered twice",
        "rules.py",
        "if session_id in known or (source is not None and session_id == source):",
        "if False:",
        (f"{CONF}/test_docs_session_setup.py::test_agent_refuses_to_answer_a_session_id_twice",),
    ),
    Mutant(
        "session/fork answers are not checked for uniqueness",
        "rules.py",
        'SESSION_CREATED_BY = frozenset({"session/new", "session/fork"})',
        'SESSION_CREATED_BY = frozenset({"session/new"})',
        (
            f"{CONF}/test_docs_session_setup.py::test_agent_refuses_a_fork_answering_the_id_of_a_known_session",
        ),
    ),
    Mutant(
        "a response resolves ahead of notifications that arrived before it",
        "connection.py",
        "if outgoing.direct or (self._inbox.empty() and not self._busy):",
        "if True:",
        (
            (
                f"{CONF}/test_docs_session_setup.py"
                "::test_load_returns_only_after_the_client_handled_every_update_sent_before_the_answer"
            ),
        ),
    ),
    Mutant(
        "a client prompts a session it has not set up",
        "rules.py",
        'SESSION_REQUIRED_BY = frozenset({"session/prompt"})',
        "SESSION_REQUIRED_BY = frozenset()",
        (
            f"{CONF}/test_docs_prompt_turn.py::test_client_cannot_prompt_a_session_it_has_not_set_up",
        ),
    ),
    Mutant(
        "a cancelled request is answered with another code",
        "rules.py",
        "REQUEST_CANCELLED = -32800",
        "REQUEST_CANCELLED = -32603",
        (
            f"{CONF}/test_docs_cancellation.py::test_a_cancelled_request_is_answered_once_with_minus_32800",
        ),
    ),
    Mutant(
        "form elicitation content is not checked against the requested schema",
        "rules.py",
        '"elicitation/create": form_content_breaks',
        "",  # ANSWER_CHECKS = {}
        (
            f"{CONF}/test_elicitation.py::test_an_agent_refuses_form_content_that_breaks_the_requested_schema",
        ),
    ),
    Mutant(
        "url elicitations are not bound to their connection",
        "rules.py",
        'Completion("elicitation/create", "mode", "url", "elicitation/complete", "elicitationId"),',
        "",  # COMPLETIONS = ()
        (
            f"{CONF}/test_elicitation.py::test_an_agent_completes_only_elicitations_opened_on_that_connection",
        ),
    ),
    Mutant(
        "a mode or config value the session does not offer may be set",
        "rules.py",
        'OFFER_CHECKS = {"session/set_mode": _mode_offered, "session/set_config_option":'
        " _value_offered}",
        "OFFER_CHECKS = {}",
        (
            f"{CONF}/test_docs_session_modes.py::test_client_switches_only_to_a_mode_the_session_offers",
        ),
    ),
    Mutant(
        "rpc. method names may be sent",
        "connection.py",
        'if method.startswith("rpc."):',
        "if False:",
        (f"{CONF}/test_jsonrpc.py::test_rpc_method_names_are_refused_before_anything_is_sent",),
    ),
    Mutant(
        "unstructured params may be sent",
        "connection.py",
        "if not wire.structured(params):  # 226",
        "if False:  # 226",
        (f"{CONF}/test_jsonrpc.py::test_unstructured_params_are_refused_before_anything_is_sent",),
    ),
    Mutant(
        "params with custom root fields may be sent",
        "connection.py",
        "if info is not None and type(params) is dict:  # 164",
        "if False:  # 164",
        (
            f"{CONF}/test_extensibility.py::test_custom_root_fields_in_untyped_params_are_refused_before_sending",
        ),
    ),
    Mutant(
        "a terminal auth method may be used with authenticate",
        "rules.py",
        'if wire.get(method, "type") == "terminal" and wire.get(method, "id") == chosen:',
        "if False:",
        (
            f"{CONF}/test_docs_authentication.py::test_client_never_authenticates_with_a_terminal_method",
        ),
    ),
    Mutant(
        "additional directories sent without the capability",
        "rules.py",
        "if wire.items(params, field) and not supported(",
        "if False and not supported(",
        (
            f"{CONF}/test_docs_session_setup.py::test_client_sends_additional_directories_only_when_advertised",
        ),
    ),
    Mutant(
        "a v2 turn ends at the prompt's answer",
        "session.py",
        "by_state = not wire.has_field(",
        "by_state = False and not wire.has_field(",
        (f"{RT}/test_session_v2.py::test_prompt_returns_at_the_idle_state_with_its_stop_reason",),
    ),
    Mutant(
        "a v2 turn ends at an idle from before its user message",
        "session.py",
        "for n, state in self._idles if n > after and state is not None",
        "for n, state in self._idles if n > start and state is not None",
        (
            f"{RT}/test_session_v2.py::test_an_idle_before_the_prompts_user_message_is_not_its_turn_end",
        ),
    ),
    Mutant(
        "v2 terminal output chunks joined before decoding",
        "session.py",
        'store[key] = store.get(key, b"") + base64.b64decode(data)',
        'store[key] = base64.b64decode(base64.b64encode(store.get(key, b"")).decode() + data)',
        (
            f"{CONF}/test_docs_v2_client.py::test_terminal_output_chunks_are_decoded_one_by_one_then_appended",
        ),
    ),
)


def copy_runtime(into: Path) -> Path:
    """A fresh copy of runtime/ as the importable package `acp_runtime` under `into`."""
    package = into / "acp_runtime"
    shutil.rmtree(package, ignore_errors=True)
    shutil.copytree(ROOT / "runtime", package, ignore=shutil.ignore_patterns("__pycache__"))
    return package


def plant(package: Path, mutant: Mutant) -> str | None:
    """Apply the mutant to the copy; why it cannot be applied, or None."""
    path = package / mutant.file
    text = path.read_text(encoding="utf-8")
    found = text.count(mutant.old)
    if found != mutant.count:
        return (
            f"its anchor occurs {found} times in runtime/{mutant.file}, not {mutant.count}: update"
            f" {__file__}"
        )
    path.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")
    return None


def run_tests(
    shadow: Path, packages: Path, tests: tuple[str, ...], *, stop_at_first: bool
) -> tuple[int, str]:
    """Run pytest on `tests`, `shadow` first on PYTHONPATH: (exit code, first failure)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(shadow), *filter(None, [env.get("PYTHONPATH")])])
    env["ACPGEN_TEST_PACKAGES"] = str(packages)
    args = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=-rf",
        *tests,
    ]
    if stop_at_first:
        args.append("-x")
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True)
    failed = re.findall(r"^FAILED (\S+)", done.stdout, re.M)
    return done.returncode, (
        failed[0] if failed else done.stdout.strip().splitlines()[-1:][0] if done.stdout else ""
    )


def main(names: list[str]) -> int:
    chosen = [m for m in MUTANTS if not names or any(n.lower() in m.name.lower() for n in names)]
    with tempfile.TemporaryDirectory(prefix="acp-mutation-") as tmp:
        shadow, packages = Path(tmp) / "shadow", Path(tmp) / "packages"
        shadow.mkdir()
        packages.mkdir()
        every = tuple(dict.fromkeys(t for m in chosen for t in m.tests))
        copy_runtime(shadow)
        code, detail = run_tests(shadow, packages, every, stop_at_first=False)
        if code != 0:
            print(f"baseline: the targeted tests do not pass on the unbroken runtime ({detail})")
            return 1
        print(f"baseline: {len(every)} targeted test selections pass on the unbroken runtime")
        missed = 0
        for mutant in chosen:
            problem = plant(copy_runtime(shadow), mutant)
            if problem is None:
                code, detail = run_tests(shadow, packages, mutant.tests, stop_at_first=True)
                problem = None if code == 1 else f"not caught (pytest exit {code}: {detail})"
            missed += problem is not None
            print(
                f"{'caught' if problem is None else 'MISSED'}  {mutant.name}:"
                f" {detail if problem is None else problem}"
            )
        print(f"{len(chosen) - missed} of {len(chosen)} planted breaks caught")
        return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
