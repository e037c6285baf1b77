"""End to end over real pipes: examples/client.py driving examples/echo_agent.py and others."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

import acp_schema as acp
from acp_runtime import spawn_agent

from .helpers import Client, initialize_request

ROOT = Path(__file__).parents[2]
CLIENT = str(ROOT / "examples" / "client.py")
ECHO = str(ROOT / "examples" / "echo_agent.py")
SCRIPTED = str(Path(__file__).parent / "peers" / "scripted_agent.py")
SCRIPTED_V2 = str(Path(__file__).parent / "peers" / "scripted_agent_v2.py")
PYTHON = sys.executable


def run_client(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PYTHON, CLIENT, *args], capture_output=True, text=True, timeout=30)


def test_client_prompts_the_echo_agent_and_prints_the_echo() -> None:
    result = run_client("--prompt", "hello, agent", "--", PYTHON, ECHO)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "agent: echo-agent 0.1.0\nhello, agent\nstop: end_turn\n"


@pytest.mark.parametrize("version", ["1", "2"])
def test_client_prints_the_same_lines_from_the_echo_agent_in_both_versions(version: str) -> None:
    result = run_client(
        "--protocol-version", version, "--prompt", "hello, agent", "--", PYTHON, ECHO
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "agent: echo-agent 0.1.0\nhello, agent\nstop: end_turn\n"


def test_client_asking_v2_takes_v1_from_an_agent_that_answers_1() -> None:
    result = run_client(
        "--protocol-version", "2", "--prompt", "go", "--", PYTHON, SCRIPTED, "refuse"
    )
    assert result.returncode == 3, result.stderr
    assert result.stdout == "agent: scripted-refuse 9.9\nstop: refusal\n"


def test_client_without_a_prompt_prints_the_agent_and_exits() -> None:
    result = run_client("--", PYTHON, ECHO)
    assert result.returncode == 0 and result.stdout == "agent: echo-agent 0.1.0\n"


def test_client_answers_a_permission_request_with_the_first_allow_once_option() -> None:
    result = run_client("--prompt", "go", "--", PYTHON, SCRIPTED, "permission")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "agent: scripted-permission 9.9",
        "permission requested: Write /tmp/x",
        "  -> allowing once: Allow",
        "outcome: yes",
        "stop: end_turn",
    ]


def test_client_cancels_a_permission_request_without_allow_once() -> None:
    result = run_client("--prompt", "go", "--", PYTHON, SCRIPTED, "reject-only")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-3:-1] == [
        "  -> no allow_once option: cancelled",
        "outcome: cancelled",
    ]


def test_an_error_answer_is_one_clear_line_and_exit_1() -> None:
    result = run_client("--prompt", "go", "--", PYTHON, SCRIPTED, "auth")
    assert result.returncode == 1
    assert result.stderr == "error: the agent answered -32000: Authentication required\n"


def test_the_error_data_the_agent_sends_is_printed() -> None:
    result = run_client("--prompt", "go", "--", PYTHON, SCRIPTED, "broken")
    assert result.returncode == 1
    assert (
        result.stderr
        == 'error: the agent answered -32603: Internal error (data: {"message": "missing'
        ' dependency: ripgrep"})\n'
    )


def test_a_turn_that_ends_refused_prints_its_stop_reason_and_exits_3() -> None:
    result = run_client("--prompt", "go", "--", PYTHON, SCRIPTED, "refuse")
    assert result.returncode == 3 and result.stdout.splitlines()[-1] == "stop: refusal"


def test_a_cancelled_turn_prints_its_stop_reason_and_exits_3() -> None:
    result = run_client("--prompt", "go", "--", PYTHON, SCRIPTED, "cancelled")
    assert result.returncode == 3 and result.stdout.splitlines()[-1] == "stop: cancelled"


def run_v2(mode: str) -> subprocess.CompletedProcess[str]:
    return run_client("--protocol-version", "2", "--prompt", "go", "--", PYTHON, SCRIPTED_V2, mode)


def test_on_v2_the_client_prints_the_stop_reason_of_the_idle_state_and_exits_3_on_refusal() -> None:
    result = run_v2("refuse")
    assert result.returncode == 3, result.stderr
    assert result.stdout == "agent: scripted-v2-refuse 9.9\nstop: refusal\n"
    assert run_v2("cancelled").stdout.splitlines()[-1] == "stop: cancelled"


def test_on_v2_a_permission_request_is_answered_with_the_first_allow_once_option() -> None:
    result = run_v2("permission")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1:] == [
        "permission requested: Write /tmp/x",
        "  -> allowing once: Allow",
        "outcome: yes",
        "stop: end_turn",
    ]
    assert "  -> no allow_once option: cancelled" in run_v2("reject-only").stdout


def test_on_v2_the_error_data_the_agent_sends_is_printed() -> None:
    result = run_v2("broken")
    assert result.returncode == 1
    assert result.stderr == (
        "error: the agent answered -32603: Internal error"
        ' (data: {"message": "missing dependency: ripgrep"})\n'
    )


def test_piped_into_head_it_stops_quietly() -> None:
    command = f"{PYTHON} {CLIENT} --prompt go -- {PYTHON} {SCRIPTED} flood | head -n 3"
    result = subprocess.run(
        ["bash", "-o", "pipefail", "-c", command], capture_output=True, text=True, timeout=30
    )
    assert result.stdout.splitlines() == ["agent: scripted-flood 9.9", "line 0", "line 1"]
    assert result.stderr == "" and result.returncode == 0


def test_an_agent_speaking_another_version_is_one_clear_line_and_exit_1() -> None:
    result = run_client("--prompt", "go", "--", PYTHON, SCRIPTED, "version2")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "protocol version 2" in result.stderr


def test_a_dying_agent_is_one_clear_line_and_exit_1() -> None:
    result = run_client(
        "--prompt", "go", "--", PYTHON, str(Path(__file__).parent / "peers" / "dying_agent.py")
    )
    assert result.returncode == 1
    assert result.stderr == "error: connection closed: the agent process exited with code 3\n"


def test_a_missing_agent_command_is_one_clear_line_and_exit_1() -> None:
    result = run_client("--", "/nonexistent/agent")
    assert (
        result.returncode == 1
        and result.stderr.startswith("error: ")
        and result.stderr.count("\n") == 1
    )


async def test_session_cancel_over_pipes_ends_the_echo_turn_cancelled() -> None:
    class FirstUpdate(Client):
        def __init__(self) -> None:
            super().__init__()
            self.first = asyncio.Event()

        async def session_update(self, params: acp.SessionNotification) -> None:
            await super().session_update(params)
            self.first.set()

    client = FirstUpdate()
    async with spawn_agent(client, PYTHON, ECHO, "--delay", "0.2") as conn:
        await conn.agent.initialize(initialize_request())
        session = await conn.agent.session_new(acp.NewSessionRequest(cwd=str(ROOT), mcp_servers=[]))
        blocks = [acp.TextContent(text=str(i)) for i in range(50)]
        prompt = asyncio.ensure_future(
            conn.agent.session_prompt(
                acp.PromptRequest(session_id=session.session_id, prompt=blocks)
            )
        )
        await client.first.wait()  # the turn is running
        await conn.agent.session_cancel(acp.CancelNotification(session_id=session.session_id))
        answer = await prompt
        assert answer.stop_reason == acp.StopReason.CANCELLED
        assert 1 <= len(client.updates) < 50  # the turn ended early: the cancel stopped it


TIDY = str(ROOT / "examples" / "tidy_agent.py")
WATCH = str(ROOT / "examples" / "watch_client.py")


def watch(tmp_path: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    (tmp_path / "x.py").write_text("a = 1   \nb = 2\t\n")
    command = [PYTHON, WATCH, *args, "--prompt", "x.py", "--", PYTHON, TIDY]
    return subprocess.run(
        command, cwd=tmp_path, input=stdin, capture_output=True, text=True, timeout=30
    )


def test_the_tidy_agent_reads_asks_writes_runs_and_the_watch_client_shows_each_step(
    tmp_path: Path,
) -> None:
    result = watch(tmp_path, "--yes")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "x.py").read_text() == "a = 1\nb = 2\n"
    lines = result.stdout.splitlines()
    assert lines[0] == "   plan: [ ] Read x.py  [ ] Strip trailing whitespace  [ ] Check with wc"
    assert "   allowed: Tidy x.py" in lines
    assert f"   tool: Tidy x.py [completed] diff {tmp_path / 'x.py'} (-2 +2 lines)" in lines
    assert "   tool: wc -l x.py [completed] terminal term-1" in lines
    assert lines[-3:] == [
        "   plan: [x] Read x.py  [x] Strip trailing whitespace  [x] Check with wc",
        f"   agent: Done: wc exited 0: 2 {tmp_path / 'x.py'}",
        "stop: end_turn",
    ]


def test_the_tidy_agent_leaves_the_file_when_permission_is_refused(tmp_path: Path) -> None:
    result = watch(tmp_path, stdin="n\n")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "x.py").read_text() == "a = 1   \nb = 2\t\n"
    assert (
        "   tool: Tidy x.py [failed] diff" in result.stdout
        and "Left x.py as it was." in result.stdout
    )


def test_the_tidy_agent_refuses_a_client_without_files_and_terminals() -> None:
    result = run_client("--prompt", "x.py", "--", PYTHON, TIDY)
    assert result.returncode == 3
    assert result.stdout.splitlines()[-2:] == [
        "I need a client that offers file access and terminals.",
        "stop: refusal",
    ]
