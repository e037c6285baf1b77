"""docs/protocol/v1/session-modes.mdx: modes offered at setup, and switching only to one of them."""

from __future__ import annotations

from typing import Any

import pytest

from acp_runtime import ProtocolError

from .docs_peers import (
    CWD,
    SESSION,
    agent_serving,
    as_wire,
    connect,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    typed,
)

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement

MODES = {
    "currentModeId": "ask",
    "availableModes": [
        {"id": "ask", "name": "Ask", "description": "Request permission before making any changes"},
        {
            "id": "code",
            "name": "Code",
            "description": "Write and modify code with full tool access",
        },
    ],
}


async def with_modes(pkg: Any, session: bool = True) -> tuple[Any, Any]:
    async def new_session(params: Any) -> Any:
        return {"sessionId": SESSION, "modes": MODES}

    return await connect(
        pkg, agent_serving(pkg, session_new=new_session, session_set_mode={}), session=session
    )


def set_mode(pkg: Any, mode: str) -> Any:
    return typed(pkg, "session/set_mode", {"sessionId": SESSION, "modeId": mode})


@requirement("ACP-V1-MODES-INITIAL-STATE-MAY")
async def test_agent_may_return_its_modes_when_a_session_is_set_up(pkg: Any) -> None:
    agent, client = await with_modes(pkg, session=False)
    answer = await client.agent.session_new(
        typed(pkg, "session/new", {"cwd": CWD, "mcpServers": []})
    )
    assert as_wire(pkg, answer.modes) == MODES


@requirement("ACP-V1-MODES-SET-MODE-ID-LISTED")
async def test_client_switches_only_to_a_mode_the_session_offers(pkg: Any) -> None:
    """The runtime remembers each session's availableModes and refuses (ProtocolError, nothing
    sent) a session/set_mode to any other id; choosing the mode is the client application's."""
    agent, client = await with_modes(pkg)
    with pytest.raises(ProtocolError, match="'architect' is not among the availableModes"):
        await client.agent.session_set_mode(set_mode(pkg, "architect"))
    await client.agent.session_set_mode(set_mode(pkg, "code"))
    assert [p.mode_id for p in agent.handler.of("session/set_mode")] == ["code"]
