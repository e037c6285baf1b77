"""Capability guards: a call the peer did not advertise raises locally and sends nothing."""

from __future__ import annotations

import asyncio
import json
import logging
import types
from typing import Any

import pytest

import acp_schema as acp
from acp_runtime import CapabilityError, ProtocolError, rules
from acp_runtime.protocol import guards
from tests.conformance.refusal import refused

from .helpers import CWD, Agent, RawPeer, raw_agent, raw_client


def typed(method: str, params: dict[str, Any]) -> Any:
    return acp.decode(json.dumps(params), acp.METHODS[method].params)


async def client_facing(agent_capabilities: dict[str, Any], **options: Any) -> tuple[Any, RawPeer]:
    """A client connection initialized against a raw agent advertising `agent_capabilities`."""
    conn, peer = await raw_agent(**options)
    call = asyncio.ensure_future(
        conn.agent.initialize(
            acp.InitializeRequest(protocol_version=1, client_capabilities=acp.ClientCapabilities())
        )
    )
    request = await peer.recv()
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {"protocolVersion": 1, "agentCapabilities": agent_capabilities},
        }
    )
    await call
    call = asyncio.ensure_future(
        conn.agent.session_new(acp.NewSessionRequest(cwd=CWD, mcp_servers=[]))
    )
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"sessionId": "s1"}})
    await call
    return conn, peer


SESSION = {"sessionId": "s1", "cwd": CWD}
IMAGE = {"type": "image", "data": "aGk=", "mimeType": "image/png"}
AUDIO = {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}
RESOURCE = {"type": "resource", "resource": {"uri": "file:///a", "text": "x"}}
HTTP = {"type": "http", "name": "h", "url": "https://h", "headers": []}
SSE = {"type": "sse", "name": "s", "url": "https://s", "headers": []}

# (method, params, the agent capabilities that allow it)
CLIENT_GUARDED = [
    ("session/load", {**SESSION, "mcpServers": []}, {"loadSession": True}),
    ("session/list", {}, {"sessionCapabilities": {"list": {}}}),
    ("session/resume", SESSION, {"sessionCapabilities": {"resume": {}}}),
    ("session/close", {"sessionId": "s1"}, {"sessionCapabilities": {"close": {}}}),
    ("session/fork", SESSION, {"sessionCapabilities": {"fork": {}}}),
    ("logout", {}, {"auth": {"logout": {}}}),
    (
        "session/prompt",
        {"sessionId": "s1", "prompt": [IMAGE]},
        {"promptCapabilities": {"image": True}},
    ),
    (
        "session/prompt",
        {"sessionId": "s1", "prompt": [AUDIO]},
        {"promptCapabilities": {"audio": True}},
    ),
    (
        "session/prompt",
        {"sessionId": "s1", "prompt": [RESOURCE]},
        {"promptCapabilities": {"embeddedContext": True}},
    ),
    ("session/new", {"cwd": CWD, "mcpServers": [HTTP]}, {"mcpCapabilities": {"http": True}}),
    ("session/new", {"cwd": CWD, "mcpServers": [SSE]}, {"mcpCapabilities": {"sse": True}}),
    (
        "session/load",
        {**SESSION, "mcpServers": [HTTP]},
        {"loadSession": True, "mcpCapabilities": {"http": True}},
    ),
    (
        "session/new",
        {"cwd": CWD, "mcpServers": [], "additionalDirectories": ["/other"]},
        {"sessionCapabilities": {"additionalDirectories": {}}},
    ),
]
IDS = [f"{m}-{i}" for i, (m, _, _) in enumerate(CLIENT_GUARDED)]


@pytest.mark.parametrize("method, params, allowing", CLIENT_GUARDED, ids=IDS)
async def test_client_refuses_a_call_the_agent_did_not_advertise(method, params, allowing) -> None:
    conn, peer = await client_facing({})
    error = await refused(peer, conn.request(method, typed(method, params)), CapabilityError)
    assert isinstance(error, CapabilityError) and error.method == method


@pytest.mark.parametrize("method, params, allowing", CLIENT_GUARDED, ids=IDS)
async def test_client_sends_the_call_once_the_agent_advertises_it(method, params, allowing) -> None:
    conn, peer = await client_facing(allowing)
    await conn.send_request(method, typed(method, params))
    assert (await peer.recv())["method"] == method


@pytest.mark.parametrize("method, params, allowing", CLIENT_GUARDED, ids=IDS)
async def test_enforce_protocol_false_sends_unadvertised_calls(method, params, allowing) -> None:
    conn, peer = await client_facing({}, enforce_protocol=False)
    await conn.send_request(method, typed(method, params))
    assert (await peer.recv())["method"] == method


