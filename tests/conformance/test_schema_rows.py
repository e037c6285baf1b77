"""Schema-level requirements (183-216): messages conform to the stable v1 schema, both ways.

Each method row is proven three ways, over the v1 package generated from the pinned schema:
- the generated types declare exactly the members the row's derived structure lists;
- over a connection, valid instances of the schema (codegen/instances.py) sent by a raw peer
  reach the handler typed, and what the library answers and sends validates against the schema;
- params missing a required member are refused (-32602) and never reach a handler.
Protocol rules are switched off (`enforce_protocol=False`) in the wire tests: the instances are
random (relative paths, unadvertised capabilities), and the shape is what is tested here.
"""

from __future__ import annotations

import asyncio
import json
import re
from typing import Any

import msgspec
import pytest
from jsonschema import Draft202012Validator

from acp_runtime import AgentSideConnection, CapabilityError, ClientSideConnection, memory_pipe
from acpgen.instances import valid_instances
from tests.runtime.helpers import RawPeer
from tests.support import wire_cases
from tests.support.wire_cases import Answering, mutation_path

from .conftest import BY_ID, STABLE_SCHEMA
from .docs_peers import eventually
from .sides import Agent, Client, agent_with, pair, raw_agent, raw_client, silent, typed

pytest_plugins = ("tests.runtime.aio",)
requirement = pytest.mark.requirement

SCHEMA = json.loads(STABLE_SCHEMA.read_text(encoding="utf-8"))
DEFS = SCHEMA["$defs"]
COUNT = 3  # valid instances per def and direction

METHOD_ROWS = {
    "ACP-V1-SCHEMA-INITIALIZE-SHAPE": "initialize",
    "ACP-V1-SCHEMA-AUTHENTICATE-SHAPE": "authenticate",
    "ACP-V1-SCHEMA-LOGOUT-SHAPE": "logout",
    "ACP-V1-SCHEMA-NEW-SESSION-SHAPE": "session/new",
    "ACP-V1-SCHEMA-LOAD-SESSION-SHAPE": "session/load",
    "ACP-V1-SCHEMA-RESUME-SESSION-SHAPE": "session/resume",
    "ACP-V1-SCHEMA-CLOSE-SESSION-SHAPE": "session/close",
    "ACP-V1-SCHEMA-LIST-SESSIONS-SHAPE": "session/list",
    "ACP-V1-SCHEMA-DELETE-SESSION-SHAPE": "session/delete",
    "ACP-V1-SCHEMA-SET-MODE-SHAPE": "session/set_mode",
    "ACP-V1-SCHEMA-SET-CONFIG-OPTION-SHAPE": "session/set_config_option",
    "ACP-V1-SCHEMA-PROMPT-SHAPE": "session/prompt",
    "ACP-V1-SCHEMA-CANCEL-NOTIFICATION-SHAPE": "session/cancel",
    "ACP-V1-SCHEMA-CANCEL-REQUEST-NOTIFICATION-SHAPE": "$/cancel_request",
    "ACP-V1-SCHEMA-REQUEST-PERMISSION-SHAPE": "session/request_permission",
    "ACP-V1-SCHEMA-SESSION-UPDATE-VARIANTS": "session/update",
    "ACP-V1-SCHEMA-READ-TEXT-FILE-SHAPE": "fs/read_text_file",
    "ACP-V1-SCHEMA-WRITE-TEXT-FILE-SHAPE": "fs/write_text_file",
    "ACP-V1-SCHEMA-TERMINAL-CREATE-SHAPE": "terminal/create",
    "ACP-V1-SCHEMA-TERMINAL-OUTPUT-SHAPE": "terminal/output",
    "ACP-V1-SCHEMA-TERMINAL-RELEASE-SHAPE": "terminal/release",
    "ACP-V1-SCHEMA-TERMINAL-WAIT-FOR-EXIT-SHAPE": "terminal/wait_for_exit",
    "ACP-V1-SCHEMA-TERMINAL-KILL-SHAPE": "terminal/kill",
    "ACP-V1-SCHEMA-ELICITATION-CREATE-SHAPE": "elicitation/create",
    "ACP-V1-SCHEMA-ELICITATION-COMPLETE-SHAPE": "elicitation/complete",
}
VARIANT_ROWS = (
    "ACP-V1-SCHEMA-CONTENT-BLOCK-VARIANTS",
    "ACP-V1-SCHEMA-STOP-REASON-VALUES",
    "ACP-V1-SCHEMA-ERROR-OBJECT",
    "ACP-V1-SCHEMA-MCP-SERVER-VARIANTS",
    "ACP-V1-SCHEMA-AUTH-METHOD-VARIANTS",
)
_OBJECT = re.compile(r"/\$defs/(\w+): required (none|\[[^\]]*\]); declared properties (\[[^\]]*\])")


def _quoted_names(text: str) -> set[str]:
    """The names in a row's `['a', 'b']` list (`none` is the empty set)."""
    return set() if text == "none" else set(re.findall(r"'([^']*)'", text))


