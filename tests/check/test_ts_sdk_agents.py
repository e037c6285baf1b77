"""The small agents on the official TypeScript SDK 2.4.0 that the interop tests use
(tests/interop/*.mjs; the SDK's npm package ships no example agent) under `acpgen check`:
exactly the findings docs/check.md lists and judges."""

from __future__ import annotations

import pytest

from acpgen.check.model import Run
from tests.interop.scenario import node_peer

from .runs import REFUSED_BATCH, SLOW_START, findings, run_all

SAME_ID = ("session.new-id", "ACP-V1-SETUP-NEW-SESSION-ID", "fail")


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    return run_all(
        {
            "ts_agent": (node_peer("ts_agent.mjs"), [1, 2]),
            "ts_router_agent": (node_peer("ts_router_agent.mjs"), [1, 2]),
        },
        SLOW_START,
    )


def test_the_interop_agent(runs: dict[str, Run]) -> None:
    run = runs["ts_agent"]
    # one session id for every session: the interop agent's shortcut, not the SDK's
    assert findings(run) == {SAME_ID}
    # it speaks v1 only: asked for 2 it answers 1, and that answer decodes as v1's
    assert run.notes == [
        "v2: the agent answered protocolVersion 1 to 2: it does not support v2, so no other v2"
        " check ran"
    ]


def test_the_sdk_protocol_router_refuses_a_version_below_its_own(runs: dict[str, Run]) -> None:
    # -32022 for version 0: on v2 the schema's code for it (a pass), on v1 a failure (issue 38)
    assert {(r.version, r.check, r.outcome) for r in runs["ts_router_agent"].results} >= {
        (1, "version.lower", "fail"),
        (2, "version.lower", "pass"),
    }
    assert findings(runs["ts_router_agent"]) == {
        SAME_ID,
        ("version.lower", "ACP-V1-INIT-AGENT-LATEST-VERSION", "fail"),
        # the SDK 2.4.0's v2 schema has no batches: it refuses one, which is information
        *REFUSED_BATCH,
    }