@pytest.mark.parametrize("capabilities", [{"loadSession": False}, {}], ids=["false", "omitted"])
async def test_false_and_omitted_capabilities_mean_unsupported(capabilities) -> None:
    conn, peer = await client_facing(capabilities)
    await refused(
        peer,
        conn.agent.session_load(acp.LoadSessionRequest(session_id="s1", cwd=CWD, mcp_servers=[])),
        CapabilityError,
        "loadSession",
    )


@pytest.mark.parametrize(
    "capabilities", [{"sessionCapabilities": {"list": None}}, {"sessionCapabilities": {}}]
)
async def test_null_and_omitted_capability_objects_mean_unsupported(capabilities) -> None:
    conn, peer = await client_facing(capabilities)
    await refused(
        peer,
        conn.agent.session_list(acp.ListSessionsRequest()),
        CapabilityError,
        "sessionCapabilities.list",
    )


async def test_an_empty_object_capability_means_supported() -> None:
    conn, peer = await client_facing({"auth": {"logout": {}}})
    await conn.send_request("logout", acp.LogoutRequest())
    assert (await peer.recv())["method"] == "logout"
    conn, peer = await client_facing({"auth": {"logout": None}})
    await refused(peer, conn.agent.logout(acp.LogoutRequest()), CapabilityError, "auth.logout")


async def test_baseline_prompt_content_and_stdio_mcp_servers_need_no_capability() -> None:
    conn, peer = await client_facing({})
    link = {"type": "resource_link", "name": "a", "uri": "file:///a"}
    await conn.send_request(
        "session/prompt",
        typed(
            "session/prompt", {"sessionId": "s1", "prompt": [{"type": "text", "text": "x"}, link]}
        ),
    )
    assert (await peer.recv())["method"] == "session/prompt"
    stdio = {"name": "local", "command": "/bin/mcp", "args": [], "env": []}
    await conn.send_request(
        "session/new", typed("session/new", {"cwd": CWD, "mcpServers": [stdio]})
    )
    assert (await peer.recv())["method"] == "session/new"


@pytest.mark.parametrize(
    "method, params",
    [
        ("session/new", {"cwd": "relative/dir", "mcpServers": []}),
        ("session/new", {"cwd": CWD, "mcpServers": [], "additionalDirectories": ["/ok", "not/ok"]}),
        ("session/list", {"cwd": "./x"}),
    ],
)
async def test_client_refuses_relative_paths(method, params) -> None:
    caps = {"sessionCapabilities": {"list": {}, "additionalDirectories": {}}}
    conn, peer = await client_facing(caps)
    await refused(peer, conn.request(method, typed(method, params)), CapabilityError, "absolute")


async def agent_facing(client_capabilities: dict[str, Any], **options: Any) -> tuple[Any, RawPeer]:
    conn, peer = await raw_client(initialize=False, **options)
    answer = await peer.call(
        0, "initialize", {"protocolVersion": 1, "clientCapabilities": client_capabilities}
    )
    assert "result" in answer
    return conn, peer


ELICIT_FORM = {
    "mode": "form",
    "message": "?",
    "sessionId": "s1",
    "requestedSchema": {"type": "object", "properties": {}},
}
ELICIT_URL = {
    "mode": "url",
    "message": "?",
    "sessionId": "s1",
    "elicitationId": "e1",
    "url": "https://x",
}
AGENT_GUARDED = [
    ("fs/read_text_file", {"sessionId": "s1", "path": "/a"}, {"fs": {"readTextFile": True}}),
    (
        "fs/write_text_file",
        {"sessionId": "s1", "path": "/a", "content": "x"},
        {"fs": {"writeTextFile": True}},
    ),
    ("terminal/create", {"sessionId": "s1", "command": "ls"}, {"terminal": True}),
    ("terminal/output", {"sessionId": "s1", "terminalId": "t"}, {"terminal": True}),
    ("terminal/release", {"sessionId": "s1", "terminalId": "t"}, {"terminal": True}),
    ("terminal/wait_for_exit", {"sessionId": "s1", "terminalId": "t"}, {"terminal": True}),
    ("terminal/kill", {"sessionId": "s1", "terminalId": "t"}, {"terminal": True}),
    ("elicitation/create", ELICIT_FORM, {"elicitation": {"form": {}}}),
    ("elicitation/create", ELICIT_URL, {"elicitation": {"url": {}}}),
]
AGENT_IDS = [f"{m}-{i}" for i, (m, _, _) in enumerate(AGENT_GUARDED)]


