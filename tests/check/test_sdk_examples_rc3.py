"""The official Python SDK 1.0.0rc3's examples (copied from its sdist into sdk_examples_rc3/, run
in .venv/acp-rc3) under `acpgen check`: its agents over stdio, its HTTP server example over
Streamable HTTP and WebSocket, and its client. Exactly the findings docs/check.md lists."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from acpgen.check.client_mode import run_client_checks
from acpgen.check.model import WARN, Run
from acpgen.check.runner import run_agent_checks, selector
from acpgen.check.schemas import default_package

from ..interop.rc3 import PYTHON_RC3
from ..interop.scenario import require
from .runs import HERE, SLOW_START, findings, not_exercised, run_all, serving

SDK = HERE / "sdk_examples_rc3"
FOUND = {
    # an unknown `_` extension request gets a result (null; agent.py: its own answer)
    ("rpc.unknown-extension", "ACP-V1-EXT-UNKNOWN-METHOD-NOT-FOUND", "warn"),
    # session/list, not advertised, is answered `"result": null` (off the schema; over stdio and
    # WebSocket session/resume too): the client must not send them, so information only
    ("session.unadvertised", "ACP-V1-INIT-SESSION-OPTIONAL-MAY", "info"),
}
ECHO_ALSO = {
    # echo_agent.py and http_server.py echo any protocol version they are asked for (65535, 0)
    ("version.higher", "ACP-V1-INIT-AGENT-LATEST-VERSION", "fail"),
    ("version.lower", "ACP-V1-INIT-AGENT-LATEST-VERSION", "fail"),
    # and leave agentInfo out of their initialize answer
    ("init.info", "ACP-V1-INIT-IMPLEMENTATION-INFO", "warn"),
}
PACKAGES = {1: default_package(1), 2: default_package(2)}


def _rc3() -> str:
    require(
        PYTHON_RC3.is_file() and (PYTHON_RC3.parents[1] / ".installed-stamp").is_file(),
        f"the official Python SDK 1.0.0rc3 in {PYTHON_RC3.parents[1]}",
    )
    return str(PYTHON_RC3)


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    python = _rc3()
    return run_all(
        {
            "agent": ([python, str(SDK / "agent.py")], [1]),
            "echo_agent": ([python, str(SDK / "echo_agent.py")], [1]),
        },
        SLOW_START,
    )


def test_the_sdk_example_agent(runs: dict[str, Run]) -> None:
    assert findings(runs["agent"]) == FOUND
    (probes,) = [r for r in runs["agent"].results if r.check == "session.unadvertised"]
    assert "session/resume $.result: Expected `object`, got `null`" in probes.detail


def test_the_sdk_echo_agent(runs: dict[str, Run]) -> None:
    assert findings(runs["echo_agent"]) == FOUND | ECHO_ALSO


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with serving([_rc3(), str(HERE / "serve_sdk_http.py")]) as served:
        yield served


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_the_sdk_http_server_example(url: str, scheme: str) -> None:
    """Over Streamable HTTP the server refuses a POST naming a session it does not know with
    HTTP 404 (session/resume, close, delete of a missing session): that refusal answers them.
    Over WebSocket the agent answers them itself, session/resume with `result: null`."""
    target = scheme + url.removeprefix("http")
    run = asyncio.run(
        run_agent_checks([], PACKAGES, [1], SLOW_START, selector([], []), lambda _: None, target)
    )
    assert findings(run) == FOUND | ECHO_ALSO


def test_the_sdk_example_client() -> None:
    """It reads its prompts on stdin; asked for v1 (its PROTOCOL_VERSION), it passes."""
    argv = [_rc3(), str(SDK / "client.py"), "{agent}"]
    run = asyncio.run(
        run_client_checks(
            argv, PACKAGES, SLOW_START, selector([], []), lambda _: None, stdin=b"hi\n"
        )
    )
    assert run.versions == [1]
    assert findings(run) == set() and not_exercised(run) == set() and not run.notes


def test_the_sdk_example_client_on_v2_is_no_crash() -> None:
    """Played v2, the client (asking for v1) quits with the checker's frames unread: a report,
    never a BrokenPipeError or ConnectionResetError (issue 38: 3 runs of 3 crashed)."""
    argv = [_rc3(), str(SDK / "client.py"), "{agent}"]
    for _ in range(3):
        run = asyncio.run(
            run_client_checks(
                argv,
                PACKAGES,
                SLOW_START,
                selector([], []),
                lambda _: None,
                stdin=b"hi\n",
                version=2,
            )
        )
        # it goes on in v2, then quits in the turn, with the permission request unanswered:
        # the one finding, a warning (docs/check.md); never a crash
        unsupported = ("client.unsupported-version", "ACP-V1-INIT-CLIENT-UNSUPPORTED-VERSION", WARN)
        assert run.versions == [2] and findings(run) == {unsupported}, run.results