def derived_objects(row_id: str) -> list[tuple[str, set[str], set[str]]]:
    """(def, required, declared) of each object def in the row's "Derived structure" text."""
    out = []
    for name, required, declared in _OBJECT.findall(BY_ID[row_id].text):
        out.append((name, _quoted_names(required), _quoted_names(declared)))
    return out


def rows(ids: Any, xfail: dict[str, str] | None = None) -> list[Any]:
    marks = {
        rid: [pytest.mark.xfail(strict=True, reason=why)] for rid, why in (xfail or {}).items()
    }
    return [
        pytest.param(
            rid,
            id=rid.removeprefix("ACP-V1-SCHEMA-").lower(),
            marks=[requirement(rid), *marks.get(rid, [])],
        )
        for rid in ids
    ]


def validate(def_name: str, value: Any) -> None:
    Draft202012Validator({"$ref": f"#/$defs/{def_name}", "$defs": DEFS}).validate(value)


def instances(def_name: str, seed: int) -> list[Any]:
    found = valid_instances(SCHEMA, def_name, count=COUNT, seed=seed)
    assert found, def_name
    return found


def as_json(pkg: Any, value: Any) -> Any:
    return msgspec.json.decode(pkg.encode(value))


def plain_end(pkg: Any, side: str, handler: Any) -> tuple[Any, RawPeer]:
    """A runtime connection of `side` with protocol rules off, and a raw peer facing it."""
    (conn_in, conn_out), (peer_in, peer_out) = memory_pipe()
    cls = AgentSideConnection if side == "agent" else ClientSideConnection
    conn = cls(handler, conn_in, conn_out, schema=pkg, enforce_protocol=False)
    return conn, RawPeer(peer_in, peer_out)


def receiver_of(pkg: Any, method: str) -> str:
    return "client" if pkg.METHODS[method].side == "client" else "agent"


def result_instance(method: str, value: Any) -> Any:
    return (
        {**value, "protocolVersion": 1} if method == "initialize" else value
    )  # the version this side speaks


async def until_seen(handler: Answering, count: int) -> None:
    """Wait until the handler saw `count` messages (a notification has no answer to wait for)."""
    await eventually(lambda: len(handler.seen) >= count, f"the handler never saw {count} messages")


# --- every object the row names is declared as the schema says ------------------------------------


def struct_shapes(tp: Any) -> list[tuple[set[str], set[str]]]:
    """(required, declared) wire names of a Struct type, or of each Struct variant of a union."""
    if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
        info = msgspec.inspect.type_info(tp)
        tag = tp.__struct_config__.tag_field
        declared = {f.encode_name for f in info.fields} - {tag}
        return [({f.encode_name for f in info.fields if f.required}, declared)]
    members = getattr(tp, "__acp_members__", None) or getattr(tp, "__args__", ())
    return [shape for member in members for shape in struct_shapes(member)]


@pytest.mark.parametrize("row_id", rows([*METHOD_ROWS, *VARIANT_ROWS]))
def test_the_generated_types_declare_the_members_the_schema_lists(acp_v1: Any, row_id: str) -> None:
    objects = derived_objects(row_id)
    assert objects or row_id == "ACP-V1-SCHEMA-STOP-REASON-VALUES"
    for name, required, declared in objects:
        shapes = struct_shapes(getattr(acp_v1, name))
        assert shapes, name
        for (
            shape_required,
            shape_declared,
        ) in shapes:  # a union's variants each carry the listed members
            assert declared <= shape_declared and required <= shape_required, (
                name,
                shape_required,
                shape_declared,
            )
            if len(shapes) == 1:
                assert shape_declared == declared and shape_required == required, name


# --- over a connection: what arrives is typed, what leaves validates ------------------------------


@pytest.mark.parametrize("row_id", rows(METHOD_ROWS))
async def test_valid_messages_are_received_typed_and_answered_as_the_schema_says(
    acp_v1: Any, row_id: str
) -> None:
    method = METHOD_ROWS[row_id]
    info = acp_v1.METHODS[method]
    handler = Answering()
    conn, peer = plain_end(acp_v1, receiver_of(acp_v1, method), handler)
    results = instances(info.result.__name__, seed=2) if info.result is not None else []
    for n, params in enumerate(instances(info.params.__name__, seed=1)):
        if info.kind == "notification":
            peer.send({"jsonrpc": "2.0", "method": method, "params": params})
            await until_seen(handler, n + 1)
        else:
            handler.result = acp_v1.decode(
                json.dumps(result_instance(method, results[n % len(results)])), info.result
            )
            answer = await peer.call(n, method, params)
            assert "result" in answer, (params, answer)
            validate(info.result.__name__, answer["result"])
        received = handler.seen[-1][1]
        assert isinstance(received, info.params)
        validate(info.params.__name__, as_json(acp_v1, received))


