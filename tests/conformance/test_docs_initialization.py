"""docs/protocol/v1/initialization.mdx: version negotiation, capabilities and the baselines."""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest

from acp_runtime import (
    CapabilityError,
    ConnectionClosedError,
    NotInitializedError,
    ProtocolVersionError,
)

from . import capability_grid as grid
from .docs_peers import (
    CWD,
    SESSION,
    agent_serving,
    answered,
    as_wire,
    client_against_raw_agent,
    connect,
    eventually,
    goes_out,
    initialize_params,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_agent,
    raw_client,
    text,
    typed,
    update,
)
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement


async def prompt_end_turn(params: Any) -> Any:
    return {"stopReason": "end_turn"}


@requirement("ACP-V1-INIT-CLIENT-INITIALIZE-FIRST")
async def test_client_cannot_create_a_session_before_initialize(pkg: Any) -> None:
    conn, peer = raw_agent(pkg)
    await refused(
        peer,
        conn.agent.session_new(typed(pkg, "session/new", {"cwd": CWD, "mcpServers": []})),
        NotInitializedError,
    )


@requirement("ACP-V1-INIT-CLIENT-INITIALIZE-FIRST")
async def test_initialize_carries_the_latest_version_and_the_capabilities(pkg: Any) -> None:
    conn, peer = raw_agent(pkg)
    capabilities = {"fs": {"readTextFile": True}, "terminal": True}
    call = asyncio.ensure_future(conn.agent.initialize(initialize_params(pkg, capabilities)))
    request = await peer.recv()
    assert request["method"] == "initialize"
    assert request["params"]["protocolVersion"] == 1
    assert request["params"]["clientCapabilities"]["fs"]["readTextFile"] is True
    assert request["params"]["clientCapabilities"]["terminal"] is True
    call.cancel()


@requirement(
    "ACP-V1-INIT-IMPLEMENTATION-INFO",
    carried="clientInfo / agentInfo are carried and exposed; filling them in is the application's",
)
async def test_both_sides_receive_the_peers_implementation_info(pkg: Any) -> None:
    """The library carries clientInfo / agentInfo and exposes them as `conn.client_info` /
    `conn.agent_info`; filling in its own name and version is the application's part."""
    agent, client = await connect(pkg, session=False)
    assert (agent.client_info.name, agent.client_info.version) == ("conformance-client", "1.0")
    assert (client.agent_info.name, client.agent_info.version) == ("conformance-agent", "1.0")


@requirement("ACP-V1-INIT-AGENT-RESPONSE")
async def test_agent_answers_with_the_chosen_version_and_its_capabilities(pkg: Any) -> None:
    capabilities = {"loadSession": True, "promptCapabilities": {"image": True}}
    conn, peer = await raw_client(pkg, agent_serving(pkg, capabilities))
    reply = await peer.call(1, "initialize", {"protocolVersion": 1})
    assert reply["result"]["protocolVersion"] == 1
    assert reply["result"]["agentCapabilities"]["loadSession"] is True
    assert reply["result"]["agentCapabilities"]["promptCapabilities"]["image"] is True


@requirement("ACP-V1-INIT-AGENT-RESPONSE")
async def test_agent_without_an_initialize_handler_still_answers_version_and_capabilities(
    pkg: Any,
) -> None:
    agent, peer = await raw_client(pkg, object(), initialize=False)  # a handler serving nothing
    reply = await peer.call(0, "initialize", {"protocolVersion": 1})
    assert reply["result"]["protocolVersion"] == 1
    assert isinstance(reply["result"]["agentCapabilities"], dict)


@requirement("ACP-V1-INIT-VERSION-AGREEMENT")
async def test_both_sides_settle_on_one_protocol_version(pkg: Any) -> None:
    agent, client = await connect(pkg, session=False, agent_options={"protocol_versions": (1, 2)})
    assert agent.protocol_version == client.protocol_version == 1


@requirement("ACP-V1-INIT-VERSION-AGREEMENT", "ACP-V1-INIT-CLIENT-UNSUPPORTED-VERSION")
async def test_client_refuses_a_version_it_does_not_speak_and_closes(pkg: Any) -> None:
    """The library raises `ProtocolVersionError` (saying which versions it speaks) and closes the
    connection; telling the user is the application's part."""
    conn, peer = raw_agent(pkg)
    with pytest.raises(ProtocolVersionError, match="supports only 1"):
        await answered(peer, conn.agent.initialize(initialize_params(pkg)), {"protocolVersion": 2})
    assert conn.closed
    with pytest.raises(ConnectionClosedError):
        await conn.agent.session_new(typed(pkg, "session/new", {"cwd": CWD, "mcpServers": []}))


