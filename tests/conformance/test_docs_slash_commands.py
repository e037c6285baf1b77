"""docs/protocol/v1/slash-commands.mdx: advertising commands after creating a session."""

from __future__ import annotations

from typing import Any

import pytest

from .docs_peers import (
    connect,
    eventually,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    update,
)

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement


@requirement("ACP-V1-COMMANDS-ADVERTISE-MAY")
async def test_agent_may_advertise_commands_after_creating_a_session(pkg: Any) -> None:
    commands = {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [
            {
                "name": "web",
                "description": "Search the web",
                "input": {"hint": "query to search for"},
            },
            {"name": "test", "description": "Run tests for the current project"},
        ],
    }
    agent, client = await connect(pkg)  # session s1 created
    await agent.client.session_update(update(pkg, commands))
    await eventually(
        lambda: client.handler.of("session/update"),
        "the available_commands_update never reached the client",
    )
    assert client.handler.updates() == [commands]
    assert [c.name for c in client.handler.of("session/update")[0].update.available_commands] == [
        "web",
        "test",
    ]