@pytest.mark.parametrize("row_id", rows(METHOD_ROWS))
async def test_messages_the_library_sends_validate_against_the_schema(
    acp_v1: Any, row_id: str
) -> None:
    method = METHOD_ROWS[row_id]
    info = acp_v1.METHODS[method]
    sender = "agent" if receiver_of(acp_v1, method) == "client" else "client"
    conn, peer = plain_end(acp_v1, sender, Answering())
    results = instances(info.result.__name__, seed=4) if info.result is not None else []
    for n, params in enumerate(instances(info.params.__name__, seed=3)):
        typed_params = acp_v1.decode(json.dumps(params), info.params)
        if info.kind == "notification":
            await conn.notify(method, typed_params)
            validate(info.params.__name__, (await peer.recv())["params"])
            continue
        call = asyncio.ensure_future(conn.request(method, typed_params))
        request = await peer.recv()
        validate(info.params.__name__, request["params"])
        peer.send(
            {
                "jsonrpc": "2.0",
                "id": request["id"],
                "result": result_instance(method, results[n % len(results)]),
            }
        )
        result = await call
        assert isinstance(result, info.result)
        validate(info.result.__name__, as_json(acp_v1, result))


@pytest.mark.parametrize("row_id", rows(METHOD_ROWS))
async def test_params_missing_a_required_member_never_reach_a_handler(
    acp_v1: Any, row_id: str
) -> None:
    method = METHOD_ROWS[row_id]
    info = acp_v1.METHODS[method]
    handler = Answering()
    conn, peer = plain_end(acp_v1, receiver_of(acp_v1, method), handler)
    params = instances(info.params.__name__, seed=5)[-1]
    required = DEFS[info.params.__name__].get("required", [])
    for n, member in enumerate(required):
        broken = {k: v for k, v in params.items() if k != member}
        if info.kind == "notification":
            peer.send({"jsonrpc": "2.0", "method": method, "params": broken})
        else:
            answer = await peer.call(n, method, broken)
            assert answer["error"]["code"] == -32602 and answer["error"]["data"]["path"].startswith(
                "$.params"
            ), answer
    if info.kind == "request":
        answer = await peer.call("not an object", method, [params])
        assert answer["error"]["code"] == -32602
    await refused_all(peer, handler, method, info, params)


async def refused_all(
    peer: RawPeer, handler: Answering, method: str, info: Any, valid: Any
) -> None:
    """Nothing sent so far reached the handler: for a notification, the valid one sent after them
    is the first the handler sees (notifications are handled in arrival order); and nothing but
    the answers already read was written."""
    if info.kind == "notification":
        peer.send({"jsonrpc": "2.0", "method": method, "params": valid})
        await until_seen(handler, 1)
        assert len(handler.seen) == 1 and isinstance(handler.seen[0][1], info.params), handler.seen
    else:
        assert handler.seen == []
    assert await silent(peer)


# --- wrong types, nested members, bad results: refused wherever the schema forgives nothing -------

BROKEN = 40  # broken instances tried per def


def all_forgiven(def_name: str) -> bool:
    """Whether a def requires nothing and forgives a bad value in every member it declares."""
    return wire_cases.all_forgiven(DEFS, def_name)


def broken_instances(def_name: str, seed: int) -> list[tuple[Any, str]]:
    """Instances the schema rejects, each one member missing, of a wrong type or null, at any depth
    below the root where the schema forgives nothing; (instance, what is broken where)."""
    return wire_cases.broken_instances(SCHEMA, def_name, count=BROKEN, seed=seed)


@pytest.mark.parametrize("row_id", rows(METHOD_ROWS))
async def test_params_broken_where_the_schema_forgives_nothing_never_reach_a_handler(
    acp_v1: Any, row_id: str
) -> None:
    method = METHOD_ROWS[row_id]
    info = acp_v1.METHODS[method]
    handler = Answering()
    conn, peer = plain_end(acp_v1, receiver_of(acp_v1, method), handler)
    broken = broken_instances(info.params.__name__, seed=6)
    if not broken:  # then the schema forgives every member (logout: `_meta` alone)
        assert all_forgiven(info.params.__name__), "no broken instance to try"
    for n, (params, description) in enumerate(broken):
        if info.kind == "notification":
            peer.send({"jsonrpc": "2.0", "method": method, "params": params})
        else:
            answer = await peer.call(n, method, params)
            assert answer.get("error", {}).get("code") == -32602, (description, answer)
    await refused_all(peer, handler, method, info, instances(info.params.__name__, seed=5)[-1])


REQUEST_ROWS = [
    rid for rid in METHOD_ROWS if not derived_objects(rid)[0][0].endswith("Notification")
]


