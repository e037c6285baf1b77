"""The tables a connection derives from its package are made once per package and shared
(`acp_runtime.protocol.guards`): every connection of a package holds the same objects, each package
its own, and nothing is computed at import."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import acp_schema as acp
import acp_schema_v2 as acp2
from acp_runtime import AgentSideConnection, ClientSideConnection, memory_pipe

TABLES = (
    "send_guards",
    "receive_guards",
    "result_guards",
    "turn_cancels",
    "answer_checks",
    "completions",
    "completing",
    "message_kinds",
)


def _agent(schema: Any, **options: Any) -> AgentSideConnection[Any]:
    (reader, writer), _ = memory_pipe()
    return AgentSideConnection(
        lambda conn: schema.AgentHandler(), reader, writer, schema=schema, **options
    )


def _client(schema: Any) -> ClientSideConnection[Any]:
    (reader, writer), _ = memory_pipe()
    return ClientSideConnection(schema.ClientHandler(), reader, writer, schema=schema)


async def _closed(*conns: Any) -> None:
    for conn in conns:
        await conn.close()


async def test_two_connections_of_one_package_share_its_tables() -> None:
    first, second = _agent(acp), _agent(acp)
    one, two = _client(acp), _client(acp)
    try:
        for name in TABLES:
            assert getattr(first.policy, name) is getattr(second.policy, name), name
            assert getattr(one.policy, name) is getattr(two.policy, name), name
        assert (
            first.policy.send_guards
        )  # the v1 agent has guards: the shared tables are the real ones
        assert one.policy.send_guards
    finally:
        await _closed(first, second, one, two)


async def test_each_package_and_each_side_has_its_own_tables() -> None:
    v1, v2, client = _agent(acp), _agent(acp2), _client(acp)
    try:
        assert v1.policy.send_guards is not v2.policy.send_guards
        assert v1.policy.receive_guards is not v2.policy.receive_guards
        assert v1.policy.plan.v2 is False and v2.policy.plan.v2 is True
        assert v2.policy.message_kinds and not v1.policy.message_kinds
        assert v1.policy.send_guards is not client.policy.send_guards
        assert set(v1.policy.send_guards) != set(client.policy.send_guards)
    finally:
        await _closed(v1, v2, client)


async def test_the_plan_is_kept_on_the_package_and_made_once() -> None:
    from acp_runtime.protocol.guards import PackagePlan

    conn = _agent(acp)
    try:
        plan = PackagePlan.of(acp)
        assert PackagePlan.of(acp) is plan
        assert PackagePlan.of(acp2) is not plan
        assert plan.side("agent") is plan.side("agent")
        assert conn.policy.send_guards is plan.side("agent").send_guards
    finally:
        await conn.close()


async def test_without_protocol_checks_no_guard_applies() -> None:
    loose, strict = _agent(acp, enforce_protocol=False), _agent(acp)
    try:
        assert (
            not loose.policy.send_guards
            and not loose.policy.receive_guards
            and not loose.policy.result_guards
        )
        assert strict.policy.send_guards
        assert (
            loose.policy.turn_cancels is strict.policy.turn_cancels
        )  # turn cancels hold either way
    finally:
        await _closed(loose, strict)


def test_importing_the_runtime_computes_no_plan() -> None:
    code = (
        "import acp_schema, acp_runtime, acp_runtime.http, acp_runtime.protocol.guards as plan;"
        "print(bool(plan._PLANS))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