@pytest.mark.parametrize("method, params, allowing", AGENT_GUARDED, ids=AGENT_IDS)
async def test_agent_refuses_a_call_the_client_did_not_advertise(method, params, allowing) -> None:
    conn, peer = await agent_facing({})
    await refused(peer, conn.request(method, typed(method, params)), CapabilityError)


@pytest.mark.parametrize("method, params, allowing", AGENT_GUARDED, ids=AGENT_IDS)
async def test_agent_sends_the_call_once_the_client_advertises_it(method, params, allowing) -> None:
    conn, peer = await agent_facing(allowing)
    await conn.send_request(method, typed(method, params))
    assert (await peer.recv())["method"] == method


async def test_agent_with_enforce_protocol_false_sends_anyway() -> None:
    conn, peer = await agent_facing({}, enforce_protocol=False)
    await conn.send_request(
        "fs/read_text_file", acp.ReadTextFileRequest(session_id="s1", path="/a")
    )
    assert (await peer.recv())["method"] == "fs/read_text_file"


@pytest.mark.parametrize(
    "method, params",
    [
        ("fs/read_text_file", {"sessionId": "s1", "path": "a.txt"}),
        ("fs/write_text_file", {"sessionId": "s1", "path": "../a", "content": ""}),
        ("terminal/create", {"sessionId": "s1", "command": "ls", "cwd": "sub"}),
    ],
)
async def test_agent_refuses_relative_paths(method, params) -> None:
    conn, peer = await agent_facing(
        {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}
    )
    await refused(peer, conn.request(method, typed(method, params)), CapabilityError, "absolute")


def test_windows_paths_count_as_absolute() -> None:
    assert (
        guards.is_absolute("C:\\work\\a.txt")
        and guards.is_absolute("/work/a")
        and guards.is_absolute("\\\\srv\\share\\a")
    )
    assert (
        not guards.is_absolute("a/b")
        and not guards.is_absolute("C:a")
        and not guards.is_absolute("\\a")
    )


async def test_client_answers_invalid_params_to_an_elicitation_mode_it_did_not_advertise() -> None:
    class Elicited:
        async def elicitation_create(self, params):
            return acp.decode(b'{"action": "cancel"}', acp.METHODS["elicitation/create"].result)

    conn, peer = await raw_agent(Elicited())
    call = asyncio.ensure_future(
        conn.agent.initialize(
            acp.InitializeRequest(
                protocol_version=1,
                client_capabilities=acp.ClientCapabilities(
                    elicitation=acp.ElicitationCapabilities(url=acp.ElicitationUrlCapabilities())
                ),
            )
        )
    )
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 1}})
    await call
    answer = await peer.call(1, "elicitation/create", ELICIT_FORM)
    assert (
        answer["error"]["code"] == -32602
        and "elicitation.form" in answer["error"]["data"]["message"]
    )
    answer = await peer.call(2, "elicitation/create", ELICIT_URL)
    assert answer["result"] == {"action": "cancel"}


async def test_agent_may_not_offer_terminal_auth_to_a_client_without_it(caplog) -> None:
    terminal = acp.AuthMethodTerminal(id="tui", name="Log in in a terminal")

    def agent(conn):
        return Agent(conn, auth_methods=[terminal])

    conn, peer = await raw_client(agent, initialize=False)
    with caplog.at_level(logging.ERROR, logger="acp_runtime"):
        answer = await peer.call(0, "initialize", {"protocolVersion": 1, "clientCapabilities": {}})
    assert answer["error"]["code"] == -32603 and "auth.terminal" in caplog.text
    conn, peer = await raw_client(agent, initialize=False)
    answer = await peer.call(
        0, "initialize", {"protocolVersion": 1, "clientCapabilities": {"auth": {"terminal": True}}}
    )
    assert answer["result"]["authMethods"][0]["type"] == "terminal"


def package_without(*methods: str) -> types.SimpleNamespace:
    """The default package, minus some methods (as an older or newer schema would be)."""
    namespace = types.SimpleNamespace(
        **{k: getattr(acp, k) for k in dir(acp) if not k.startswith("__")}
    )
    namespace.METHODS = {k: v for k, v in acp.METHODS.items() if k not in methods}
    namespace.REQUESTS = {k: v for k, v in acp.REQUESTS.items() if k not in methods}
    namespace.NOTIFICATIONS = {k: v for k, v in acp.NOTIFICATIONS.items() if k not in methods}
    return namespace


def test_rules_whose_method_the_package_lacks_are_skipped() -> None:
    table = guards.guards_for(package_without("session/load"), "client", "send")
    assert "session/load" not in table and "session/list" in table
    assert rules.turn_cancels_for(package_without("session/cancel"), "agent") == {}
    assert rules.turn_cancels_for(acp, "agent") == {"session/prompt": {"stopReason": "cancelled"}}


