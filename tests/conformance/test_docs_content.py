"""docs/protocol/v1/content.mdx: text content in prompts is always supported."""

from __future__ import annotations

from typing import Any

import pytest

from .docs_peers import (
    SESSION,
    agent_serving,
    as_wire,
    connect,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    typed,
)

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement


async def end_turn(params: Any) -> Any:
    return {"stopReason": "end_turn"}


@requirement("ACP-V1-CONTENT-TEXT-SUPPORT")
async def test_text_blocks_reach_an_agent_that_advertised_nothing(pkg: Any) -> None:
    blocks = [
        {"type": "text", "text": "What does this do?"},
        {
            "type": "text",
            "text": "def f(): ...",
            "annotations": {"audience": ["assistant"], "priority": 0.5},
        },
    ]
    agent, client = await connect(
        pkg, agent_serving(pkg, {"promptCapabilities": {}}, session_prompt=end_turn)
    )
    await client.agent.session_prompt(
        typed(pkg, "session/prompt", {"sessionId": SESSION, "prompt": blocks})
    )
    (prompt,) = agent.handler.of("session/prompt")
    assert [block.text for block in prompt.prompt] == ["What does this do?", "def f(): ..."]
    assert as_wire(pkg, prompt)["prompt"] == blocks
