"""Third-party peers (npm, pinned in tests/interop/package.json and its lock) with our conductor.

The official TypeScript SDK 2.4.0 on either end of a chain of two pass-through proxies: the interop
scenario of tests/interop/scenario.md gives the report it gives direct
(tests/interop/test_typescript_sdk.py). acpx, a third-party client, drives the tidy turn through
examples/context_proxy.py and examples/policy_proxy.py.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path
from typing import Any

from tests.interop.scenario import HERE, PYTHON, expected, node_peer, require, run_scenario

PASS = [PYTHON, str(Path(__file__).parent / "peers" / "pass_proxy.py"), "1"]
CHAIN = [PYTHON, "-m", "acp_runtime.conductor", "--", *PASS, "--", *PASS, "--"]


async def test_the_typescript_sdk_agent_behind_two_proxies_gives_the_direct_report(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "file.txt")
    report = await run_scenario([*CHAIN, *node_peer("ts_agent.mjs")], path)
    assert report == expected("ts-interop-agent", path)


def test_the_typescript_sdk_client_through_the_conductor_gives_the_direct_report(
    tmp_path: Path,
) -> None:
    path = str(tmp_path / "file.txt")
    agent = [*CHAIN, PYTHON, str(HERE / "runtime_agent.py")]
    command = [*node_peer("ts_client.mjs"), path, *agent]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == expected("acp-runtime-interop-agent", path)


ACPX = HERE / "node_modules" / "acpx" / "dist" / "cli.js"
EXAMPLES = Path(__file__).parents[2] / "examples"


def acpx_tidy(tmp_path: Path, *policy: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """acpx (npm, pinned in tests/interop) runs the tidy turn on x.py, approving every request,
    through the conductor with the context proxy and the policy proxy: what acpx saw (its JSON
    events) and what the agent was sent (the conductor's trace)."""
    node = shutil.which("node")
    require(node is not None and ACPX.is_file(), "node and npm package acpx (tests/interop)")
    work, home = tmp_path / "w", tmp_path / "home"
    work.mkdir(exist_ok=True)
    home.mkdir(exist_ok=True)
    (work / "x.py").write_text("a = 1   \nb = 2\t\n")
    trace = tmp_path / "trace.jsonl"
    context = [PYTHON, str(EXAMPLES / "context_proxy.py"), "--text", "Keep it short."]
    chain = [PYTHON, "-m", "acp_runtime.conductor", "--trace", str(trace), "--", *context]
    chain += ["--", PYTHON, str(EXAMPLES / "policy_proxy.py"), "--log", str(tmp_path / "log")]
    chain += [*policy, "--", PYTHON, str(EXAMPLES / "tidy_agent.py")]
    command = [str(node), str(ACPX), "--agent", shlex.join(chain), "--cwd", str(work)]
    command += ["--approve-all", "--format", "json", "--ttl", "1", "exec", "x.py"]
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "NO_COLOR": "1"}
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    seen = [json.loads(line) for line in result.stdout.splitlines() if line.strip()]
    sent = [json.loads(line)["message"] for line in trace.read_text().splitlines()]
    return seen, [m for m in sent if m.get("method") == "session/prompt"]


def test_acpx_runs_the_tidy_turn_through_the_context_and_policy_examples(tmp_path: Path) -> None:
    seen, prompts = acpx_tidy(tmp_path)
    assert (tmp_path / "w" / "x.py").read_text() == "a = 1\nb = 2\n"  # allowed: tidied
    assert "session/request_permission" in [m.get("method") for m in seen]
    assert seen[-1]["result"] == {"stopReason": "end_turn"}
    texts = [[b["text"] for b in p["params"]["prompt"]] for p in prompts]
    # the client's, then as sent to proxy 1 (the context proxy), proxy 2 and the agent
    assert texts == [["x.py"]] * 2 + [["x.py", "Keep it short."]] * 2
    log = (tmp_path / "log").read_text().splitlines()
    assert [line.split()[-1] for line in log if " Tidy x.py" in line][-1] == "[completed]"


def test_acpx_never_sees_a_permission_request_the_policy_refuses(tmp_path: Path) -> None:
    seen, _ = acpx_tidy(tmp_path, "--refuse", "^Tidy ")
    assert (tmp_path / "w" / "x.py").read_text() == "a = 1   \nb = 2\t\n"  # refused: unchanged
    assert "session/request_permission" not in [m.get("method") for m in seen]
    assert "refused: Tidy x.py" in (tmp_path / "log").read_text().splitlines()
    assert seen[-1]["result"] == {"stopReason": "end_turn"}
