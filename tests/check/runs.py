"""Running `acpgen check` in-process on many agents at once (they mostly wait on each other, so
the zoo and the examples run concurrently in one event loop)."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

from acpgen.check.model import FAIL, INFO, NOT_EXERCISED, WARN, Run
from acpgen.check.runner import run_agent_checks, selector
from acpgen.check.schemas import default_package

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
ZOO = HERE / "zoo"
PYTHON = sys.executable
TIMEOUT = 6.0  # the zoo's agents start in milliseconds, some hang on purpose; a loaded machine
SLOW_START = 15.0  # agents importing a runtime, on a loaded machine


def run_all(
    targets: dict[str, tuple[list[str], list[int]]],
    timeout: float = TIMEOUT,
    auth_method: str | None = None,
) -> dict[str, Run]:
    packages = {1: default_package(1), 2: default_package(2)}

    async def one(argv: list[str], versions: list[int]) -> Run:
        return await run_agent_checks(
            argv,
            packages,
            versions,
            timeout,
            selector([], []),
            lambda _line: None,
            auth_method=auth_method,
        )

    async def every() -> list[Run]:
        return list(await asyncio.gather(*(one(a, v) for a, v in targets.values())))

    return dict(zip(targets, asyncio.run(every()), strict=True))


# the runtime refuses v2 batches (as the npm 2.4.0 v2 schema and the Rust SDK 5.0 do): information
REFUSED_BATCH = {("rpc.batch", "ACPGEN-V2-BATCH", INFO)}


def findings(run: Run) -> set[tuple[str, str, str]]:
    """(check, requirement, outcome) of every check that did not pass and was exercised."""
    return {
        (r.check, r.requirement, r.outcome) for r in run.results if r.outcome in (FAIL, WARN, INFO)
    }


def not_exercised(run: Run) -> set[str]:
    return {r.check for r in run.results if r.outcome == NOT_EXERCISED}


@contextlib.contextmanager
def serving(command: list[str]) -> Iterator[str]:
    """Run a server that prints `serving http://HOST:PORT/acp` once it listens; its URL."""
    server = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line.startswith("serving http://"), line
        yield line.split(" ", 1)[1].strip()
    finally:
        server.terminate()
        server.wait(10)