@requirement("ACP-V1-INIT-REQUEST-LATEST-VERSION")
async def test_initialize_request_carries_the_clients_latest_version(pkg: Any) -> None:
    conn, peer = raw_agent(pkg, protocol_versions=(1, 2))
    call = asyncio.ensure_future(
        conn.agent.initialize(typed(pkg, "initialize", {"protocolVersion": 1}))
    )
    request = await peer.recv()
    assert request["params"]["protocolVersion"] == 2
    call.cancel()


@requirement("ACP-V1-INIT-AGENT-SAME-VERSION")
@pytest.mark.parametrize("requested", [1, 2])
async def test_agent_answers_the_requested_version_when_it_speaks_it(
    pkg: Any, requested: int
) -> None:
    async def wrong_version(params: Any) -> Any:
        return {"protocolVersion": 7}  # the runtime writes the negotiated version in

    handler = agent_serving(pkg, initialize=wrong_version)
    agent, peer = await raw_client(pkg, handler, initialize=False, protocol_versions=(1, 2))
    reply = await peer.call(0, "initialize", {"protocolVersion": requested})
    assert reply["result"]["protocolVersion"] == requested


@requirement("ACP-V1-INIT-AGENT-LATEST-VERSION")
async def test_agent_answers_its_latest_version_when_the_requested_one_is_unknown(pkg: Any) -> None:
    agent, peer = await raw_client(pkg, initialize=False, protocol_versions=(1, 2))
    reply = await peer.call(0, "initialize", {"protocolVersion": 9})
    assert reply["result"]["protocolVersion"] == 2


@requirement("ACP-V1-INIT-CAPABILITIES-OPTIONAL")
async def test_agent_accepts_initialize_without_client_capabilities(pkg: Any) -> None:
    agent, peer = await raw_client(pkg, initialize=False)
    reply = await peer.call(0, "initialize", {"protocolVersion": 1})
    assert reply["result"]["protocolVersion"] == 1
    assert agent.initialized


@requirement("ACP-V1-INIT-CAPABILITIES-OPTIONAL")
async def test_client_accepts_an_initialize_answer_without_agent_capabilities(pkg: Any) -> None:
    conn, peer = raw_agent(pkg)
    await answered(peer, conn.agent.initialize(initialize_params(pkg)), {"protocolVersion": 1})
    assert conn.initialized


def capabilities_struct(pkg: Any, side: str) -> type:
    """The Struct of what `side` ("client" | "agent") advertises in `pkg`'s initialize."""
    info = pkg.METHODS["initialize"]
    message, field = (
        (info.params, "clientCapabilities")
        if side == "client"
        else (info.result, "agentCapabilities")
    )
    (found,) = [f for f in msgspec.inspect.type_info(message).fields if f.encode_name == field]
    struct = grid.struct_of(found.type)
    assert struct is not None, found
    return struct.cls


IMAGE = {"type": "image", "data": "aGk=", "mimeType": "image/png"}
AUDIO = {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}
RESOURCE = {"type": "resource", "resource": {"uri": "file:///a", "text": "a"}}
MCP_HTTP = {"type": "http", "name": "web", "url": "https://mcp.example/web", "headers": []}
MCP_SSE = {"type": "sse", "name": "feed", "url": "https://mcp.example/feed", "headers": []}
SETUP = {"cwd": CWD, "mcpServers": []}
# The calls a capability gates, as (capability, method, params): a call goes out exactly when its
# capability is advertised. Capabilities without a call here are checked to reach the peer.
AGENT_CALLS = [
    ("fs.readTextFile", "fs/read_text_file", {"sessionId": SESSION, "path": "/a"}),
    ("fs.writeTextFile", "fs/write_text_file", {"sessionId": SESSION, "path": "/a", "content": ""}),
    ("terminal", "terminal/create", {"sessionId": SESSION, "command": "ls"}),
    (
        "elicitation.form",
        "elicitation/create",
        {
            "sessionId": SESSION,
            "mode": "form",
            "message": "?",
            "requestedSchema": {"type": "object", "properties": {}},
        },
    ),
    (
        "elicitation.url",
        "elicitation/create",
        {
            "sessionId": SESSION,
            "mode": "url",
            "elicitationId": "e1",
            "url": "https://agent.example/e1",
            "message": "?",
        },
    ),
]
CLIENT_CALLS = [
    ("loadSession", "session/load", {"sessionId": SESSION, **SETUP}),
    ("promptCapabilities.image", "session/prompt", {"sessionId": SESSION, "prompt": [IMAGE]}),
    ("promptCapabilities.audio", "session/prompt", {"sessionId": SESSION, "prompt": [AUDIO]}),
    (
        "promptCapabilities.embeddedContext",
        "session/prompt",
        {"sessionId": SESSION, "prompt": [RESOURCE]},
    ),
    ("mcpCapabilities.http", "session/new", {"cwd": CWD, "mcpServers": [MCP_HTTP]}),
    ("mcpCapabilities.sse", "session/new", {"cwd": CWD, "mcpServers": [MCP_SSE]}),
    ("sessionCapabilities.list", "session/list", {}),
    ("sessionCapabilities.resume", "session/resume", {"sessionId": SESSION, "cwd": CWD}),
    ("sessionCapabilities.fork", "session/fork", {"sessionId": SESSION, "cwd": CWD}),
    ("sessionCapabilities.close", "session/close", {"sessionId": SESSION}),
    ("sessionCapabilities.delete", "session/delete", {"sessionId": SESSION}),
    (
        "sessionCapabilities.additionalDirectories",
        "session/new",
        {**SETUP, "additionalDirectories": ["/b"]},
    ),
    ("auth.logout", "logout", {}),
]


