"""Generated input on ACP v2 connections: every method of `acp_schema_v2`, with instances nobody
wrote by hand, drawn from `schema/v2/schema.json` (codegen/instances.py), sent raw.

For every method an agent or a client receives (`RECEIVED_BY`: a method both sides receive, such
as `$/cancel_request`, is tried on both; the proxy side's methods, x-side "proxy", are served by
neither and answered -32601, see tests/runtime/test_proxy_methods.py):
- valid params reach the receiving handler as the typed params, and re-encode to what was sent;
  the one difference allowed is the v1 differential's (tests/support/agreement.py): a member the
  sender left out may come back with its schema `default`. (Undeclared keys are never drawn where
  the schema does not say `additionalProperties`, so none is allowed for.)
- the same with a value of an open set in those params replaced by an unknown one drawn to stress
  the encoder (tests/support/unknown_values.py: mixed case, escapes, control and astral
  characters, lengths past 64 KiB): it arrives exactly as sent;
- params broken where the schema forgives nothing (tests/support/wire_cases.py) never reach the
  handler: a request is answered -32602, a notification not at all, and the connection then
  serves a valid message of the method and answers a probe next; a refused request's
  `data.path` is `$.params` or a path on the way to the broken value (a union whose variant
  cannot be told names itself; a path that names no value of the params is a failure);
- for a request, valid results reach the caller typed and re-encode to what was sent (the same
  allowance), and a result broken where the schema forgives nothing fails the caller's call with
  -32603 and is never returned as a typed result.
A def without a typed form (generated as its checked general form, `__acp_any__`: here
elicitation/create's params) arrives as the JSON value it came as, and bad input to it is still
refused, as its schema check says. A result def that constrains nothing (typed `Any`) has no
broken form: any JSON answered is the result, unchanged (the committed schema's only such result
is the proxy side's, so that test takes a fixture revision's, mcp/message, which both sides
receive).

How the connections are driven: each is a real v2 connection, routed by `acp_runtime.versions`
(an `AgentVersions` / `ClientVersions` serving v1 and v2), settled to v2 by one `initialize`
before anything else, so the method tables, codec and rules in force are the ones routing binds.
Protocol rules are off (`enforce_protocol=False`, as in tests/conformance/test_schema_rows.py):
the instances are random (sessions never set up, turns never opened, message chunks without the
ids the `message-id` rule asks for), and the shape of what is read is what is tested here.

What these tests found in the codec, fixed since, keeps a hand-made repro at the end: data.path
lost steps inside an optional member holding union items, and a select config option in a result
was dropped (its options, a union of two constrained lists, failed the union's isinstance check).
"""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest

import acp_schema as v1
import acp_schema_v2 as v2
from acp_runtime import AgentSideConnection, ClientSideConnection, memory_pipe, rules
from acp_runtime.versions import AgentRoute, AgentVersions, ClientRoute, ClientVersions
from acpgen.instances import Mutation, valid_instances_with_defaults
from tests.support.agreement import same_json, without_added_defaults
from tests.support.packages import FIXTURES, generated_package
from tests.support.unknown_values import open_set_paths, replaced, substitutions
from tests.support.wire_cases import Answering, all_forgiven, broken_mutations

from .helpers import RawPeer
from .v2peers import AgentV1

SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "schema" / "v2" / "schema.json").read_text("utf-8")
)
DEFS = SCHEMA["$defs"]
VERSION = 2  # the protocol version the v2 route serves
COUNT = 3  # valid instances per def and seed
SEEDS = (1, 2, 3)  # valid params: COUNT instances of each
BROKEN = 40  # mutations drawn per def and seed, of which those broken where nothing is forgiven
BROKEN_SEEDS = (6, 7)  # params; results take (8, 9)
NOT_OBJECTS = ([], "done", 7, True)


def def_of(method: str, tp: Any, pkg: Any = v2, schema: Any = SCHEMA) -> str:
    """The schema def of `method` (its `x-method`) that the package generated as `tp`."""
    found = [
        name
        for name, node in schema["$defs"].items()
        if node.get("x-method") == method and getattr(pkg.types, name, None) is tp
    ]
    assert len(found) == 1, (method, tp, found)
    return found[0]


