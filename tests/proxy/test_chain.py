"""Proxies served by `run_proxy` between this repo's example clients and agents, over real pipes.

The client runs the conductor (`python -m acp_runtime.conductor`) as its agent command.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
PEERS = Path(__file__).parent / "peers"
PYTHON = sys.executable
CLIENT, WATCH = str(ROOT / "examples" / "client.py"), str(ROOT / "examples" / "watch_client.py")
ECHO, TIDY = str(ROOT / "examples" / "echo_agent.py"), str(ROOT / "examples" / "tidy_agent.py")


CONDUCTOR = [PYTHON, "-m", "acp_runtime.conductor"]


def chain(proxy: str, *args: str, hops: int = 1) -> list[str]:
    """The agent command of a client: the conductor with `hops` of this proxy, the agent's
    command to follow."""
    return [
        *CONDUCTOR,
        *(arg for _ in range(hops) for arg in ("--", PYTHON, str(PEERS / proxy), *args)),
        "--",
    ]


def run(
    command: list[str], cwd: Path | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=30)


def tidy(
    tmp_path: Path, agent: list[str], *args: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    (tmp_path / "x.py").write_text("a = 1   \nb = 2\t\n")
    command = [PYTHON, WATCH, *args, "--prompt", "x.py", "--", *agent, PYTHON, TIDY]
    return run(command, cwd=tmp_path, stdin=stdin)


def recorded(path: Path) -> list[object]:
    """What the client received, in order, ids aside: JSON-RPC ids dropped, and the ids the agent
    draws afresh each run (`sessionId`, `toolCallId`, ...) numbered in order of first use."""
    seen: dict[str, str] = {}

    def tame(value: object, key: str = "") -> object:
        if isinstance(value, dict):
            return {k: tame(v, k) for k, v in value.items() if k != "id" or key}
        if isinstance(value, list):
            return [tame(v) for v in value]
        if isinstance(value, str) and key.endswith("Id"):
            return seen.setdefault(value, f"<{key} {len(seen)}>")
        return value

    return [tame(json.loads(line)) for line in path.read_bytes().splitlines()]


@pytest.mark.parametrize("answer", ["--yes", "refuse"])
def test_the_tidy_turn_through_two_pass_through_proxies_shows_the_client_what_it_shows_direct(
    tmp_path: Path, answer: str
) -> None:
    args, stdin = (["--yes"], "") if answer == "--yes" else ([], "n\n")
    seen = [tmp_path / "direct.jsonl", tmp_path / "through.jsonl"]
    record = [[PYTHON, str(PEERS / "record.py"), str(path), "--"] for path in seen]
    direct = tidy(tmp_path, record[0], *args, stdin=stdin)
    direct_file = (tmp_path / "x.py").read_text()
    through = tidy(tmp_path, [*record[1], *chain("pass_proxy.py", "1", hops=2)], *args, stdin=stdin)
    assert direct.returncode == through.returncode == 0, through.stderr
    assert recorded(seen[1]) == recorded(seen[0])
    assert len(recorded(seen[0])) >= 10  # the whole turn: plan, read, permission, write(, terminal)
    assert (tmp_path / "x.py").read_text() == direct_file
    assert through.stdout.splitlines()[-1] == "stop: end_turn"
    assert ("allowed: Tidy x.py" in through.stdout) == (answer == "--yes")


@pytest.mark.parametrize("version", ["1", "2"])
def test_the_echo_turn_through_a_pass_through_proxy_is_the_direct_one(version: str) -> None:
    base = [PYTHON, CLIENT, "--protocol-version", version, "--prompt", "hello, agent", "--"]
    direct = run([*base, PYTHON, ECHO])
    through = run([*base, *chain("pass_proxy.py", version), PYTHON, ECHO])
    assert through.returncode == 0, through.stderr
    assert (
        through.stdout == direct.stdout == "agent: echo-agent 0.1.0\nhello, agent\nstop: end_turn\n"
    )


@pytest.mark.parametrize(
    ("version", "shown"), [("1", "[CONTEXT] HELLO, AGENT"), ("2", "[context] hello, agent")]
)
def test_a_typed_proxy_changes_the_prompt_and_on_v1_the_agent_text(
    version: str, shown: str
) -> None:
    base = [PYTHON, CLIENT, "--protocol-version", version, "--prompt", "hello, agent", "--"]
    result = run([*base, *chain("typed_proxy.py", version), PYTHON, ECHO])
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"agent: echo-agent 0.1.0\n{shown}\nstop: end_turn\n"


def test_a_proxy_that_answers_permission_itself_keeps_the_file_and_asks_no_one(
    tmp_path: Path,
) -> None:
    result = tidy(tmp_path, chain("typed_proxy.py", "1", "refuse"), "--yes")
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "x.py").read_text() == "a = 1   \nb = 2\t\n"
    assert "allowed: Tidy x.py" not in result.stdout
    assert "   tool: Tidy x.py [failed] diff" in result.stdout