def gated_calls(
    pkg: Any, caps: list[grid.Capability], calls: list[tuple[str, str, dict[str, Any]]]
) -> list[tuple[int, str, Any]]:
    """The calls of `calls` that `pkg` has, as (capability index, method, typed params)."""
    names = [c.name for c in caps]
    found = []
    for name, method, params in calls:
        if method in pkg.METHODS and (name in names or name.split(".")[0] in names):
            assert name in names, f"{name} gates {method} but is no capability of the package"
            found.append((names.index(name), method, typed(pkg, method, params)))
    return found


async def check_combinations(
    pkg: Any, side: str, calls: list[tuple[str, str, dict[str, Any]]], connect_to: Any
) -> None:
    """Every capability `side` can advertise in `pkg`, read from the package, in a covering design
    (every pair of capabilities in every pair of states: all combinations would be 3^n): in each
    row the peer sees exactly what was advertised, and each gated call goes out exactly when its
    capability is advertised."""
    struct = capabilities_struct(pkg, side)
    caps = grid.capabilities(struct)
    gated = gated_calls(pkg, caps, calls)
    assert caps and gated
    rows = grid.covering_rows(caps)
    for index, cap in enumerate(caps):  # each capability both advertised and not
        assert {grid.advertised(caps, row, index) for row in rows} == {True, False}, cap.name
    for row in rows:
        capabilities = grid.to_wire(caps, row)
        conn, peer = await connect_to(capabilities)
        # the peer sees every capability as advertised: nothing lost, nothing added
        assert conn.peer_capabilities == msgspec.convert(capabilities, struct)
        for index, method, params in gated:
            expected = grid.advertised(caps, row, index)
            sent = await goes_out(conn, peer, method, params)
            assert sent is expected, f"{method} ({caps[index].name}) with {capabilities}"
        await conn.close()


@requirement("ACP-V1-INIT-SUPPORT-ALL-COMBINATIONS")
async def test_agent_works_with_every_combination_of_client_capabilities(pkg: Any) -> None:
    async def connect_to(capabilities: dict[str, Any]) -> Any:
        return await raw_client(pkg, client_capabilities=capabilities)

    await check_combinations(pkg, "client", AGENT_CALLS, connect_to)


@requirement("ACP-V1-INIT-SUPPORT-ALL-COMBINATIONS")
async def test_client_works_with_every_combination_of_agent_capabilities(pkg: Any) -> None:
    async def connect_to(capabilities: dict[str, Any]) -> Any:
        return await client_against_raw_agent(pkg, capabilities)

    await check_combinations(pkg, "agent", CLIENT_CALLS, connect_to)


@requirement("ACP-V1-INIT-OMITTED-UNSUPPORTED")
async def test_agent_treats_omitted_client_capabilities_as_unsupported(pkg: Any) -> None:
    agent, peer = await raw_client(pkg, client_capabilities={})
    for method, params in [
        ("fs/read_text_file", {"sessionId": SESSION, "path": "/a"}),
        ("fs/write_text_file", {"sessionId": SESSION, "path": "/a", "content": ""}),
        ("terminal/create", {"sessionId": SESSION, "command": "ls"}),
    ]:
        await refused(
            peer,
            agent.request(method, typed(pkg, method, params)),
            CapabilityError,
            "not advertised",
        )


