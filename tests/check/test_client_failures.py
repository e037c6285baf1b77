"""`acpgen check --client` never shows a traceback (issue 38): a client that never starts the
agent, or exits first, is exit 2 with one line; `{agent}` may sit inside an argument; a client
that quits over the version is told so, not asked for a prompt."""

from __future__ import annotations

import asyncio
import socket
import subprocess

import pytest

from acpgen.check.client_mode import run_client_checks
from acpgen.check.link import Closed
from acpgen.check.model import PASS, WARN, Run
from acpgen.check.runner import selector
from acpgen.check.schemas import default_package
from acpgen.check.wire import Wire
from acpgen.cli import main

from .runs import HERE, PYTHON, TIMEOUT, findings, not_exercised

CLIENTS = HERE / "clients"
PACKAGES = {1: default_package(1), 2: default_package(2)}


def _run(argv: list[str], version: int | None = None) -> Run:
    return asyncio.run(
        run_client_checks(argv, PACKAGES, TIMEOUT, selector([], []), lambda _: None, b"", version)
    )


def _cli(argv: list[str]) -> subprocess.CompletedProcess[str]:
    command = [PYTHON, "-m", "acpgen", "check", "--client", "--quiet", *argv]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


def test_a_client_that_never_starts_the_agent_is_one_line_exit_2() -> None:
    done = _cli(["--timeout", "0.5", "--", PYTHON, "-c", "import time; time.sleep(30)", "{agent}"])
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "acpgen check: the client did not start the agent ({agent}) within 1.5 s"
    ]


def test_a_client_that_exits_first_is_one_line_exit_2() -> None:
    code = "import sys; sys.exit('no config file')"
    done = _cli(["--timeout", "5", "--", PYTHON, "-c", code, "{agent}"])
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "acpgen check: the client exited with status 1 before it started the agent ({agent});"
        " its stderr ends: no config file"
    ]


@pytest.mark.parametrize("form", ["--agent", "--agent="])
def test_the_placeholder_may_sit_inside_an_argument(form: str) -> None:
    client = [PYTHON, str(CLIENTS / "agent_option.py")]
    argv = [*client, form, "{agent}"] if form == "--agent" else [*client, "--agent={agent}"]
    run = _run(argv)
    assert findings(run) == set() and not_exercised(run) == set() and not run.notes


def test_the_placeholder_inside_an_argument_passes_the_command_line() -> None:
    client = [PYTHON, str(CLIENTS / "agent_option.py")]
    assert main(["check", "--client", "--quiet", "--", *client, "--agent", "{agent}"]) == 0


def test_a_client_quitting_over_the_version_is_told_so() -> None:
    run = _run([PYTHON, str(CLIENTS / "quits_over_version.py"), "--", "{agent}"], version=2)
    assert run.notes == [
        "the client asked for protocol version 1, the checker answered 2; the client sent no"
        " session/prompt and exited with status 1 (it may not support v2), so the checks made"
        " during a turn did not run"
    ]
    assert not any("give it a prompt" in note for note in run.notes)
    [found] = [r for r in run.results if r.check == "client.unsupported-version"]
    assert found.outcome == PASS, found  # it closed the connection and said why: as it should
    assert "it does not support v2; its stderr ends: unsupported protocol version" in found.detail


def test_a_client_quitting_over_the_version_without_a_word_is_warned() -> None:
    run = _run([PYTHON, str(CLIENTS / "quits_silently.py"), "--", "{agent}"], version=2)
    unsupported = ("client.unsupported-version", "ACP-V1-INIT-CLIENT-UNSUPPORTED-VERSION", WARN)
    assert findings(run) == {unsupported}, run.results
    [found] = [r for r in run.results if r.check == "client.unsupported-version"]
    assert "(exit status 0) after initialize" in found.detail, found.detail
    assert "nothing on its stderr" in found.detail and found.evidence


def test_a_peer_that_resets_the_connection_ends_it_cleanly() -> None:
    """The rc3 example client at --protocol-version 2 quits with the checker's frames unread:
    its relay's socket is reset, and reading it raised ConnectionResetError out of the run."""

    async def scenario() -> bytes | None:
        ours, theirs = socket.socketpair()
        reader, writer = await asyncio.open_unix_connection(sock=ours)
        wire = Wire(reader, writer, None, ["client"])
        assert await wire.write(b"{}\n")
        await asyncio.sleep(0.05)
        theirs.close()  # with our frame unread: the kernel resets the connection
        try:
            return await wire.receive(5.0)
        except Closed:
            return b"closed"
        finally:
            await wire.stop(0.5)

    assert asyncio.run(scenario()) == b"closed"
