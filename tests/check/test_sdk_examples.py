"""The official Python SDK's example agents (agent-client-protocol 0.12.1, copied from its sdist
into sdk_examples/) under `acpgen check`: exactly the findings docs/check.md lists and judges."""

from __future__ import annotations

import importlib.util

import pytest

from acpgen.check.model import Run

from .runs import HERE, PYTHON, SLOW_START, findings, run_all

SDK = HERE / "sdk_examples"
V1_FOUND = {
    # an unknown `_` extension request gets a result, not -32601
    ("rpc.unknown-extension", "ACP-V1-EXT-UNKNOWN-METHOD-NOT-FOUND", "warn"),
    # session/load and list, not advertised, are answered; list's `"result": null` is off the
    # schema, but the client must not send it at all: information, never a frame failure
    ("session.unadvertised", "ACP-V1-INIT-SESSION-OPTIONAL-MAY", "info"),
}
ECHO_ALSO = {
    # it echoes any protocol version it is asked for (65535, 0)
    ("version.higher", "ACP-V1-INIT-AGENT-LATEST-VERSION", "fail"),
    ("version.lower", "ACP-V1-INIT-AGENT-LATEST-VERSION", "fail"),
    # and leaves agentInfo out of its initialize answer
    ("init.info", "ACP-V1-INIT-IMPLEMENTATION-INFO", "warn"),
}


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    if importlib.util.find_spec("acp") is None:
        pytest.fail("the test extra's agent-client-protocol==0.12.1 is not installed")
    return run_all(
        {
            "agent": ([PYTHON, str(SDK / "agent.py")], [1]),
            "echo_agent": ([PYTHON, str(SDK / "echo_agent.py")], [1]),
        },
        SLOW_START,
    )


def test_the_sdk_example_agent(runs: dict[str, Run]) -> None:
    assert findings(runs["agent"]) == V1_FOUND
    (probes,) = [r for r in runs["agent"].results if r.check == "session.unadvertised"]
    assert "session/list $.result: Expected `object`, got `null`" in probes.detail


def test_the_sdk_echo_agent(runs: dict[str, Run]) -> None:
    assert findings(runs["echo_agent"]) == V1_FOUND | ECHO_ALSO
