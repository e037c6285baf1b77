"""The schema's MUST sentences about `acp` MCP servers, as the provider of `acp_runtime.mcp` keeps
them (the per-message check of session/new is tests/conformance/test_docs_v2_draft.py's)."""

from __future__ import annotations

import pytest

import acp_schema_v2 as acp2
from acp_runtime.mcp import McpProvider

from ..runtime.helpers_v2 import v2_session

pytest_plugins = ["tests.runtime.aio"]


async def _backend(op):
    return {"tools": []}


@pytest.mark.requirement("ACP-V2-SCHEMA-ACP-MCP-SERVER-ID-UNIQUE")
async def test_the_provider_never_reuses_a_server_id_on_its_connection() -> None:
    _, _, conn = await v2_session()
    provider = McpProvider(conn)
    registrations = [provider.register("same-name", _backend) for _ in range(100)]
    assert len({r.server_id for r in registrations}) == 100  # generated ids, all distinct
    await registrations[0].close()
    with pytest.raises(ValueError, match="was registered on this connection"):
        provider.register("again", _backend, server_id=registrations[0].server_id)
    declarations = provider.declarations  # v2's McpServerAcp, type "acp"
    assert all(isinstance(d, acp2.McpServerAcp) for d in declarations)
