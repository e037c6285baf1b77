"""`acpgen check` against hostile agents (issue 40, item 4): what it keeps of an agent's output
is bounded (a flood is a finding, transport.bounded), the agent's whole process group is gone
when the run ends, and the run exits without "Event loop is closed" tracebacks. Each run is a
subprocess whose peak resident memory is its own high-water mark (VmHWM in /proc/PID/status),
read while it runs. wait4()'s ru_maxrss is not that: a child spawned by vfork counts the pytest
worker's memory at the exec (737 MiB once a worker had run mypy), whatever the checker uses."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from .runs import HERE, PYTHON

HOSTILE = HERE / "hostile"
MEMORY = 400 << 20  # the checker's peak resident set against a flood (it held 2 GiB before)


@pytest.mark.parametrize("agent", ["floods_updates", "floods_line"])
def test_a_flood_is_a_finding_and_memory_stays_bounded(agent: str) -> None:
    _, out, err, _ = _run_measured([PYTHON, str(HOSTILE / f"{agent}.py")])
    assert "warn v1 transport.bounded" in out, out
    assert "the checker stopped reading" in out or "longer than" in out or "more than" in out
    assert "Traceback" not in err and "Event loop is closed" not in err, err


def _run_measured(agent: list[str], env: dict[str, str] | None = None) -> tuple[int, str, str, int]:
    """As _check, with the checker's peak RSS asserted under MEMORY."""
    command = [PYTHON, "-m", "acpgen", "check", "--quiet", "--timeout", "5"]
    command += ["--protocol-version", "1", "--", *agent]
    process = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )
    assert process.stdout is not None and process.stderr is not None
    out, err, peak = b"", b"", 0
    deadline = time.monotonic() + 120
    os.set_blocking(process.stdout.fileno(), False)
    os.set_blocking(process.stderr.fileno(), False)
    while True:
        out += process.stdout.read() or b""
        err += process.stderr.read() or b""
        peak = max(peak, _high_water(process.pid))
        pid, status = os.waitpid(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            process.kill()
            pytest.fail("acpgen check ran over 120 s")
        time.sleep(0.02)
    out += process.stdout.read() or b""
    err += process.stderr.read() or b""
    process.returncode = os.waitstatus_to_exitcode(status)
    assert peak, "no VmHWM was read while the checker ran"
    assert peak < MEMORY, f"peak RSS {peak >> 20} MiB"
    return process.returncode, out.decode(), err.decode(), peak


def _high_water(pid: int) -> int:
    """The process's peak resident set so far, in bytes (0 once it has exited)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024  # kB
    return 0  # a zombie has no memory left to report


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its reaper is not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def test_the_agents_grandchildren_are_gone_when_the_run_ends(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    env = {"ACPGEN_CHECK_PIDS": str(pids)}
    code, out, err, _ = _run_measured([PYTHON, str(HOSTILE / "grandchildren.py")], env)
    assert code == 0, out + err
    started = [int(p) for p in pids.read_text().split()]
    assert len(started) >= 4  # two for each of the connections, at least
    left = [pid for pid in started if _alive(pid)]
    for pid in left:  # leave nothing behind, whatever the outcome
        os.kill(pid, 9)
    assert left == []
    assert "Traceback" not in err and "Event loop is closed" not in err, err