def other(side: str) -> str:
    return "client" if side == "agent" else "agent"


def case_id(side: str, info: Any) -> str:
    return f"{side}-{info.method}" + ("-notification" if info.kind == "notification" else "")


SIDES = ("agent", "client")  # the runtime's roles (it has no proxy role yet)
RECEIVED = [
    pytest.param(side, info, id=case_id(side, info))
    for side in SIDES
    for info in v2.RECEIVED_BY[side]
]
CALLED = [  # (caller, request) for each request whose result the schema constrains
    pytest.param(other(side), info, id=case_id(other(side), info))
    for side in SIDES
    for info in v2.RECEIVED_BY[side]
    if info.kind == "request" and info.result is not Any
]
# A result def that constrains nothing ("any JSON value is valid", typed `Any`): the committed v2
# schema's one is proxy/successor's, which only the proxy side (no runtime role yet) receives, so
# these cases come from a fixture revision with one both sides receive (mcp/message).
OPEN_RESULTS_SCHEMA = FIXTURES / "schemas" / "v2-unstable-2026-08-21.json"


def broken(def_name: str, seeds: tuple[int, ...]) -> list[Mutation]:
    """Mutations of `def_name` values that break them where the schema forgives nothing, drawn
    with each of `seeds` (the same value drawn twice is tried once)."""
    found = {
        json.dumps(m.instance, sort_keys=True): m
        for seed in seeds
        for m in broken_mutations(SCHEMA, def_name, count=BROKEN, seed=seed)
    }
    return list(found.values())


def valid(def_name: str, seeds: tuple[int, ...] = SEEDS) -> list[tuple[Any, Any]]:
    """(instance, its schema defaults by path) of `def_name`, COUNT per seed."""
    found = [
        pair
        for seed in seeds
        for pair in valid_instances_with_defaults(SCHEMA, def_name, count=COUNT, seed=seed)
    ]
    assert found, def_name
    return found


def as_json(value: Any) -> Any:
    return msgspec.json.decode(v2.encode(value))


def answered(method: str, result: Any) -> Any:
    """A result as a peer of this version answers it (initialize names the version spoken)."""
    if method == rules.INITIALIZE and isinstance(result, dict):
        return {**result, rules.PROTOCOL_VERSION: VERSION}
    return result


def typed_results(info: Any, seed: int) -> list[Any]:
    """Typed results of `info` for a handler to answer (JSON values for an open result)."""
    if info.result is Any:
        return [value for value, _ in valid(def_of(info.method, Any), (seed,))]
    name = def_of(info.method, info.result)
    return [
        v2.decode(json.dumps(answered(info.method, value)), info.result)
        for value, _ in valid(name, (seed,))
    ]


def general_form(tp: Any) -> bool:
    """Whether `tp` is a checked general form: any JSON value the schema accepts, kept as is."""
    return bool(getattr(tp, "__acp_any__", False))


def arrived_as_sent(received: Any, tp: Any, sent: Any, defaults: Any) -> None:
    """`received` is `sent` read as `tp`: typed, and re-encoding to `sent` (schema defaults of
    members `sent` left out aside); a general form's value is the JSON value itself."""
    if general_form(tp):
        assert not isinstance(received, msgspec.Struct) and same_json(received, sent), received
        return
    assert isinstance(received, tp) and not isinstance(received, dict), (tp, received)
    back = as_json(received)
    assert same_json(without_added_defaults(back, sent, defaults), sent), (sent, back)


# --- v2 connections, routed by initialize -------------------------------------------------------


INITIALIZE = {"protocolVersion": VERSION, "info": {"name": "raw", "version": "1"}}