@pytest.mark.parametrize("row_id", rows(REQUEST_ROWS))
async def test_results_broken_where_the_schema_forgives_nothing_fail_the_call(
    acp_v1: Any, row_id: str
) -> None:
    method = METHOD_ROWS[row_id]
    info = acp_v1.METHODS[method]
    sender = "agent" if receiver_of(acp_v1, method) == "client" else "client"
    conn, peer = plain_end(acp_v1, sender, Answering())
    params = acp_v1.decode(json.dumps(instances(info.params.__name__, seed=3)[-1]), info.params)
    bad = [(result, what) for result, what in broken_instances(info.result.__name__, seed=8)]
    bad += [
        (value, f"a result that is no object at $: {value!r}") for value in ([], "done", 7, True)
    ]
    for result, description in bad:
        call = asyncio.ensure_future(conn.request(method, params))
        request = await peer.recv()
        if isinstance(result, dict) and mutation_path(description)[:1] != ("protocolVersion",):
            result = result_instance(method, result)
        peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
        with pytest.raises(acp_v1.RpcError) as failed:
            await call
        assert failed.value.code == -32603, description  # never taken as a typed result


@requirement("ACP-V1-SCHEMA-REQUEST-PERMISSION-SHAPE")
async def test_a_result_with_a_union_tag_of_the_wrong_type_fails_the_call_naming_it(
    acp_v1: Any,
) -> None:
    params = instances("RequestPermissionRequest", seed=3)[-1]
    with pytest.raises(acp_v1.RpcError, match="Invalid result"):
        await called(
            acp_v1, "session/request_permission", params, {"outcome": {"outcome": ["selected"]}}
        )


# --- unions and values the rows name --------------------------------------------------------------


CONTENT_BLOCKS = [
    {"type": "text", "text": "hi"},
    {"type": "image", "data": "aGk=", "mimeType": "image/png"},
    {"type": "audio", "data": "aGk=", "mimeType": "audio/wav"},
    {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "a"}},
    {"type": "resource_link", "name": "a", "uri": "file:///a.txt"},
]
PROMPT_CAPABILITIES = {
    "promptCapabilities": {"image": True, "audio": True, "embeddedContext": True}
}


@requirement("ACP-V1-SCHEMA-CONTENT-BLOCK-VARIANTS")
async def test_each_content_block_variant_arrives_as_its_own_type(acp_v1: Any) -> None:
    agent_conn, client_conn, agent_tap, client_tap = await pair(
        acp_v1, agent_with(PROMPT_CAPABILITIES)
    )
    await client_conn.agent.session_prompt(
        typed(acp_v1, "session/prompt", {"sessionId": "s1", "prompt": CONTENT_BLOCKS})
    )
    received = agent_conn.handler.seen[-1][1].prompt
    kinds = [
        acp_v1.TextContent,
        acp_v1.ImageContent,
        acp_v1.AudioContent,
        acp_v1.EmbeddedResource,
        acp_v1.ResourceLink,
    ]
    assert [type(block) for block in received] == kinds
    assert as_json(acp_v1, received) == CONTENT_BLOCKS


@requirement("ACP-V1-SCHEMA-CONTENT-BLOCK-VARIANTS")
async def test_a_content_block_of_no_stable_variant_is_refused(acp_v1: Any) -> None:
    conn, peer = await raw_client(acp_v1)
    for n, block in enumerate(
        [{"type": "video", "data": "x"}, {"type": "image", "data": "x"}, {"type": "text"}]
    ):
        answer = await peer.call(n, "session/prompt", {"sessionId": "s1", "prompt": [block]})
        assert answer["error"]["code"] == -32602, answer
    assert conn.handler.seen == []


@requirement("ACP-V1-SCHEMA-CONTENT-BLOCK-VARIANTS")
async def test_a_content_block_without_a_type_is_refused(acp_v1: Any) -> None:
    conn, peer = await raw_client(acp_v1)
    answer = await peer.call(
        1, "session/prompt", {"sessionId": "s1", "prompt": [{"text": "no type"}]}
    )
    assert answer["error"]["code"] == -32602, answer


@requirement("ACP-V1-SCHEMA-CONTENT-BLOCK-VARIANTS")
async def test_each_tool_call_content_variant_arrives_as_its_own_type(acp_v1: Any) -> None:
    content = [
        {"type": "content", "content": {"type": "text", "text": "done"}},
        {"type": "diff", "path": "/w/a.txt", "oldText": "a", "newText": "b"},
        {"type": "terminal", "terminalId": "t1"},
    ]
    client = Client()
    agent_conn, client_conn, *_ = await pair(acp_v1, client=client)
    update = {"sessionUpdate": "tool_call", "toolCallId": "c1", "title": "Edit", "content": content}
    await agent_conn.client.session_update(
        typed(acp_v1, "session/update", {"sessionId": "s1", "update": update})
    )
    await agent_conn.request("_ping", {})
    received = client.seen[0][1].update.content
    assert [type(c) for c in received] == [acp_v1.Content, acp_v1.Diff, acp_v1.Terminal]
    assert as_json(acp_v1, received) == content


