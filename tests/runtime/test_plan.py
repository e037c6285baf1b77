"""The tables a connection derives from its package are made once per package and shared
(`acp_runtime.plan`): every connection of a package holds the same objects, each package its own,
and nothing is computed at import."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import acp_schema as acp
import acp_schema_v2 as acp2
from acp_runtime import AgentSideConnection, ClientSideConnection, memory_pipe

TABLES = (
    "_send_guards",
    "_receive_guards",
    "_result_guards",
    "_turn_cancels",
    "_answer_checks",
    "_completions",
    "_completing",
    "_message_kinds",
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
            assert getattr(first, name) is getattr(second, name), name
            assert getattr(one, name) is getattr(two, name), name
        assert first._send_guards  # the v1 agent has guards: the shared tables are the real ones
        assert one._send_guards
    finally:
        await _closed(first, second, one, two)


async def test_each_package_and_each_side_has_its_own_tables() -> None:
    v1, v2, client = _agent(acp), _agent(acp2), _client(acp)
    try:
        assert v1._send_guards is not v2._send_guards
        assert v1._receive_guards is not v2._receive_guards
        assert v1._v2 is False and v2._v2 is True
        assert v2._message_kinds and not v1._message_kinds
        assert v1._send_guards is not client._send_guards
        assert set(v1._send_guards) != set(client._send_guards)
    finally:
        await _closed(v1, v2, client)


async def test_the_plan_is_kept_on_the_package_and_made_once() -> None:
    from acp_runtime.plan import PackagePlan

    conn = _agent(acp)
    try:
        plan = PackagePlan.of(acp)
        assert PackagePlan.of(acp) is plan
        assert PackagePlan.of(acp2) is not plan
        assert plan.side("agent") is plan.side("agent")
        assert conn._send_guards is plan.side("agent").send_guards
    finally:
        await conn.close()


async def test_without_protocol_checks_no_guard_applies() -> None:
    loose, strict = _agent(acp, enforce_protocol=False), _agent(acp)
    try:
        assert not loose._send_guards and not loose._receive_guards and not loose._result_guards
        assert strict._send_guards
        assert loose._turn_cancels is strict._turn_cancels  # turn cancels hold either way
    finally:
        await _closed(loose, strict)


def test_importing_the_runtime_computes_no_plan() -> None:
    code = (
        "import acp_schema, acp_runtime, acp_runtime.http;"
        "print(hasattr(acp_schema, '__acp_runtime_plan__'))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