async def agent_end(handler: Answering) -> tuple[AgentSideConnection[Any], RawPeer]:
    """An agent serving v1 and v2 (`handler` for v2), rules off, and a raw client that settled
    it to v2 with its initialize."""
    (conn_in, conn_out), (peer_in, peer_out) = memory_pipe()
    routes = AgentVersions(AgentRoute(1, v1, AgentV1), AgentRoute(VERSION, v2, handler))
    conn = AgentSideConnection(routes, conn_in, conn_out, enforce_protocol=False)
    peer = RawPeer(peer_in, peer_out)
    handler.result = v2.InitializeResponse(
        protocol_version=VERSION, info=v2.Implementation(name="agent", version="1")
    )
    answer = await peer.call("routing", rules.INITIALIZE, INITIALIZE)
    assert answer["result"]["protocolVersion"] == VERSION and conn.schema is v2, answer
    handler.seen.clear()
    handler.arrived.get_nowait()
    return conn, peer


async def client_end(handler: Answering) -> tuple[ClientSideConnection[Any], RawPeer]:
    """A client of v1 and v2 (`handler` for v2), rules off, settled to v2 by a raw agent's
    answer to its initialize."""
    (conn_in, conn_out), (peer_in, peer_out) = memory_pipe()
    routes = ClientVersions(
        ClientRoute(1, v1, v1.ClientHandler()), ClientRoute(VERSION, v2, handler)
    )
    conn = ClientSideConnection(routes, conn_in, conn_out, enforce_protocol=False)
    peer = RawPeer(peer_in, peer_out)
    call = asyncio.ensure_future(
        conn.request(rules.INITIALIZE, v2.decode(json.dumps(INITIALIZE), v2.InitializeRequest))
    )
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": INITIALIZE})
    await call
    assert conn.protocol_version == VERSION and conn.schema is v2
    return conn, peer


async def end(side: str, handler: Answering) -> tuple[Any, RawPeer]:
    return await (agent_end if side == "agent" else client_end)(handler)


def send(peer: RawPeer, info: Any, params: Any) -> None:
    peer.send({"jsonrpc": "2.0", "method": info.method, "params": params})


async def probe_answered_next(peer: RawPeer) -> None:
    """Nothing was written but the answers already read: the next message answers a probe."""
    peer.send({"jsonrpc": "2.0", "id": "probe", "method": "_probe", "params": {}})
    message = await peer.recv()
    assert message.get("id") == "probe" and "method" not in message, message


# --- 1. valid params arrive typed, as sent ------------------------------------------------------


@pytest.mark.parametrize(("side", "info"), RECEIVED)
async def test_valid_params_reach_the_handler_typed_and_re_encode_as_sent(
    side: str, info: Any
) -> None:
    handler = Answering()
    conn, peer = await end(side, handler)
    results = typed_results(info, seed=3) if info.kind == "request" else []
    for n, (params, defaults) in enumerate(valid(def_of(info.method, info.params))):
        if info.kind == "notification":
            send(peer, info, params)
            name, received = await handler.arrived.get()
        else:
            handler.result = results[n % len(results)]
            answer = await peer.call(n, info.method, params)
            assert "result" in answer, (params, answer)
            name, received = handler.arrived.get_nowait()
        assert name == info.handler
        arrived_as_sent(received, info.params, params, defaults)


@pytest.mark.parametrize(("caller", "info"), CALLED)
async def test_valid_results_reach_the_caller_typed_and_re_encode_as_sent(
    caller: str, info: Any
) -> None:
    conn, peer = await end(caller, Answering())
    (params_json, _), *_ = valid(def_of(info.method, info.params), (3,))
    params = v2.decode(json.dumps(params_json), info.params)
    for result, defaults in valid(def_of(info.method, info.result)):
        result = answered(info.method, result)
        call = asyncio.ensure_future(conn.request(info.method, params))
        request = await peer.recv()
        peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
        arrived_as_sent(await call, info.result, result, defaults)