@requirement("ACP-V1-SCHEMA-STOP-REASON-VALUES")
async def test_every_stable_stop_reason_and_no_other_ends_a_turn(acp_v1: Any) -> None:
    reasons = ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
    assert sorted(r.value for r in acp_v1.StopReason) == sorted(reasons)
    conn, peer = await raw_agent(acp_v1)
    conn.sessions["s1"] = {}  # as if set up: this test is about the answer
    for reason in [*reasons, "paused"]:
        call = asyncio.ensure_future(
            conn.agent.session_prompt(
                typed(acp_v1, "session/prompt", {"sessionId": "s1", "prompt": []})
            )
        )
        request = await peer.recv()
        peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"stopReason": reason}})
        if reason in reasons:
            assert (await call).stop_reason == acp_v1.StopReason(reason)
        else:
            with pytest.raises(acp_v1.RpcError):
                await call


PREDEFINED = {
    -32700: "ParseError",
    -32600: "InvalidRequestError",
    -32601: "MethodNotFoundError",
    -32602: "InvalidParamsError",
    -32603: "InternalError",
    -32800: "RequestCancelledError",
    -32000: "AuthenticationRequiredError",
    -32002: "ResourceNotFoundError",
}


@requirement("ACP-V1-SCHEMA-ERROR-OBJECT")
async def test_the_predefined_error_codes_keep_their_meaning_both_ways(acp_v1: Any) -> None:
    class Raising(Agent):
        async def ext_method(self, method: str, params: Any) -> Any:
            raise getattr(acp_v1, params["raise"])("it failed", {"why": "test"})

    agent_conn, client_conn, agent_tap, client_tap = await pair(acp_v1, Raising)
    for code, name in PREDEFINED.items():
        assert (
            acp_v1.error_for(code, "m").__class__ is getattr(acp_v1, name)
            and getattr(acp_v1, name).code == code
        )
        with pytest.raises(getattr(acp_v1, name)) as failed:
            await client_conn.request("_fail", {"raise": name})
        assert (failed.value.code, failed.value.message, failed.value.data) == (
            code,
            "it failed",
            {"why": "test"},
        )
    for answer in (m for m in agent_tap.messages() if "error" in m):
        validate("Error", answer["error"])


MCP_SERVERS = [
    {
        "name": "local",
        "command": "/usr/bin/mcp",
        "args": ["--stdio"],
        "env": [{"name": "K", "value": "v"}],
    },
    {
        "type": "http",
        "name": "remote",
        "url": "https://mcp.example.com",
        "headers": [{"name": "A", "value": "b"}],
    },
    {"type": "sse", "name": "events", "url": "https://mcp.example.com/sse", "headers": []},
]


@requirement("ACP-V1-SCHEMA-MCP-SERVER-VARIANTS")
async def test_each_mcp_server_variant_arrives_as_its_own_type(acp_v1: Any) -> None:
    agent_conn, client_conn, *_ = await pair(
        acp_v1, agent_with({"mcpCapabilities": {"http": True, "sse": True}}), session=False
    )
    await client_conn.agent.session_new(
        typed(acp_v1, "session/new", {"cwd": "/w", "mcpServers": MCP_SERVERS})
    )
    received = agent_conn.handler.seen[-1][1].mcp_servers
    assert [type(s) for s in received] == [
        acp_v1.McpServerStdio,
        acp_v1.McpServerHttp,
        acp_v1.McpServerSse,
    ]
    assert as_json(acp_v1, received) == MCP_SERVERS


@requirement("ACP-V1-SCHEMA-MCP-SERVER-VARIANTS")
async def test_an_mcp_server_entry_missing_its_variants_members_is_never_delivered(
    acp_v1: Any,
) -> None:
    """`mcpServers` forgives no bad entry (the 2.4.0 schema marks it x-deserialize-default-on-null
    only): a request with one is refused -32602 and never reaches the handler."""
    conn, peer = await raw_client(acp_v1)
    seen = len(conn.handler.seen)
    for n, broken in enumerate(
        [
            {"type": "http", "name": "no url", "headers": []},
            {"name": "stdio without args", "command": "/bin/m", "env": []},
        ]
    ):
        answer = await peer.call(
            n, "session/new", {"cwd": "/w", "mcpServers": [broken, MCP_SERVERS[0]]}
        )
        assert answer["error"]["code"] == -32602, answer
    assert len(conn.handler.seen) == seen


@requirement("ACP-V1-SCHEMA-MCP-SERVER-VARIANTS")
async def test_an_mcp_server_of_an_unknown_type_is_never_taken_for_a_stable_one(
    acp_v1: Any,
) -> None:
    conn, peer = await raw_client(acp_v1)
    seen = len(conn.handler.seen)
    websocket = {"type": "websocket", "name": "ws", "url": "wss://mcp.example.com", "headers": []}
    answer = await peer.call(1, "session/new", {"cwd": "/w", "mcpServers": [websocket]})
    assert answer["error"]["code"] == -32602 and len(conn.handler.seen) == seen


AUTH_METHODS = [
    {"id": "agent-login", "name": "Log in"},
    {"type": "agent", "id": "agent-typed", "name": "Log in, typed"},
    {
        "type": "terminal",
        "id": "tui",
        "name": "Log in in a terminal",
        "args": ["--login"],
        "env": {"MODE": "login"},
    },
]