@requirement("ACP-V1-INIT-OMITTED-UNSUPPORTED")
async def test_client_treats_omitted_agent_capabilities_as_unsupported(pkg: Any) -> None:
    client, peer = await client_against_raw_agent(pkg, {})
    audio = {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}
    for method, params in [
        ("session/load", {"sessionId": SESSION, "cwd": CWD, "mcpServers": []}),
        ("session/list", {}),
        ("session/resume", {"sessionId": SESSION, "cwd": CWD}),
        ("session/close", {"sessionId": SESSION}),
        ("session/prompt", {"sessionId": SESSION, "prompt": [audio]}),
    ]:
        await refused(
            peer,
            client.request(method, typed(pkg, method, params)),
            CapabilityError,
            "not advertised",
        )


def leaves(capabilities: Any, prefix: str = "") -> dict[str, Any]:
    """Every capability value by its dotted path (an empty object counts as a value)."""
    out: dict[str, Any] = {}
    for key, value in capabilities.items():
        if isinstance(value, dict) and value:
            out.update(leaves(value, f"{prefix}{key}."))
        else:
            out[prefix + key] = value
    return out


def advertised(capabilities: Any) -> set[str]:
    """The dotted paths of every capability set to true."""
    return {path for path, value in leaves(capabilities).items() if value is True}


def carried_as_specified(sent: Any, specified: Any) -> None:
    """Every value specified is on the wire as specified, an explicit false included; anything
    else on the wire (a schema default the encoder writes) advertises nothing."""
    on_wire = leaves(sent)
    assert {path: on_wire.get(path, "<absent>") for path in leaves(specified)} == leaves(specified)
    assert advertised(sent) == advertised(specified)


CLIENT_CAPABILITIES = {"fs": {"readTextFile": True, "writeTextFile": False}, "terminal": True}
AGENT_CAPABILITIES = {
    "loadSession": False,
    "promptCapabilities": {"image": True, "audio": False, "embeddedContext": True},
    "mcpCapabilities": {"http": True, "sse": False},
}


@requirement("ACP-V1-INIT-CLIENT-SPECIFY-CAPABILITIES")
async def test_client_capabilities_go_out_as_specified(pkg: Any) -> None:
    """What the client application specifies is what the wire carries: an explicit `false` is
    sent, never dropped, and nothing unspecified is advertised."""
    conn, peer = raw_agent(pkg)
    call = asyncio.ensure_future(conn.agent.initialize(initialize_params(pkg, CLIENT_CAPABILITIES)))
    request = await peer.recv()
    carried_as_specified(request["params"]["clientCapabilities"], CLIENT_CAPABILITIES)
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 1}})
    await call


@requirement("ACP-V1-INIT-CLIENT-SPECIFY-CAPABILITIES")
@pytest.mark.parametrize("value", [True, False])
async def test_client_capabilities_reach_the_agent_as_specified(pkg: Any, value: bool) -> None:
    """The agent reads each capability from `conn.peer_capabilities` as the wire carried it, true
    or false; deciding what it supports is the client application's part."""
    sent = {"fs": {"readTextFile": value, "writeTextFile": not value}, "terminal": value}
    agent, peer = await raw_client(pkg, client_capabilities=sent)
    seen = agent.peer_capabilities
    assert (seen.fs.read_text_file, seen.fs.write_text_file, seen.terminal) == (
        value,
        not value,
        value,
    )