def with_unknown_values(info: Any) -> list[tuple[Any, Any, str]]:
    """Valid params of `info` with a value of an open set replaced by an unknown one of
    UNKNOWN_VALUES (`substitutions`): (params, their defaults by path, the value put in)."""
    if general_form(info.params):
        return []
    out = []
    for n, (params, defaults) in enumerate(valid(def_of(info.method, info.params))):
        decoded = v2.decode(json.dumps(params), info.params)
        for path, unknown in substitutions(open_set_paths(decoded), n):
            out.append((replaced(params, path, unknown), defaults, unknown))
    return out


OPEN_SET_RECEIVED = [p for p in RECEIVED if with_unknown_values(p.values[1])]


def test_some_received_params_hold_open_sets() -> None:
    assert OPEN_SET_RECEIVED, "no params of the v2 package hold an open set: nothing is stressed"


@pytest.mark.parametrize(("side", "info"), OPEN_SET_RECEIVED)
async def test_unknown_values_of_open_sets_reach_the_handler_as_sent(side: str, info: Any) -> None:
    """Mixed case, escapes, control and astral characters, lengths past 64 KiB: an unknown value
    of an open set is kept exactly, and the params re-encode as sent."""
    handler = Answering()
    conn, peer = await end(side, handler)
    results = typed_results(info, seed=3) if info.kind == "request" else []
    for n, (params, defaults, unknown) in enumerate(with_unknown_values(info)):
        if info.kind == "notification":
            send(peer, info, params)
            name, received = await handler.arrived.get()
        else:
            handler.result = results[n % len(results)]
            answer = await peer.call(n, info.method, params)
            assert "result" in answer, (unknown[:20], answer)
            name, received = handler.arrived.get_nowait()
        assert name == info.handler
        arrived_as_sent(received, info.params, params, defaults)


# --- 2. broken params never reach the handler ---------------------------------------------------


@pytest.mark.parametrize(("side", "info"), RECEIVED)
async def test_params_broken_where_the_schema_forgives_nothing_never_reach_the_handler(
    side: str, info: Any
) -> None:
    handler = Answering()
    conn, peer = await end(side, handler)
    def_name = def_of(info.method, info.params)
    cases = broken(def_name, BROKEN_SEEDS)
    assert cases or all_forgiven(DEFS, def_name), "no broken instance to try"
    for n, case in enumerate(cases):
        if info.kind == "notification":
            send(peer, info, case.instance)
        else:
            answer = await peer.call(f"broken-{n}", info.method, case.instance)
            assert answer.get("error", {}).get("code") == -32602, (case.description, answer)
    (params, defaults), *_ = valid(def_of(info.method, info.params), (5,))
    if info.kind == "notification":
        send(peer, info, params)
        name, received = await handler.arrived.get()  # the first one the handler sees
    else:
        handler.result = typed_results(info, seed=3)[0]
        answer = await peer.call("valid", info.method, params)
        assert "result" in answer, answer
        name, received = handler.arrived.get_nowait()
    arrived_as_sent(received, info.params, params, defaults)
    assert handler.arrived.empty() and len(handler.seen) == 1, handler.seen
    await probe_answered_next(peer)


def on_the_way(path: Any, broken_at: tuple[Any, ...]) -> bool:
    """Whether an error's `data.path` is `$.params` or a path on the way to the broken value at
    `broken_at` (in the params). A map's key is written `[...]` where msgspec decoded it (msgspec
    names no key), or as the quoted key (`['k']`) where the codec's careful path located it."""
    if not isinstance(path, str) or not path.startswith("$"):
        return False
    steps = re.findall(r"\.([^.\[]+)|\[(\d+|\.\.\.|'[^']*'|\"[^\"]*\")\]", path[1:])
    if "".join(f".{k}" if k else f"[{i}]" for k, i in steps) != path[1:]:
        return False  # not a path msgspec writes
    way = ("params", *broken_at)
    return 1 <= len(steps) <= len(way) and all(
        (
            index == str(want)
            if isinstance(want, int)
            else key == want or index in ("...", repr(want))
        )
        for (key, index), want in zip(steps, way[: len(steps)], strict=True)
    )


