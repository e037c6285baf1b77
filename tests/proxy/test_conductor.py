"""The conductor (`python -m acp_runtime.conductor`) with real components over pipes: cancel,
teardown when any part goes, nesting, the trace, the two examples, bad input."""

from __future__ import annotations

import asyncio
import json
import os
import shlex
import signal
import subprocess
import sys
from pathlib import Path

import pytest

import acp_schema as acp
from acp_runtime import spawn_agent

ROOT = Path(__file__).parents[2]
PEERS = Path(__file__).parent / "peers"
PYTHON = sys.executable
EXAMPLES = ROOT / "examples"
ECHO, TIDY = str(EXAMPLES / "echo_agent.py"), str(EXAMPLES / "tidy_agent.py")
PASS = [PYTHON, str(PEERS / "pass_proxy.py"), "1"]
CONDUCTOR = [PYTHON, "-m", "acp_runtime.conductor"]


def conductor(*components: list[str], options: tuple[str, ...] = ()) -> list[str]:
    return [*CONDUCTOR, *options, *(arg for c in components for arg in ("--", *c))]


def running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie is not); as tests/remote/test_teardown.py."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except FileNotFoundError:
        return False
    return stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3] not in (b"Z", b"X")


def children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children") as f:
        return [int(p) for p in f.read().split()]


class Client(acp.ClientHandler):
    """Counts the updates and says when the first one came."""

    def __init__(self) -> None:
        self.updates = 0
        self.first = asyncio.Event()

    async def session_update(self, params: acp.SessionNotification) -> None:
        self.updates += 1
        self.first.set()


Turn = tuple[str, "asyncio.Future[acp.PromptResponse]"]


async def open_turn(agent: acp.AgentProxy, client: Client, blocks: int) -> Turn:
    """Initialize, make a session and start a prompt of `blocks` text blocks; returns once the
    first update came back through the whole chain."""
    await agent.initialize(acp.InitializeRequest(protocol_version=1))
    session = await agent.session_new(acp.NewSessionRequest(cwd=str(ROOT), mcp_servers=[]))
    prompt = [acp.TextContent(text=str(i)) for i in range(blocks)]
    turn = asyncio.ensure_future(
        agent.session_prompt(acp.PromptRequest(session_id=session.session_id, prompt=prompt))
    )
    await asyncio.wait_for(client.first.wait(), 20)
    return session.session_id, turn


async def test_a_cancel_mid_turn_ends_the_turn_cancelled_through_two_proxies() -> None:
    client = Client()
    command = conductor(PASS, PASS, [PYTHON, ECHO, "--delay", "0.05"])
    async with spawn_agent(client, *command) as conn:
        session_id, turn = await open_turn(conn.agent, client, 200)
        await conn.agent.session_cancel(acp.CancelNotification(session_id=session_id))
        answer = await asyncio.wait_for(turn, 20)
    assert answer.stop_reason == acp.StopReason.CANCELLED
    assert 1 <= client.updates < 200  # the turn ended early


@pytest.mark.parametrize("victim", [0, 1, 2])
async def test_killing_any_component_ends_the_chain_in_bounded_time_with_no_orphan(
    victim: int,
) -> None:
    client = Client()
    command = conductor(
        PASS, PASS, [PYTHON, ECHO, "--delay", "0.05"], options=("--shutdown-timeout", "0.5")
    )
    async with spawn_agent(client, *command) as conn:
        _, turn = await open_turn(conn.agent, client, 200)
        pids = children(conn.process.pid)
        assert len(pids) == 3
        os.kill(pids[victim], signal.SIGKILL)
        with pytest.raises(acp.RpcError) as failed:
            await asyncio.wait_for(turn, 10)
        assert await asyncio.wait_for(conn.process.wait(), 10) == 1
    label = ["proxy 1", "proxy 2", "agent"][victim]
    assert f"proxy chain ended: the {label} (" in failed.value.message
    assert "exited with code -9; session/prompt got no answer" in failed.value.message
    assert not any(running(pid) for pid in pids)


async def test_the_client_leaving_mid_turn_stops_every_component() -> None:
    client = Client()
    async with spawn_agent(
        client, *conductor(PASS, PASS, [PYTHON, ECHO, "--delay", "0.05"])
    ) as conn:
        await open_turn(conn.agent, client, 200)
        pids, conductor_pid = children(conn.process.pid), conn.process.pid
    assert len(pids) == 3 and not any(running(pid) for pid in [conductor_pid, *pids])