async def test_a_package_without_the_method_imposes_no_guard_on_it() -> None:
    conn, peer = await raw_agent(schema=package_without("session/list"))
    call = asyncio.ensure_future(
        conn.agent.initialize(
            acp.InitializeRequest(protocol_version=1, client_capabilities=acp.ClientCapabilities())
        )
    )
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"protocolVersion": 1}})
    await call
    await conn.send_request("session/list", acp.ListSessionsRequest())
    assert (await peer.recv())["method"] == "session/list"


async def test_a_package_without_initialize_has_no_initialize_first_rule() -> None:
    conn, peer = await raw_client(initialize=False, schema=package_without("initialize"))
    answer = await peer.call(1, "session/new", {"cwd": "/w", "mcpServers": []})
    assert answer["result"] == {"sessionId": "s1"}


async def test_client_prompts_only_sessions_set_up_on_this_connection() -> None:
    conn, peer = await client_facing({"loadSession": True, "sessionCapabilities": {"close": {}}})
    prompt = acp.PromptRequest(session_id="elsewhere", prompt=[])
    await refused(peer, conn.agent.session_prompt(prompt), ProtocolError, "not set up")
    load = asyncio.ensure_future(
        conn.agent.session_load(
            acp.LoadSessionRequest(session_id="elsewhere", cwd=CWD, mcp_servers=[])
        )
    )
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
    await load
    await conn.send_request("session/prompt", prompt)
    assert (await peer.recv())["method"] == "session/prompt"
    close = asyncio.ensure_future(
        conn.agent.session_close(acp.CloseSessionRequest(session_id="elsewhere"))
    )
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
    await close
    await refused(peer, conn.agent.session_prompt(prompt), ProtocolError)


async def test_client_never_authenticates_with_a_terminal_auth_method() -> None:
    conn, peer = await raw_agent()
    init = asyncio.ensure_future(
        conn.agent.initialize(
            acp.InitializeRequest(protocol_version=1, client_capabilities=acp.ClientCapabilities())
        )
    )
    request = await peer.recv()
    methods = [
        {"id": "tui", "name": "Terminal", "type": "terminal"},
        {"id": "oauth", "name": "Browser"},
    ]
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {"protocolVersion": 1, "authMethods": methods},
        }
    )
    await init
    await refused(
        peer,
        conn.agent.authenticate(acp.AuthenticateRequest(method_id="tui")),
        CapabilityError,
        "terminal auth method",
    )
    await conn.send_request("authenticate", acp.AuthenticateRequest(method_id="oauth"))
    assert (await peer.recv())["params"] == {"methodId": "oauth"}


async def test_method_names_starting_with_rpc_dot_are_never_sent() -> None:
    conn, peer = await client_facing({})
    await refused(peer, conn.request("rpc.discover", {}), ProtocolError, "reserved")


async def test_calls_without_params_omit_the_member() -> None:
    conn, peer = await client_facing({})
    await conn.send_request("_vendor/status")
    await conn.notify("_vendor/poke")
    assert await peer.recv() == {"jsonrpc": "2.0", "id": 2, "method": "_vendor/status"}
    assert await peer.recv() == {"jsonrpc": "2.0", "method": "_vendor/poke"}


@pytest.mark.parametrize(
    "method, params",
    [
        (
            "session/update",
            {
                "sessionId": "s1",
                "update": {
                    "sessionUpdate": "tool_call",
                    "toolCallId": "t",
                    "title": "read",
                    "locations": [{"path": "src/main.rs"}],
                },
            },
        ),
        (
            "session/update",
            {
                "sessionId": "s1",
                "update": {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": "t",
                    "content": [{"type": "diff", "path": "a.txt", "newText": "x"}],
                },
            },
        ),
        (
            "session/request_permission",
            {
                "sessionId": "s1",
                "options": [],
                "toolCall": {"toolCallId": "t", "locations": [{"path": "./x"}]},
            },
        ),
    ],
)
async def test_agent_refuses_relative_paths_in_tool_calls(method, params) -> None:
    conn, peer = await agent_facing({})
    call = conn.notify if method == "session/update" else conn.request
    await refused(peer, call(method, typed(method, params)), CapabilityError, "absolute")
    absolute = json.loads(
        json.dumps(params)
        .replace('"src/main.rs"', '"/src/main.rs"')
        .replace('"a.txt"', '"/a.txt"')
        .replace('"./x"', '"/x"')
    )
    if method == "session/update":
        await conn.notify(method, typed(method, absolute))
    else:
        await conn.send_request(method, typed(method, absolute))
    assert (await peer.recv())["method"] == method
