"""docs/protocol/v1/terminals.mdx: terminal methods only when the client advertises them, valid
truncated output, and releasing terminals."""

from __future__ import annotations

from typing import Any

import pytest

from acp_runtime import CapabilityError

from .docs_peers import (
    SESSION,
    client_serving,
    connect,
    goes_out,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_client,
    typed,
)
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement

TERMINAL = {"sessionId": SESSION, "terminalId": "term_1"}
CALLS = {
    "terminal/create": {
        "sessionId": SESSION,
        "command": "npm",
        "args": ["test"],
        "cwd": "/work/project",
    },
    "terminal/output": TERMINAL,
    "terminal/wait_for_exit": TERMINAL,
    "terminal/kill": TERMINAL,
    "terminal/release": TERMINAL,
}


@requirement("ACP-V1-TERM-AGENT-CHECK-CAPABILITY")
@pytest.mark.parametrize("method", list(CALLS))
async def test_agent_uses_terminal_methods_once_the_client_advertises_terminal(
    pkg: Any, method: str
) -> None:
    agent, peer = await raw_client(pkg, client_capabilities={"terminal": True})
    assert await goes_out(agent, peer, method, typed(pkg, method, CALLS[method]))


@requirement("ACP-V1-TERM-AGENT-NO-CALL-WITHOUT-CAPABILITY")
@pytest.mark.parametrize("advertised", ["omitted", False])
@pytest.mark.parametrize("method", list(CALLS))
async def test_agent_never_uses_terminal_methods_without_the_capability(
    pkg: Any, method: str, advertised: Any
) -> None:
    capabilities = {} if advertised == "omitted" else {"terminal": advertised}
    agent, peer = await raw_client(pkg, client_capabilities=capabilities)
    await refused(
        peer, agent.request(method, typed(pkg, method, CALLS[method])), CapabilityError, "terminal"
    )


def tail_within(output: str, limit: int) -> str:
    """What a client keeps of `output` under `outputByteLimit`: its last bytes, cut at a
    character boundary."""
    return output.encode()[-limit:].decode("utf-8", "ignore")


async def output_pair(pkg: Any, output: str) -> Any:
    async def terminal_output(params: Any) -> Any:
        return pkg.REQUESTS["terminal/output"].result(output=output, truncated=True)

    agent, client = await connect(
        pkg,
        client=client_serving(pkg, terminal_output=terminal_output),
        client_capabilities={"terminal": True},
    )
    return agent


@requirement("ACP-V1-TERM-CLIENT-TRUNCATE-AT-CHARACTER-BOUNDARY")
async def test_output_cut_at_a_character_boundary_reaches_the_agent_intact(pkg: Any) -> None:
    """Output is a string end to end, so what the client keeps reaches the agent as valid text;
    applying outputByteLimit and cutting at a character boundary is the client application's
    part (its handler, shown here, does)."""
    kept = tail_within("build ok — résumé 完成", 8)  # 8 bytes would start inside "é"
    assert kept == " 完成" and len(kept.encode()) == 7
    agent = await output_pair(pkg, kept)
    answer = await agent.client.terminal_output(typed(pkg, "terminal/output", TERMINAL))
    assert (answer.output, answer.truncated) == (" 完成", True)


@requirement("ACP-V1-TERM-CLIENT-TRUNCATE-AT-CHARACTER-BOUNDARY")
async def test_output_cut_inside_a_character_is_never_sent(pkg: Any) -> None:
    """A handler that cut the bytes inside a character (decoded with surrogateescape) cannot
    send that invalid text: the runtime refuses to encode it and answers -32603 instead."""
    broken = "résumé".encode()[:2].decode("utf-8", "surrogateescape")  # "r" + half of "é"
    agent = await output_pair(pkg, broken)
    with pytest.raises(pkg.RpcError) as raised:
        await agent.client.terminal_output(typed(pkg, "terminal/output", TERMINAL))
    assert raised.value.code == -32603


@requirement(
    "ACP-V1-TERM-AGENT-RELEASE",
    carried=(
        "terminal/release reaches the client handler; the runtime manages no terminal lifetimes,"
        " releasing is the application's"
    ),
)
async def test_agent_releases_the_terminal_it_created(pkg: Any) -> None:
    """terminal/release is always callable for a terminal the agent created (with the terminal
    capability) and reaches the client's handler; calling it when the terminal is no longer
    needed is the agent application's part (its tool code)."""
    released: list[str] = []

    async def create(params: Any) -> Any:
        return {"terminalId": "term_1"}

    async def release(params: Any) -> Any:
        released.append(params.terminal_id)
        return None

    agent, client = await connect(
        pkg,
        client=client_serving(pkg, terminal_create=create, terminal_release=release),
        client_capabilities={"terminal": True},
    )
    created = await agent.client.terminal_create(
        typed(pkg, "terminal/create", CALLS["terminal/create"])
    )
    await agent.client.terminal_release(
        typed(pkg, "terminal/release", {"sessionId": SESSION, "terminalId": created.terminal_id})
    )
    assert released == ["term_1"]