def run(
    command: list[str], cwd: Path | None = None, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(command, cwd=cwd, input=stdin, capture_output=True, text=True, timeout=30)


def test_a_conductor_runs_as_a_proxy_inside_another_chain() -> None:
    base = [PYTHON, str(EXAMPLES / "client.py"), "--prompt", "hello, agent", "--"]
    # given proxy/initialize, both its components are proxies; one shell word keeps its `--`
    inner = ["sh", "-c", "exec " + shlex.join(conductor(PASS, PASS))]
    result = run([*base, *conductor(inner, PASS, [PYTHON, ECHO])])
    assert result.returncode == 0, result.stderr
    assert result.stdout == "agent: echo-agent 0.1.0\nhello, agent\nstop: end_turn\n"


def test_the_examples_under_the_conductor_add_context_log_tool_calls_and_refuse_by_pattern(
    tmp_path: Path,
) -> None:
    (tmp_path / "x.py").write_text("a = 1   \nb = 2\t\n")
    trace, log = tmp_path / "trace.jsonl", tmp_path / "policy.log"
    context = [PYTHON, str(EXAMPLES / "context_proxy.py"), "--text", "Keep it short."]
    policy = [PYTHON, str(EXAMPLES / "policy_proxy.py"), "--refuse", "^Tidy ", "--log", str(log)]
    chain = conductor(context, policy, [PYTHON, TIDY], options=("--trace", str(trace)))
    watch = [PYTHON, str(EXAMPLES / "watch_client.py"), "--yes", "--prompt", "x.py", "--"]
    result = run([*watch, *chain], cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "x.py").read_text() == "a = 1   \nb = 2\t\n"  # refused by the policy
    assert "allowed: Tidy x.py" not in result.stdout  # the client was never asked
    assert "   tool: Tidy x.py [failed] diff" in result.stdout
    lines = log.read_text().splitlines()
    assert "refused: Tidy x.py" in lines
    assert any(
        line.startswith("tool ") and line.endswith(" Read x.py [completed]") for line in lines
    )
    entries = [json.loads(line) for line in trace.read_text().splitlines()]
    assert {e["direction"] for e in entries} == {"in", "out"}
    assert {e["hop"] for e in entries} == {"client", "proxy 1", "proxy 2", "agent"}
    prompts = [
        e["message"]["params"]["prompt"]
        for e in entries
        if e["hop"] == "agent" and e["message"].get("method") == "session/prompt"
    ]
    assert prompts == [
        [{"type": "text", "text": "x.py"}, {"type": "text", "text": "Keep it short."}]
    ]
    assert all(isinstance(e["time"], float) for e in entries)


def test_bad_input_from_the_client_gets_an_error_naming_it_and_the_chain_goes_on() -> None:
    lines = [
        b"{not json",
        json.dumps({"jsonrpc": "2.0", "id": 1, "method": 5}).encode(),
        json.dumps({"jsonrpc": "2.0", "id": 2, "method": "proxy/successor", "params": 3}).encode(),
        json.dumps(
            {"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": 1}}
        ).encode(),
    ]
    proc = subprocess.Popen(
        conductor(PASS, [PYTHON, ECHO]), stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b"\n".join(lines) + b"\n")
    proc.stdin.flush()
    answers = [json.loads(proc.stdout.readline()) for _ in lines]
    proc.stdin.close()
    assert proc.wait(timeout=10) == 0
    assert [a["id"] for a in answers] == [None, 1, 2, 3]
    assert (
        answers[0]["error"]["code"] == -32700
        and "not a JSON-RPC message" in answers[0]["error"]["message"]
    )
    assert answers[1]["error"] == {
        "code": -32600,
        "message": "Invalid request: method is not a string",
    }
    assert (
        answers[2]["error"]["code"] == -32600
        and "proxy/successor" in answers[2]["error"]["message"]
    )
    assert answers[3]["result"]["agentInfo"]["name"] == "echo-agent"


def test_a_command_that_cannot_start_is_named_and_nothing_is_left_running() -> None:
    proc = run(conductor(PASS, ["/nonexistent/agent"]))
    assert proc.returncode == 2
    assert proc.stderr.startswith("conductor: cannot start the agent (/nonexistent/agent): ")


def test_a_missing_command_is_a_usage_error() -> None:
    proc = run([*CONDUCTOR, "--", *PASS, "--"])
    assert proc.returncode == 2 and "component 2 has no command" in proc.stderr


def test_a_trace_file_that_cannot_be_written_is_named_and_nothing_is_started(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "started"
    proc = run(conductor(["touch", str(marker)], options=("--trace", str(tmp_path / "no" / "t"))))
    assert proc.returncode == 2 and not marker.exists()
    assert proc.stderr.startswith(f"conductor: cannot write the trace {tmp_path / 'no' / 't'}: ")