@requirement("ACP-V1-SCHEMA-AUTH-METHOD-VARIANTS")
async def test_each_auth_method_variant_arrives_as_its_own_type(acp_v1: Any) -> None:
    agent_conn, client_conn, *_ = await pair(
        acp_v1,
        agent_with(authMethods=AUTH_METHODS),
        client_capabilities={"auth": {"terminal": True}},
        session=False,
    )
    methods = client_conn.peer_initialize.auth_methods
    assert [type(m) for m in methods] == [
        acp_v1.AuthMethodAgent,
        acp_v1.AuthMethodAgent,
        acp_v1.AuthMethodTerminal,
    ]
    assert [m.id for m in methods] == ["agent-login", "agent-typed", "tui"]
    assert as_json(acp_v1, methods[2]) == AUTH_METHODS[2]


@requirement("ACP-V1-SCHEMA-AUTH-METHOD-VARIANTS")
async def test_an_auth_method_of_an_unknown_type_is_never_taken_for_a_stable_one(
    acp_v1: Any,
) -> None:
    conn, peer = await raw_agent(acp_v1, initialize=False)
    call = asyncio.ensure_future(
        conn.agent.initialize(typed(acp_v1, "initialize", {"protocolVersion": 1}))
    )
    request = await peer.recv()
    oauth = {"type": "oauth", "id": "o", "name": "OAuth", "authorizationUrl": "https://x"}
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": request["id"],
            "result": {"protocolVersion": 1, "authMethods": [oauth]},
        }
    )
    assert (await call).auth_methods == []


# --- capability-gated shapes ----------------------------------------------------------------------


@requirement("ACP-V1-AUTH-AGENT-TERMINAL-METHOD-ONLY-WITH-CAPABILITY")
async def test_an_agent_offers_a_terminal_auth_method_only_to_a_client_that_enabled_it(
    acp_v1: Any,
) -> None:
    terminal = [{"type": "terminal", "id": "tui", "name": "Log in in a terminal"}]
    for capabilities in ({}, {"auth": {}}, {"auth": {"terminal": False}}):
        conn, peer = await raw_client(acp_v1, agent_with(authMethods=terminal), initialize=False)
        answer = await peer.call(
            0, "initialize", {"protocolVersion": 1, "clientCapabilities": capabilities}
        )
        assert answer["error"]["code"] == -32603 and "tui" not in json.dumps(answer), answer
    conn, peer = await raw_client(acp_v1, agent_with(authMethods=terminal), initialize=False)
    answer = await peer.call(
        0, "initialize", {"protocolVersion": 1, "clientCapabilities": {"auth": {"terminal": True}}}
    )
    assert answer["result"]["authMethods"] == terminal


@requirement("ACP-V1-PROMPT-CLIENT-CONTEXT-BLOCKS-MAY")
async def test_a_client_may_give_context_as_resource_links_or_embedded_resources(
    acp_v1: Any,
) -> None:
    link = {"type": "resource_link", "name": "main.rs", "uri": "file:///w/src/main.rs"}
    embedded = {
        "type": "resource",
        "resource": {
            "uri": "file:///w/src/lib.rs",
            "text": "fn main() {}",
            "mimeType": "text/x-rust",
        },
    }
    agent_conn, client_conn, *_ = await pair(acp_v1)  # no embeddedContext: links only
    await client_conn.agent.session_prompt(
        typed(acp_v1, "session/prompt", {"sessionId": "s1", "prompt": [link]})
    )
    with pytest.raises(CapabilityError, match="embeddedContext"):
        await client_conn.agent.session_prompt(
            typed(acp_v1, "session/prompt", {"sessionId": "s1", "prompt": [embedded]})
        )
    agent_conn, client_conn, *_ = await pair(
        acp_v1, agent_with({"promptCapabilities": {"embeddedContext": True}})
    )
    prompt = {"sessionId": "s1", "prompt": [{"type": "text", "text": "look"}, link, embedded]}
    await client_conn.agent.session_prompt(typed(acp_v1, "session/prompt", prompt))
    assert as_json(acp_v1, agent_conn.handler.seen[-1][1].prompt) == prompt["prompt"]


@requirement("ACP-V1-SCHEMA-ELICITATION-CREATE-SHAPE")
async def test_an_elicitation_of_an_unknown_mode_still_needs_the_members_every_mode_has(
    acp_v1: Any,
) -> None:
    handler = Answering()
    conn, peer = plain_end(acp_v1, "client", handler)
    for n, params in enumerate(
        [{"mode": "_custom", "sessionId": "s1"}, {"mode": "_custom", "message": "m"}]
    ):
        answer = await peer.call(n, "elicitation/create", params)
        assert answer.get("error", {}).get("code") == -32602, (params, answer)
    assert handler.seen == []


# --- the rows the audit named: initialize (187) and terminal/create, output, release (205-207) ----


