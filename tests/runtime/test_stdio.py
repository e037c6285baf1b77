"""stdio: an agent's stdout carries protocol only; a spawned agent is watched, shut down, reaped."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

import acp_schema as acp
from acp_runtime import ConnectionClosedError, spawn_agent

from .bounded import within
from .helpers import Client, initialize_request

PEERS = Path(__file__).parent / "peers"
EXAMPLES = Path(__file__).parents[2] / "examples"
PYTHON = sys.executable


def lines_of(*messages: dict) -> bytes:
    return b"".join(json.dumps(m).encode() + b"\n" for m in messages)


INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}
NEW = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "session/new",
    "params": {"cwd": "/tmp", "mcpServers": []},
}


async def test_nothing_but_protocol_messages_reaches_an_agents_stdout() -> None:
    env = {
        k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"
    }  # else the print at import is gone
    process = await asyncio.create_subprocess_exec(
        PYTHON,
        str(PEERS / "noisy_agent.py"),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    out, err = await process.communicate(lines_of(INIT, NEW))
    lines = out.splitlines()
    messages = [json.loads(line) for line in lines[:2]]
    assert [m["id"] for m in messages] == [0, 1] and all("result" in m for m in messages)
    assert lines[2:] == [b"noise: print after the agent stopped"]
    for noise in (
        b"print at import",
        b"print in a handler",
        b"logging to sys.stdout",
        b"os.write to fd 1",
        b"child process",
        b"session/new",
        b"without newline",
    ):
        assert noise in err, noise
    assert process.returncode == 0


async def test_an_agent_reads_stdin_from_a_file_and_writes_stdout_to_a_file(tmp_path) -> None:
    requests = tmp_path / "in.jsonl"
    answers = tmp_path / "out.jsonl"
    prompt = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "session/prompt",
        "params": {"sessionId": "x", "prompt": [{"type": "text", "text": "hi"}]},
    }
    requests.write_bytes(lines_of(INIT, NEW, prompt))
    with requests.open("rb") as stdin, answers.open("wb") as stdout:
        process = await asyncio.create_subprocess_exec(
            PYTHON, str(EXAMPLES / "echo_agent.py"), stdin=stdin, stdout=stdout
        )
        assert await process.wait() == 0
    messages = [json.loads(line) for line in answers.read_bytes().splitlines()]
    assert [m.get("id", m.get("method")) for m in messages] == [0, 1, "session/update", 2]
    assert messages[3]["result"] == {"stopReason": "end_turn"}


async def test_an_agent_whose_stdin_is_dev_null_exits_at_once() -> None:
    # /dev/null is a character device that epoll refuses (EPERM): read as a file, it is at EOF
    process = await asyncio.create_subprocess_exec(
        PYTHON,
        str(EXAMPLES / "echo_agent.py"),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await within(process.communicate(), "the agent did not end at stdin's EOF", 20)
    finally:
        if process.returncode is None:
            process.kill()
            await process.wait()
    assert (process.returncode, out) == (0, b""), err


async def test_an_agent_writes_its_answers_to_dev_null_and_ends(tmp_path) -> None:
    requests = tmp_path / "in.jsonl"
    requests.write_bytes(lines_of(INIT, NEW))
    with requests.open("rb") as stdin:
        process = await asyncio.create_subprocess_exec(
            PYTHON,
            str(EXAMPLES / "echo_agent.py"),
            stdin=stdin,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await within(process.communicate(), "the agent did not end", 20)
    assert process.returncode == 0, err


async def test_pending_calls_fail_at_once_when_the_agent_process_dies() -> None:
    async with spawn_agent(Client(), PYTHON, str(PEERS / "dying_agent.py")) as conn:
        await conn.agent.initialize(initialize_request())
        with pytest.raises(ConnectionClosedError, match="exited with code 3"):
            await conn.agent.session_new(acp.NewSessionRequest(cwd="/tmp", mcp_servers=[]))
        with pytest.raises(ConnectionClosedError):
            await conn.request("_ping", {})
    assert conn.process.returncode == 3


async def test_a_dead_agent_whose_stdout_stays_open_still_fails_pending_calls(
    tmp_path: Path,
) -> None:
    """A child of the agent keeps its stdout open until the test lets it go, so no end of input
    can fail the call: only the runtime watching the agent process can."""
    hold = tmp_path / "hold"
    os.mkfifo(hold)
    command = f'cat "{hold}" >/dev/null & exec {PYTHON} {PEERS / "dying_agent.py"}'
    try:
        async with spawn_agent(Client(), "sh", "-c", command) as conn:
            await conn.agent.initialize(initialize_request())
            with pytest.raises(ConnectionClosedError, match="exited with code 3"):
                # hangs if the process is not watched: a bound that says so, not a speed claim
                call = conn.agent.session_new(acp.NewSessionRequest(cwd="/tmp", mcp_servers=[]))
                await within(call, "the agent process exited, the pending call did not fail", 10)
    finally:
        try:  # the child's cat reads end of input and exits, closing the agent's stdout
            os.close(os.open(hold, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:  # no reader left: nothing holds the stdout
            pass


async def test_an_agent_that_ignores_eof_and_sigterm_is_killed_and_reaped() -> None:
    async with spawn_agent(
        Client(), PYTHON, str(PEERS / "stubborn_agent.py"), shutdown_timeout=0.3
    ) as conn:
        await conn.agent.initialize(initialize_request())
        process = conn.process
    assert process.returncode == -9


async def test_a_well_behaved_agent_exits_by_itself_on_eof() -> None:
    async with spawn_agent(
        Client(), PYTHON, str(EXAMPLES / "echo_agent.py"), shutdown_timeout=5
    ) as conn:
        await conn.agent.initialize(initialize_request())
        process = conn.process
    assert process.returncode == 0


async def test_agent_stderr_can_be_captured() -> None:
    async with spawn_agent(
        Client(), PYTHON, str(PEERS / "noisy_agent.py"), stderr=asyncio.subprocess.PIPE
    ) as conn:
        await conn.agent.initialize(initialize_request())
        await conn.agent.session_new(acp.NewSessionRequest(cwd="/tmp", mcp_servers=[]))
    assert b"noise: print in a handler" in conn.stderr_tail


async def test_spawning_a_missing_command_raises_at_once() -> None:
    with pytest.raises(FileNotFoundError):
        async with spawn_agent(Client(), "/nonexistent/agent"):
            pass
