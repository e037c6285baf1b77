"""`acpgen check --client` on real clients (issue 38): acpx 0.15.1 (npm, a third-party ACP client)
and a client on the official TypeScript SDK 2.4.0's client API (tests/interop/ts_echo_client.mjs;
the SDK's npm package ships no example client), both pinned in tests/interop/package.json and
package-lock.json and installed by `make test`. Each passes on the version it speaks; played a
version it does not speak, each quits, and gets the one fair finding, cited: a warning of
ACP-V1-INIT-CLIENT-UNSUPPORTED-VERSION when it quits mid-turn, a pass when it closes the
connection after initialize and says why on stderr. The run ends when the client closes its
connection (it once waited 3 x --timeout for the client's exit), with no traceback or asyncio
log on stderr."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from acpgen.check.client_mode import CLIENT_CHECKS, run_client_checks
from acpgen.check.model import PASS, WARN, Run
from acpgen.check.runner import selector
from acpgen.check.schemas import default_package

from ..interop.scenario import node_peer, require
from .runs import PYTHON, SLOW_START, findings, not_exercised

INTEROP = Path(__file__).parents[1] / "interop"
ACPX = INTEROP / "node_modules" / "acpx" / "dist" / "cli.js"
UNSUPPORTED = "ACP-V1-INIT-CLIENT-UNSUPPORTED-VERSION"
PACKAGES = {1: default_package(1), 2: default_package(2)}


def _acpx(home: Path) -> list[str]:
    node = shutil.which("node")
    require(node is not None and ACPX.is_file(), "node and npm package acpx (tests/interop)")
    env = ["env", f"HOME={home}", "NO_COLOR=1"]
    return [*env, str(node), str(ACPX), "--agent", "{agent}", "--approve-all", "--ttl", "1"]


def _ts(version: int) -> list[str]:
    return [*node_peer("ts_echo_client.mjs"), str(version), "hi", "{agent}"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Run]:
    home = tmp_path_factory.mktemp("acpx-home")
    targets = {  # name -> (client command, the version the checker plays)
        "acpx v1": ([*_acpx(home / "a"), "exec", "hi"], 1),
        "acpx played v2": ([*_acpx(home / "b"), "exec", "hi"], 2),
        "ts v1": (_ts(1), 1),
        "ts v2": (_ts(2), 2),
        "ts v1 played v2": (_ts(1), 2),
        "ts v2 played v1": (_ts(2), 1),
    }

    async def one(argv: list[str], version: int) -> Run:
        return await run_client_checks(
            argv, PACKAGES, SLOW_START, selector([], []), lambda _: None, b"", version
        )

    async def every() -> list[Run]:
        return list(await asyncio.gather(*(one(*target) for target in targets.values())))

    return dict(zip(targets, asyncio.run(every()), strict=True))


@pytest.mark.parametrize("name", ["acpx v1", "ts v1", "ts v2"])
def test_a_real_client_passes_on_the_version_it_speaks(runs: dict[str, Run], name: str) -> None:
    run = runs[name]
    assert findings(run) == set() and not_exercised(run) == set() and not run.notes, run.results
    version = run.versions[0]
    expected = {c.name for c in CLIENT_CHECKS if c.cites(version)} - {"client.unsupported-version"}
    assert {r.check for r in run.results} == expected
    assert all(r.outcome == PASS for r in run.results)


@pytest.mark.parametrize("name", ["acpx played v2", "ts v1 played v2"])
def test_a_client_quitting_mid_turn_over_the_version_gets_one_fair_warning(
    runs: dict[str, Run], name: str
) -> None:
    """A v1 client answered v2 goes on, then quits in the turn: one warning, cited, and the
    turn checks not exercised; no "give it a prompt"."""
    run = runs[name]
    assert findings(run) == {("client.unsupported-version", UNSUPPORTED, WARN)}, run.results
    [found] = [r for r in run.results if r.check == "client.unsupported-version"]
    assert "asked for v1, the checker answered v2" in found.detail, found.detail
    assert "closed the connection before the turn was over" in found.detail
    assert found.cited.text.startswith("If the Client does not support the version specified")
    assert (
        found.evidence and found.evidence[0].startswith("<- ") and "initialize" in found.evidence[0]
    )
    assert not any("give it a prompt" in note for note in run.notes), run.notes


def test_a_client_closing_after_initialize_over_the_version_passes_it(
    runs: dict[str, Run],
) -> None:
    """The TS SDK's v2 client answered v1 closes the connection at once and says why on
    stderr: what the requirement asks; the turn checks are not exercised, and a note says
    why."""
    run = runs["ts v2 played v1"]
    assert findings(run) == set(), run.results
    [found] = [r for r in run.results if r.check == "client.unsupported-version"]
    assert found.outcome == PASS and "it does not support v1" in found.detail, found.detail
    assert "client.permission-answered" in not_exercised(run)
    assert run.notes and "asked for protocol version 2, the checker answered 1" in run.notes[0]


def test_the_run_ends_when_the_client_closes_with_no_traceback() -> None:
    """The TS SDK's v2 client answered v1 quits, but its process lives on while the agent it
    started (the checker's relay, which shares its stderr) does: with --timeout 60 the checker
    once waited 3 x 60 s for its exit. The command is given 60: it ends because the client
    closed its connection. Nothing but the report and one progress line per check is written."""
    command = [PYTHON, "-m", "acpgen", "check", "--client", "--protocol-version", "1"]
    command += ["--timeout", "60", "--", *_ts(2)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "ok   v1 client.unsupported-version" in done.stdout, done.stdout
    for noise in ("Traceback", "Task exception", "Exception ignored", "Error", "asyncio"):
        assert noise not in done.stderr, done.stderr
    assert all(line.startswith("acpgen check: ") for line in done.stderr.splitlines())