async def served(pkg: Any, method: str, params: Any) -> tuple[Any, Answering]:
    """The answer of a runtime receiver (protocol rules off) to `params`, and its handler."""
    handler = Answering()
    handler.result = pkg.decode(
        json.dumps(result_instance(method, instances(pkg.REQUESTS[method].result.__name__, 2)[-1])),
        pkg.REQUESTS[method].result,
    )
    conn, peer = plain_end(pkg, receiver_of(pkg, method), handler)
    return await peer.call(1, method, params), handler


async def called(pkg: Any, method: str, params: Any, result: Any) -> Any:
    """What a runtime caller's call of `method` gives when the peer answers `result`."""
    sender = "agent" if receiver_of(pkg, method) == "client" else "client"
    conn, peer = plain_end(pkg, sender, Answering())
    call = asyncio.ensure_future(
        conn.request(method, pkg.decode(json.dumps(params), pkg.METHODS[method].params))
    )
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
    return await call


INITIALIZE = {"protocolVersion": 1, "clientCapabilities": {"fs": {"readTextFile": True}}}
TERMINAL = {"sessionId": "s1", "terminalId": "t1"}
CREATE = {
    "sessionId": "s1",
    "command": "make",
    "args": ["test"],
    "env": [{"name": "CI", "value": "1"}],
}


@requirement("ACP-V1-SCHEMA-INITIALIZE-SHAPE")
@pytest.mark.parametrize(
    "params",
    [
        {"protocolVersion": "1"},
        {"protocolVersion": 1.5},
        {"protocolVersion": None},
        {"clientCapabilities": {}},
        [1],
    ],
    ids=["version-string", "version-fraction", "version-null", "version-missing", "not-an-object"],
)
async def test_an_initialize_request_of_the_wrong_shape_is_refused(
    acp_v1: Any, params: Any
) -> None:
    answer, handler = await served(acp_v1, "initialize", params)
    assert answer["error"]["code"] == -32602 and handler.seen == [], answer


@requirement("ACP-V1-SCHEMA-INITIALIZE-SHAPE")
async def test_nested_capabilities_of_the_wrong_type_mean_not_advertised_as_the_schema_says(
    acp_v1: Any,
) -> None:
    """The schema marks capability members x-deserialize-default-on-error: a bad nested value is
    read as not advertised, never passed on, and the rest of the object is kept."""
    params = {
        "protocolVersion": 1,
        "clientCapabilities": {"fs": {"readTextFile": "yes", "writeTextFile": True}, "terminal": 1},
    }
    answer, handler = await served(acp_v1, "initialize", params)
    assert "result" in answer, answer
    capabilities = handler.seen[0][1].client_capabilities
    assert capabilities.fs.read_text_file is False and capabilities.fs.write_text_file is True
    assert capabilities.terminal is False


@requirement("ACP-V1-SCHEMA-INITIALIZE-SHAPE")
@pytest.mark.parametrize(
    "result",
    [{}, {"protocolVersion": "1"}, {"protocolVersion": None}, [], "ok"],
    ids=["version-missing", "version-string", "version-null", "array", "string"],
)
async def test_an_initialize_answer_of_the_wrong_shape_fails_the_call(
    acp_v1: Any, result: Any
) -> None:
    with pytest.raises(acp_v1.RpcError, match="Invalid result"):
        await called(acp_v1, "initialize", INITIALIZE, result)


@requirement("ACP-V1-SCHEMA-INITIALIZE-SHAPE")
async def test_nested_agent_capabilities_of_the_wrong_type_mean_not_advertised(acp_v1: Any) -> None:
    result = {
        "protocolVersion": 1,
        "agentCapabilities": {
            "loadSession": "yes",
            "promptCapabilities": {"image": True, "audio": []},
        },
    }
    answer = await called(acp_v1, "initialize", INITIALIZE, result)
    capabilities = answer.agent_capabilities
    assert capabilities.load_session is False
    assert (capabilities.prompt_capabilities.image, capabilities.prompt_capabilities.audio) == (
        True,
        False,
    )


@requirement("ACP-V1-SCHEMA-TERMINAL-CREATE-SHAPE")
@pytest.mark.parametrize(
    "params",
    [
        {**CREATE, "command": ["make", "test"]},
        {**CREATE, "command": None},
        {**CREATE, "sessionId": 7},
        {k: v for k, v in CREATE.items() if k != "command"},
    ],
    ids=["command-array", "command-null", "session-number", "command-missing"],
)
async def test_a_terminal_create_request_of_the_wrong_shape_is_refused(
    acp_v1: Any, params: Any
) -> None:
    answer, handler = await served(acp_v1, "terminal/create", params)
    assert answer["error"]["code"] == -32602 and handler.seen == [], answer