REQUESTS_RECEIVED = [
    pytest.param(side, info, id=case_id(side, info))
    for side in SIDES
    for info in v2.RECEIVED_BY[side]
    if info.kind == "request"
]


@pytest.mark.parametrize(("side", "info"), REQUESTS_RECEIVED)
async def test_a_refused_request_names_the_failing_path_in_its_error_data(
    side: str, info: Any
) -> None:
    conn, peer = await end(side, Answering())
    missed = []
    for n, case in enumerate(broken(def_of(info.method, info.params), BROKEN_SEEDS)):
        error = (await peer.call(n, info.method, case.instance))["error"]
        if not on_the_way(error.get("data", {}).get("path"), case.path):
            missed.append((case.description, error))
    assert missed == []


# --- 3. broken results fail the call ------------------------------------------------------------


@pytest.mark.parametrize(("caller", "info"), CALLED)
async def test_results_broken_where_the_schema_forgives_nothing_fail_the_call(
    caller: str, info: Any
) -> None:
    conn, peer = await end(caller, Answering())
    (params_json, _), *_ = valid(def_of(info.method, info.params), (3,))
    params = v2.decode(json.dumps(params_json), info.params)
    result_def = def_of(info.method, info.result)
    bad = [(m.instance, m.description, m.path) for m in broken(result_def, (8, 9))]
    bad += [(value, f"a result that is no object: {value!r}", ()) for value in NOT_OBJECTS]
    for result, description, path in bad:
        call = asyncio.ensure_future(conn.request(info.method, params))
        request = await peer.recv()
        if path[:1] != (rules.PROTOCOL_VERSION,):
            result = answered(info.method, result)
        peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
        with pytest.raises(v2.RpcError) as failed:
            await call
        assert failed.value.code == -32603, description  # never taken as a typed result
    (result, _), *_ = valid(result_def, (10,))
    result = answered(info.method, result)
    call = asyncio.ensure_future(conn.request(info.method, params))
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
    assert isinstance(await call, info.result)  # a good answer is still taken