@requirement("ACP-V1-INIT-AGENT-SPECIFY-CAPABILITIES")
async def test_agent_capabilities_go_out_as_specified(pkg: Any) -> None:
    """What the agent's initialize handler specifies is what the wire carries, `false` included,
    and nothing unspecified is advertised."""
    agent, peer = await raw_client(pkg, agent_serving(pkg, AGENT_CAPABILITIES), initialize=False)
    reply = await peer.call(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    carried_as_specified(reply["result"]["agentCapabilities"], AGENT_CAPABILITIES)


@requirement("ACP-V1-INIT-AGENT-SPECIFY-CAPABILITIES")
@pytest.mark.parametrize("value", [True, False])
async def test_agent_capabilities_reach_the_client_as_specified(pkg: Any, value: bool) -> None:
    """The client reads each capability from `conn.peer_capabilities` as the wire carried it, true
    or false; deciding them is the agent application's part."""
    sent = {
        "loadSession": value,
        "promptCapabilities": {"image": value, "audio": not value},
        "mcpCapabilities": {"http": not value, "sse": value},
    }
    client, peer = await client_against_raw_agent(pkg, sent, session=False)
    seen = client.peer_capabilities
    assert seen.load_session is value
    assert (seen.prompt_capabilities.image, seen.prompt_capabilities.audio) == (value, not value)
    assert (seen.mcp_capabilities.http, seen.mcp_capabilities.sse) == (not value, value)


@requirement("ACP-V1-INIT-PROMPT-BASELINE")
async def test_text_and_resource_links_are_prompted_without_any_prompt_capability(pkg: Any) -> None:
    link = {"type": "resource_link", "uri": "file:///work/project/a.py", "name": "a.py"}
    agent, client = await connect(pkg, agent_serving(pkg, {}, session_prompt=prompt_end_turn))
    await client.agent.session_prompt(
        typed(pkg, "session/prompt", {"sessionId": SESSION, "prompt": [text("hi"), link]})
    )
    (prompt,) = agent.handler.of("session/prompt")
    assert [type(block).__name__ for block in prompt.prompt] == ["TextContent", "ResourceLink"]
    assert prompt.prompt[1].uri == link["uri"]


RICHER = {
    "image": {"type": "image", "data": "aGk=", "mimeType": "image/png"},
    "audio": {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"},
    "embeddedContext": {"type": "resource", "resource": {"uri": "file:///a", "text": "x"}},
}


@requirement("ACP-V1-INIT-PROMPT-RICHER-MAY")
@pytest.mark.parametrize("capability", list(RICHER))
async def test_agent_may_accept_richer_prompt_content_by_advertising_it(
    pkg: Any, capability: str
) -> None:
    capabilities = {"promptCapabilities": {capability: True}}
    agent, client = await connect(
        pkg, agent_serving(pkg, capabilities, session_prompt=prompt_end_turn)
    )
    block = RICHER[capability]
    await client.agent.session_prompt(
        typed(pkg, "session/prompt", {"sessionId": SESSION, "prompt": [block]})
    )
    (prompt,) = agent.handler.of("session/prompt")
    assert as_wire(pkg, prompt)["prompt"] == [block]


@requirement("ACP-V1-INIT-SESSION-BASELINE")
async def test_baseline_session_methods_need_no_capability(pkg: Any) -> None:
    """session/new, session/prompt, session/cancel and session/update are never capability-gated:
    with nothing advertised either way, all four pass (the agent application implements
    session/new and session/prompt handlers; the runtime also acts on session/cancel itself)."""

    async def prompt(params: Any) -> Any:
        await agent_conn.client.session_update(
            update(pkg, {"sessionUpdate": "agent_message_chunk", "content": text("ok")})
        )
        return {"stopReason": "end_turn"}

    agent_conn, client = await connect(pkg, agent_serving(pkg, {}, session_prompt=prompt))
    answer = await client.agent.session_prompt(
        typed(pkg, "session/prompt", {"sessionId": SESSION, "prompt": [text("hi")]})
    )
    await client.agent.session_cancel(typed(pkg, "session/cancel", {"sessionId": SESSION}))
    assert answer.stop_reason.value == "end_turn"
    assert [u["content"]["text"] for u in client.handler.updates()] == ["ok"]
    await eventually(
        lambda: agent_conn.handler.of("session/cancel"), "the idle cancel never reached the agent"
    )


@requirement("ACP-V1-INIT-SESSION-OPTIONAL-MAY")
async def test_agent_may_offer_more_session_methods_by_advertising_them(acp_v1: Any) -> None:
    pkg = acp_v1
    capabilities = {
        "loadSession": True,
        "sessionCapabilities": {"list": {}, "resume": {}, "close": {}, "delete": {}},
    }
    agent, client = await connect(
        pkg,
        agent_serving(
            pkg,
            capabilities,
            session_load={},
            session_list={"sessions": []},
            session_resume={},
            session_close={},
            session_delete={},
        ),
    )
    session = {"sessionId": SESSION, "cwd": CWD}
    await client.agent.session_load(typed(pkg, "session/load", {**session, "mcpServers": []}))
    await client.agent.session_list(typed(pkg, "session/list", {}))
    await client.agent.session_resume(typed(pkg, "session/resume", session))
    await client.agent.session_close(typed(pkg, "session/close", {"sessionId": SESSION}))
    await client.agent.session_delete(typed(pkg, "session/delete", {"sessionId": SESSION}))
    served = [m for m, _ in agent.handler.received]
    assert served[-5:] == [
        "session/load",
        "session/list",
        "session/resume",
        "session/close",
        "session/delete",
    ]
