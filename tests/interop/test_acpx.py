"""acpx (npm, pinned in package.json), a third-party ACP client, drives examples/notes_agent.py:
its sessions in the sqlite file outlive each agent process acpx starts, it loads them (the agent
offers load only), lists them with a cwd filter and a cursor, and reads -32002 for an unknown id."""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

from .scenario import HERE, PYTHON, require

NOTES = HERE.parents[1] / "examples" / "notes_agent.py"
ACPX = HERE / "node_modules" / "acpx" / "dist" / "cli.js"


class Acpx:
    """acpx with a home of its own (its session records and queue locks live in ~/.acpx)."""

    def __init__(self, tmp: Path) -> None:
        node = shutil.which("node")
        require(node is not None, "node")
        require(ACPX.is_file(), "npm package acpx (npm ci in tests/interop)")
        self.node, self.home = str(node), tmp / "home"
        self.home.mkdir()
        agent = [PYTHON, str(NOTES), "--db", str(tmp / "notes.sqlite"), "--page-size", "1"]
        self.agent = shlex.join([*agent, "--no-resume"])

    def run(self, cwd: Path, *args: str, ok: bool = True) -> subprocess.CompletedProcess[str]:
        env = {"PATH": os.environ["PATH"], "HOME": str(self.home), "NO_COLOR": "1"}
        command = [self.node, str(ACPX), "--agent", self.agent, "--cwd", str(cwd), "--ttl", "1"]
        result = subprocess.run(
            [*command, *args], env=env, capture_output=True, text=True, timeout=60
        )
        assert (result.returncode == 0) == ok, (args, result.stdout, result.stderr)
        return result

    def json(self, cwd: Path, *args: str) -> Any:
        return json.loads(self.run(cwd, "--format", "json", *args).stdout)

    def idle(self) -> None:
        """Until the queue owner acpx left behind (and the agent it runs) is gone: the next
        command starts the agent again."""
        deadline = time.monotonic() + 30
        while list((self.home / ".acpx" / "queues").glob("*.lock")):
            assert time.monotonic() < deadline, "acpx's queue owner did not exit"
            time.sleep(0.2)


def messages(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_acpx_loads_lists_and_prompts_sessions_kept_across_agent_restarts(tmp_path: Path) -> None:
    acpx, a, b = Acpx(tmp_path), tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    milk = acpx.run(a, "sessions", "new").stdout.strip()  # one agent process: session/new
    assert acpx.run(a, "prompt", "remember milk").stdout.count("Noted: milk.") == 1
    acpx.idle()

    sent = messages(acpx.run(a, "--format", "json", "prompt", "what do you remember?").stdout)
    methods = [m.get("method") for m in sent]
    assert methods[:3] == ["initialize", None, "session/load"], methods  # a new agent: it loads
    load = sent[2]
    assert load["params"]["sessionId"] == milk
    assert {"jsonrpc": "2.0", "id": load["id"], "result": {}} in sent
    updates = [m["params"]["update"] for m in sent if m.get("method") == "session/update"]
    said = [u["content"]["text"] for u in updates if u["sessionUpdate"] == "agent_message_chunk"]
    assert "".join(said).endswith("You asked me to remember: milk.")  # kept across restarts

    keys = acpx.run(b, "sessions", "new").stdout.strip()
    first = acpx.json(b, "sessions", "list")  # a page is one session here: newest first
    assert [s["sessionId"] for s in first["sessions"]] == [keys]
    second = acpx.json(b, "sessions", "list", "--cursor", first["nextCursor"])
    assert [(s["sessionId"], s["title"]) for s in second["sessions"]] == [(milk, "remember milk")]
    assert "nextCursor" not in second
    only_a = acpx.json(b, "sessions", "list", "--filter-cwd", str(a))
    assert [s["sessionId"] for s in only_a["sessions"]] == [milk] and "nextCursor" not in only_a

    resume = ("sessions", "new", "--resume-session", "notes-gone")
    gone = acpx.run(a, "--format", "json", *resume, ok=False)
    error = messages(gone.stdout)[-1]["error"]  # acpx reads -32002 as its NO_SESSION
    assert (error["code"], error["data"]["acpxCode"]) == (-32002, "NO_SESSION"), error
    assert error["message"] == "no session 'notes-gone'"  # the agent's own message
    acpx.idle()  # nothing acpx started outlives the test