@pytest.fixture(scope="module")
def open_results(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """The package of OPEN_RESULTS_SCHEMA."""
    return generated_package(OPEN_RESULTS_SCHEMA, tmp_path_factory.mktemp("open-results"))


def open_requests(pkg: ModuleType, receiver: str) -> list[Any]:
    return [i for i in pkg.RECEIVED_BY[receiver] if i.kind == "request" and i.result is Any]


def instances(schema: Any, def_name: str, seeds: tuple[int, ...]) -> list[Any]:
    return [
        value
        for seed in seeds
        for value, _ in valid_instances_with_defaults(schema, def_name, count=COUNT, seed=seed)
    ]


# Any JSON value, beside the drawn ones: null, falsy values, an empty and a nested container.
ANY_JSON = [None, 0, False, "", {}, [], {"Nested": [1.5, {"k": None}], "_meta": {"x": "Y"}}]


@pytest.mark.parametrize("caller", SIDES)
async def test_a_result_the_schema_leaves_open_is_returned_as_it_came(
    caller: str, open_results: ModuleType
) -> None:
    """A request whose result def constrains nothing (typed `Any`) has no broken result: any JSON
    value the peer answers is the call's result, unchanged; and any JSON value a handler returns
    is the answer, unchanged (but None, a handler's "no result", answered {}). Over a plain
    connection of the fixture's package, rules off."""
    pkg = open_results
    schema = json.loads(OPEN_RESULTS_SCHEMA.read_text("utf-8"))
    requests = open_requests(pkg, other(caller))
    assert requests, f"{OPEN_RESULTS_SCHEMA.name} has no open result {other(caller)} receives"
    (conn_in, conn_out), (peer_in, peer_out) = memory_pipe()
    ends = {"agent": AgentSideConnection, "client": ClientSideConnection}
    handler = Answering()
    conn = ends[caller](handler, conn_in, conn_out, schema=pkg, enforce_protocol=False)
    peer = RawPeer(peer_in, peer_out)
    for info in requests:
        params_json = instances(schema, def_of(info.method, info.params, pkg, schema), (3,))[0]
        params = pkg.decode(json.dumps(params_json), info.params)
        results = instances(schema, def_of(info.method, Any, pkg, schema), SEEDS)
        for result in [*results, *ANY_JSON, *NOT_OBJECTS]:
            call = asyncio.ensure_future(conn.request(info.method, params))
            request = await peer.recv()
            assert request["params"] == params_json, request
            peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
            returned = await call
            assert same_json(returned, result), f"sent {result!r}, the call returned {returned!r}"
    for info in open_requests(pkg, caller):  # the caller's end also answers them: as returned
        params_json = instances(schema, def_of(info.method, info.params, pkg, schema), (4,))[0]
        for n, result in enumerate([*ANY_JSON, *NOT_OBJECTS]):
            handler.result = result
            answer = await peer.call(n, info.method, params_json)
            # None is how a handler says it has no result: answered {} (as for every request)
            expected = {} if result is None else result
            assert "result" in answer and same_json(answer["result"], expected), (result, answer)


# --- the bugs the generated inputs met (now fixed), on hand-made params -------------------------

LINK_WITHOUT_NAME = {"type": "resource_link", "uri": "https://x", "name": None}
SYSTEM_PROMPT = {"mode": "append", "content": [{"type": "text", "text": "a"}, LINK_WITHOUT_NAME]}
STDIO_ARGS_STRING = {"type": "stdio", "name": "m", "command": "c", "args": "x"}


@pytest.mark.parametrize(
    ("method", "params", "path"),
    [
        pytest.param(
            "session/new",
            {"cwd": "/w", "mcpServers": [STDIO_ARGS_STRING]},
            "$.params.mcpServers[0].args",
            id="new-mcp-server",
        ),
        pytest.param(
            "session/fork",
            {"sessionId": "s", "cwd": "/w", "systemPrompt": SYSTEM_PROMPT},
            "$.params.systemPrompt.content[1].name",
            id="fork-system-prompt-block",
        ),
        pytest.param(
            "session/resume",
            {"sessionId": "s", "cwd": "/w", "systemPrompt": SYSTEM_PROMPT},
            "$.params.systemPrompt.content[1].name",
            id="resume-system-prompt-block",
        ),
        pytest.param(  # the same block in a required list: named right
            "session/prompt",
            {"sessionId": "s", "prompt": SYSTEM_PROMPT["content"]},
            "$.params.prompt[1].name",
            id="prompt-block",
        ),
    ],
)
async def test_a_bad_union_item_is_named_by_its_full_path(
    method: str, params: Any, path: str
) -> None:
    conn, peer = await agent_end(Answering())
    error = (await peer.call(1, method, params))["error"]
    assert error["code"] == -32602 and error["data"]["path"] == path, error


SELECT = {
    "configId": "model",
    "name": "Model",
    "type": "select",
    "currentValue": "fast",
    "options": [{"value": "fast", "name": "Fast"}, {"value": "deep", "name": "Deep"}],
}


async def test_a_select_config_option_in_an_answer_reaches_the_caller() -> None:
    conn, peer = await client_end(Answering())
    info = v2.REQUESTS["session/set_config_option"]
    (params, _), *_ = valid(def_of(info.method, info.params), (3,))
    call = asyncio.ensure_future(
        conn.request(info.method, v2.decode(json.dumps(params), info.params))
    )
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {"configOptions": [SELECT]}})
    assert as_json(await call) == {"configOptions": [SELECT]}


async def test_a_select_config_option_in_a_session_update_reaches_the_handler() -> None:
    """The same option as a notification's params is kept (another decoding path)."""
    handler = Answering()
    conn, peer = await client_end(handler)
    update = {"sessionUpdate": "config_option_update", "configOptions": [SELECT]}
    send(peer, v2.NOTIFICATIONS["session/update"], {"sessionId": "s", "update": update})
    name, received = await handler.arrived.get()
    assert as_json(received) == {"sessionId": "s", "update": update}
