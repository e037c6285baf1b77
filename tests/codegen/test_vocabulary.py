"""The schema vocabulary of the 2.4.0 publications: `x-deserialize-default-on-null`,
`x-side: "proxy"` with a top-level `Proxy` message branch, and a def with `x-method` but no
`x-side`.

Each construct: a tiny schema with what the package makes of it, and the jsonschema-agreement check
of tests/support/agreement.py finding nothing to disagree with (and finding it when it is wrong).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest

from acpgen.instances import LENIENT_NULL, Mutation

from ..support.agreement import disagreements, repair_problem
from ..support.schema_grammar import MethodDraw, envelopes, messages
from ..support.tiny import accepts, document, package_from

STR = {"type": "string"}
STRINGS = {"type": "array", "items": STR}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("vocabulary")


# ---------------------------------------------------------------- x-deserialize-default-on-null

NULLS = document(
    {
        "Server": {
            "type": "object",
            "properties": {
                "name": STR,
                "args": {**STRINGS, "x-deserialize-default-on-null": True},
                "env": {**STRINGS, "x-deserialize-default-on-null": True},
                "mode": {**STR, "default": "fast", "x-deserialize-default-on-null": True},
                "note": {"type": ["string", "null"], "x-deserialize-default-on-null": True},
                "plain": STRINGS,
            },
            "required": ["name", "args"],
        },
        "Launch": {
            "type": "object",
            "properties": {"servers": {"type": "array", "items": {"$ref": "#/$defs/Server"}}},
            "required": ["servers"],
        },
    }
)


def test_a_null_takes_the_default(root: Path) -> None:
    pkg = package_from(NULLS, root)
    data = b'{"name":"n","args":null,"env":null,"mode":null}'
    server = pkg.decode(data, pkg.Server)
    assert server.args == []  # required: its type's own default
    assert server.env is msgspec.UNSET  # optional without a default: as if left out
    assert server.mode == "fast"  # optional with a schema default: that default
    assert json.loads(pkg.encode(server)) == {"name": "n", "args": [], "mode": "fast"}


def test_a_null_takes_the_default_deep_inside_and_in_a_message(root: Path) -> None:
    pkg = package_from(NULLS, root)
    launch = pkg.decode(
        b'{"servers":[{"name":"a","args":["x"]},{"name":"b","args":null}]}', pkg.Launch
    )
    assert [s.args for s in launch.servers] == [["x"], []]
    lenient = pkg.decode(b'{"servers":[{"name":"b","args":null}]}', pkg.Launch, lenient=True)
    assert lenient.servers[0].args == []


def test_only_a_null_is_forgiven_and_only_where_the_mark_is(root: Path) -> None:
    pkg = package_from(NULLS, root)
    for bad in (
        {"name": "n", "args": 5},  # a wrong type is not a null
        {"name": "n", "args": [None]},  # a null item of a marked list is not the list's null
        {"name": "n", "args": [], "plain": None},  # an unmarked field
        {"name": None, "args": []},
    ):
        ok, value = accepts(pkg, "Server", bad)
        assert not ok, (bad, value)


def test_a_null_that_is_a_value_of_the_type_stays_null(root: Path) -> None:
    pkg = package_from(NULLS, root)
    server = pkg.decode(b'{"name":"n","args":[],"note":null}', pkg.Server)
    assert server.note is None
    assert json.loads(pkg.encode(server))["note"] is None


def test_the_marks_are_in_the_package_and_a_required_field_without_default_is_announced(
    root: Path,
) -> None:
    pkg = package_from(NULLS, root)
    marks = pkg._schema.DEFAULT_ON_NULL
    assert marks[("Server", "args")] == ([],) and marks[("Server", "env")] == ()
    assert ("Server", "note") not in marks  # null decodes as itself there
    doc = document(
        {
            "Inner": {"type": "object", "properties": {"a": STR}, "required": ["a"]},
            "Outer": {
                "type": "object",
                "properties": {
                    "inner": {"$ref": "#/$defs/Inner", "x-deserialize-default-on-null": True}
                },
                "required": ["inner"],
            },
        }
    )
    warnings: list[str] = []
    pkg = package_from(doc, root, warnings)
    assert any("/$defs/Outer/properties/inner" in w and "no default" in w for w in warnings)
    assert not accepts(pkg, "Outer", {"inner": None})[0]  # refused, as jsonschema does


def test_default_on_null_agrees_with_jsonschema(tmp_path: Path) -> None:
    assert disagreements(NULLS, tmp_path, count=8, seed=3) == []


def test_the_agreement_check_holds_a_null_mark_to_nulls_at_its_place() -> None:
    marked = ((("args",), LENIENT_NULL),)
    null = Mutation({"name": "n", "args": None}, "null", ("args",), marked)
    assert repair_problem(null, {"name": "n", "args": []}, True) is None
    assert repair_problem(null, {"name": "n"}, True) is None
    assert "not as the default" in (repair_problem(null, {"name": "n", "args": ["x"]}, True) or "")
    wrong_type = Mutation({"name": "n", "args": 5}, "type", ("args",), marked)
    assert repair_problem(wrong_type, {"name": "n", "args": []}, True) is not None
    null_item = Mutation({"name": "n", "args": [None]}, "item", ("args",), marked)
    assert repair_problem(null_item, {"name": "n", "args": []}, True) is not None


# ---------------------------------------------------------------- x-side "proxy"

OBJ = {"type": "object", "properties": {"sessionId": STR}, "required": ["sessionId"]}
PROXY_DEFS = {
    "NewSessionRequest": {**OBJ, "x-method": "session/new", "x-side": "agent"},
    "NewSessionResponse": {**OBJ, "x-method": "session/new", "x-side": "agent"},
    "SessionUpdateNotification": {**OBJ, "x-method": "session/update", "x-side": "client"},
    "InitializeProxyRequest": {**OBJ, "x-method": "proxy/initialize", "x-side": "proxy"},
    "InitializeProxyResponse": {**OBJ, "x-method": "proxy/initialize", "x-side": "proxy"},
    "ProxySuccessorNotification": {**OBJ, "x-method": "proxy/successor", "x-side": "proxy"},
    "CancelRequestNotification": {**OBJ, "x-method": "$/cancel_request", "x-side": "protocol"},
}
PROXY_DRAWN = [
    MethodDraw("session/new", "agent", "request", "NewSessionRequest", "NewSessionResponse", False),
    MethodDraw(
        "session/update", "client", "notification", "SessionUpdateNotification", None, False
    ),
    MethodDraw(
        "proxy/initialize",
        "proxy",
        "request",
        "InitializeProxyRequest",
        "InitializeProxyResponse",
        False,
    ),
    MethodDraw(
        "proxy/successor", "proxy", "notification", "ProxySuccessorNotification", None, False
    ),
    MethodDraw(
        "$/cancel_request", "protocol", "notification", "CancelRequestNotification", None, False
    ),
]


def _proxy_doc() -> dict[str, Any]:
    doc = document({**PROXY_DEFS, **envelopes(PROXY_DRAWN, bare=False)})
    doc["anyOf"] = messages(doc["$defs"], ["CancelRequestNotification"])
    assert [branch["title"] for branch in doc["anyOf"]] == [
        "Agent",
        "Client",
        "Proxy",
        "ProtocolLevel",
    ]
    return doc


def test_proxy_is_a_third_side_in_the_method_tables(root: Path) -> None:
    pkg = package_from(_proxy_doc(), root)
    assert pkg.SIDES == ("agent", "client", "proxy")
    assert pkg.REQUESTS["proxy/initialize"].side == "proxy"
    received = {side: {m.method for m in pkg.RECEIVED_BY[side]} for side in pkg.SIDES}
    assert received["proxy"] == {"proxy/initialize", "proxy/successor", "$/cancel_request"}
    assert received["agent"] == {"session/new", "$/cancel_request"}
    assert received["client"] == {"session/update", "$/cancel_request"}


def test_proxy_methods_have_their_own_stubs_and_no_other_side_serves_them(root: Path) -> None:
    pkg = package_from(_proxy_doc(), root)
    assert {"ProxyHandler", "ProxyProxy"} <= set(pkg.stubs.__all__)
    assert hasattr(pkg.ProxyHandler, "proxy_initialize")
    assert hasattr(pkg.ProxyHandler, "proxy_successor")
    for side in ("AgentHandler", "ClientHandler", "AgentProxy", "ClientProxy"):
        assert not hasattr(getattr(pkg, side), "proxy_initialize"), side
    calls: list[Any] = []

    class Peer:
        async def request(self, method: str, params: Any, result_type: Any) -> Any:
            calls.append((method, result_type))

        async def notify(self, method: str, params: Any) -> None:
            calls.append((method, None))

    params = pkg.types.InitializeProxyRequest(session_id="s")
    asyncio.run(pkg.ProxyProxy(Peer()).proxy_initialize(params))
    assert calls == [("proxy/initialize", pkg.types.InitializeProxyResponse)]


def test_agents_and_clients_answer_proxy_requests_method_not_found(root: Path) -> None:
    pkg = package_from(_proxy_doc(), root)
    request = b'{"jsonrpc":"2.0","id":4,"method":"proxy/initialize","params":{"sessionId":"s"}}'
    for side in ("agent", "client"):
        with pytest.raises(pkg.RpcError) as caught:
            pkg.decode_message(request, side)
        assert caught.value.code == -32601 and caught.value.id == 4
    got = pkg.decode_message(request, "proxy")
    assert isinstance(got.params, pkg.types.InitializeProxyRequest)


def test_a_schema_without_proxy_methods_has_two_sides(root: Path) -> None:
    defs = {k: v for k, v in PROXY_DEFS.items() if v["x-side"] != "proxy"}
    drawn = [m for m in PROXY_DRAWN if m.side != "proxy"]
    pkg = package_from(document({**defs, **envelopes(drawn, bare=False)}), root)
    assert pkg.SIDES == ("agent", "client")
    assert not hasattr(pkg, "ProxyHandler")


def test_proxy_methods_agree_with_jsonschema(tmp_path: Path) -> None:
    assert disagreements(_proxy_doc(), tmp_path, count=4, seed=5) == []


# ---------------------------------------------------------------- x-method without x-side

NO_SIDE = {
    "PingRequest": {**OBJ, "x-method": "_ext/ping"},
    "PingResponse": {**OBJ, "x-method": "_ext/ping"},
    "HelloNotification": {**OBJ, "x-method": "_ext/hello"},
}


def test_x_method_without_x_side_generates_with_a_warning(root: Path) -> None:
    warnings: list[str] = []
    pkg = package_from(document(NO_SIDE), root, warnings)
    assert sum("without x-side" in w for w in warnings) == 2, warnings
    assert pkg.REQUESTS["_ext/ping"].side == "both"
    assert pkg.REQUESTS["_ext/ping"].result is pkg.types.PingResponse
    for cls in ("AgentHandler", "ClientHandler", "AgentProxy", "ClientProxy"):
        assert hasattr(getattr(pkg, cls), "ext_ping"), cls
        assert hasattr(getattr(pkg, cls), "ext_hello"), cls
    message = b'{"jsonrpc":"2.0","id":1,"method":"_ext/ping","params":{"sessionId":"s"}}'
    for side in pkg.SIDES:
        assert isinstance(pkg.decode_message(message, side).params, pkg.types.PingRequest)


def test_x_method_without_x_side_agrees_with_jsonschema(tmp_path: Path) -> None:
    assert disagreements(document(NO_SIDE), tmp_path, count=4, seed=7) == []