@requirement("ACP-V1-SCHEMA-TERMINAL-CREATE-SHAPE")
async def test_bad_env_entries_and_args_are_refused_and_a_null_takes_the_default(
    acp_v1: Any,
) -> None:
    """`env` and `args` forgive no bad entry in the 2.4.0 schema (nested: an env variable without
    its value, or of the wrong type): the request is refused -32602. They are marked
    x-deserialize-default-on-null: a null is taken as left out."""
    for params in (
        {**CREATE, "env": [{"name": "A", "value": "1"}, {"name": "B"}]},
        {**CREATE, "env": [{"name": "C", "value": 3}]},
        {**CREATE, "args": ["-j", 2, "all"]},
    ):
        answer, handler = await served(acp_v1, "terminal/create", params)
        assert answer["error"]["code"] == -32602, (params, answer)
        assert handler.seen == []
    answer, handler = await served(acp_v1, "terminal/create", {**CREATE, "env": None, "args": None})
    assert "result" in answer, answer
    received = handler.seen[0][1]
    assert received.env is msgspec.UNSET and received.args is msgspec.UNSET


@requirement("ACP-V1-SCHEMA-TERMINAL-CREATE-SHAPE")
@pytest.mark.parametrize(
    "result",
    [{}, {"terminalId": 7}, {"terminalId": None}, ["t1"]],
    ids=["missing", "number", "null", "array"],
)
async def test_a_terminal_create_answer_without_a_terminal_id_string_fails_the_call(
    acp_v1: Any, result: Any
) -> None:
    with pytest.raises(acp_v1.RpcError, match="Invalid result"):
        await called(acp_v1, "terminal/create", CREATE, result)


@requirement("ACP-V1-SCHEMA-TERMINAL-OUTPUT-SHAPE")
@pytest.mark.parametrize(
    "params",
    [{"sessionId": "s1"}, {**TERMINAL, "terminalId": 1}, {**TERMINAL, "sessionId": None}],
    ids=["terminal-missing", "terminal-number", "session-null"],
)
async def test_a_terminal_output_request_of_the_wrong_shape_is_refused(
    acp_v1: Any, params: Any
) -> None:
    answer, handler = await served(acp_v1, "terminal/output", params)
    assert answer["error"]["code"] == -32602 and handler.seen == [], answer


@requirement("ACP-V1-SCHEMA-TERMINAL-OUTPUT-SHAPE")
@pytest.mark.parametrize(
    "result",
    [
        {"output": "ok"},
        {"output": "ok", "truncated": "no"},
        {"output": 5, "truncated": False},
        {"truncated": True},
    ],
    ids=["truncated-missing", "truncated-string", "output-number", "output-missing"],
)
async def test_a_terminal_output_answer_of_the_wrong_shape_fails_the_call(
    acp_v1: Any, result: Any
) -> None:
    with pytest.raises(acp_v1.RpcError, match="Invalid result"):
        await called(acp_v1, "terminal/output", TERMINAL, result)


@requirement("ACP-V1-SCHEMA-TERMINAL-OUTPUT-SHAPE")
async def test_an_exit_status_is_typed_and_a_bad_one_read_as_absent_as_the_schema_says(
    acp_v1: Any,
) -> None:
    """exitStatus (and its members) are x-deserialize-default-on-error: a bad nested value is read
    as absent, never passed on as a wrong type, and the rest of the answer is kept."""
    ok = {"output": "ok", "truncated": False}
    good = await called(
        acp_v1, "terminal/output", TERMINAL, {**ok, "exitStatus": {"exitCode": 2, "signal": None}}
    )
    assert (good.exit_status.exit_code, good.exit_status.signal) == (2, None)
    bad = await called(
        acp_v1, "terminal/output", TERMINAL, {**ok, "exitStatus": {"exitCode": "two", "signal": 9}}
    )
    assert bad.output == "ok" and (bad.exit_status.exit_code, bad.exit_status.signal) == (
        msgspec.UNSET,
        msgspec.UNSET,
    )
    worse = await called(acp_v1, "terminal/output", TERMINAL, {**ok, "exitStatus": "exited"})
    assert worse.output == "ok" and worse.exit_status is msgspec.UNSET


@requirement("ACP-V1-SCHEMA-TERMINAL-RELEASE-SHAPE")
@pytest.mark.parametrize(
    "params",
    [{"terminalId": "t1"}, {**TERMINAL, "terminalId": ["t1"]}, {**TERMINAL, "sessionId": 1}],
    ids=["session-missing", "terminal-array", "session-number"],
)
async def test_a_terminal_release_request_of_the_wrong_shape_is_refused(
    acp_v1: Any, params: Any
) -> None:
    answer, handler = await served(acp_v1, "terminal/release", params)
    assert answer["error"]["code"] == -32602 and handler.seen == [], answer


@requirement("ACP-V1-SCHEMA-TERMINAL-RELEASE-SHAPE")
@pytest.mark.parametrize(
    "result", [[], "released", 1, True], ids=["array", "string", "number", "boolean"]
)
async def test_a_terminal_release_answer_that_is_no_object_fails_the_call(
    acp_v1: Any, result: Any
) -> None:
    with pytest.raises(acp_v1.RpcError, match="Invalid result"):
        await called(acp_v1, "terminal/release", TERMINAL, result)
