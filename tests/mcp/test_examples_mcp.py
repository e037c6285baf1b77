"""The examples' MCP over ACP: examples/watch_client.py offers its `notes` server (written with the
official `mcp` SDK) to examples/tidy_agent.py, which advertises `mcpCapabilities.acp` and leaves a
note through it before its turn ends."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
TIDY = str(ROOT / "examples" / "tidy_agent.py")
WATCH = str(ROOT / "examples" / "watch_client.py")
ECHO = str(ROOT / "examples" / "echo_agent.py")


def _watch(tmp_path: Path, agent: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "x.py").write_text("a = 1   \nb = 2\t\n")
    command = [sys.executable, WATCH, "--yes", "--prompt", "x.py", "--", sys.executable, agent]
    return subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=60)


def test_the_tidy_agent_leaves_a_note_with_the_watch_clients_own_mcp_tool(tmp_path: Path) -> None:
    result = _watch(tmp_path, TIDY)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    # called over mcp/message once the check ran, before the turn's last plan update
    assert lines[-4:] == [
        "   note: tidied x.py",
        "   plan: [x] Read x.py  [x] Strip trailing whitespace  [x] Check with wc",
        f"   agent: Done: wc exited 0: 2 {tmp_path / 'x.py'}",
        "stop: end_turn",
    ]
    assert (tmp_path / "x.py").read_text() == "a = 1\nb = 2\n"


def test_an_agent_without_mcp_capabilities_acp_is_offered_no_server(tmp_path: Path) -> None:
    # the echo agent advertises no `acp` servers: the client's guard would refuse the offer, so
    # the watch client makes none, and the turn goes as before
    result = _watch(tmp_path, ECHO)
    assert result.returncode == 0, result.stderr
    assert "note:" not in result.stdout and result.stdout.splitlines()[-1] == "stop: end_turn"
