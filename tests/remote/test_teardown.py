"""spawn_agent leaves nothing of an agent's process tree running, wrappers included."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import acp_schema as acp
from acp_runtime import spawn_agent

WRAPPER = Path(__file__).parent / "peers" / "wrapper.sh"
ENV = {**os.environ, "ACP_TEST_PYTHON": sys.executable}


class Client(acp.ClientHandler):
    pass


def running(pid: int) -> bool:
    """Whether `pid` is a live process (a zombie waiting for init to reap it is not)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except FileNotFoundError:
        return False
    return stat[stat.rindex(b")") + 2 : stat.rindex(b")") + 3] not in (b"Z", b"X")


async def read_pid(fifo: Path) -> int:
    """The pid the agent writes into `fifo` once it runs (opening a fifo blocks: a thread waits)."""
    return int(await asyncio.get_running_loop().run_in_executor(None, fifo.read_text))


def make_fifo(tmp_path: Path) -> Path:
    fifo = tmp_path / "pid"
    os.mkfifo(fifo)
    return fifo


async def test_the_agent_behind_a_waiting_wrapper_is_stopped_when_it_ignores_stdin_eof(
    tmp_path,
) -> None:
    fifo = make_fifo(tmp_path)
    async with spawn_agent(
        Client(), str(WRAPPER), "wait", str(fifo), env=ENV, shutdown_timeout=0.2
    ) as conn:
        agent_pid = await read_pid(fifo)
        init = await conn.agent.initialize(acp.InitializeRequest(protocol_version=1))
        assert init.protocol_version == 1
        wrapper_pid = conn.process.pid
    assert not running(agent_pid)
    assert not running(wrapper_pid)


async def test_an_agent_that_also_ignores_sigterm_is_killed(tmp_path) -> None:
    fifo = make_fifo(tmp_path)
    async with spawn_agent(
        Client(), str(WRAPPER), "wait", str(fifo), "--ignore-term", env=ENV, shutdown_timeout=0.2
    ):
        agent_pid = await read_pid(fifo)
        assert running(agent_pid)
    assert not running(agent_pid)


async def test_the_agent_of_a_wrapper_that_exited_first_is_stopped(tmp_path) -> None:
    fifo = make_fifo(tmp_path)
    async with spawn_agent(
        Client(), str(WRAPPER), "leave", str(fifo), env=ENV, shutdown_timeout=0.2
    ) as conn:
        agent_pid = await read_pid(fifo)
        assert await conn.process.wait() == 0  # the wrapper is gone, its child lives on
        assert running(agent_pid)
    assert not running(agent_pid)


async def test_an_agent_that_exits_on_eof_is_not_signalled(tmp_path) -> None:
    script = tmp_path / "agent.py"
    script.write_text(
        "import signal, sys\n"
        "signal.signal(signal.SIGTERM, lambda *a: sys.exit(99))\n"
        "sys.stdin.read()\n"
    )
    async with spawn_agent(Client(), sys.executable, str(script), shutdown_timeout=5) as conn:
        pass
    assert conn.process.returncode == 0
