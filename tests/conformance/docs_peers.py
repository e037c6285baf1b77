"""Peers for the docs-page conformance tests (`test_docs_*.py`), for any generated package.

Messages are written as wire JSON, as the docs pages show them, and turned into the package's own
types with `typed` / `answer`, so one test runs unchanged against `acp_v1` and `acp_default`.
`connect` gives an initialized agent/client pair over an in-memory pipe whose handlers serve what
each test hands them; `client_against_raw_agent` and `raw_client` put a byte-level peer on the
far side when a test must see exactly what went over the wire.
"""

from __future__ import annotations

import asyncio
import itertools
from typing import Any, Awaitable, Callable

import msgspec
import pytest

from acp_runtime import (
    AgentSideConnection,
    CapabilityError,
    ClientSideConnection,
    memory_pipe,
    wire,
)

from ..runtime.helpers import RawPeer

CWD = "/work/project"
SESSION = "s1"
# Seconds a test waits for the effect of a notification before it fails naming what did not
# happen: far above what it takes, far below the test's own 30 s limit (tests/runtime/aio.py); a
# guard against a test that never ends, never a claim about speed (speed is `make bench`'s).
SETTLED_WITHIN = 5.0


# A raw peer answers only what its test makes it answer. A call the runtime must refuse locally is
# checked with refusal.refused, which fails at once, quoting it, when it goes out; any other call
# left unanswered fails within seconds, naming its method (RequestTimeoutError), not at the test's
# 30 s limit.
UNANSWERED_AFTER = 5.0


@pytest.fixture(params=["acp_v1", "acp_default"])
def pkg(request: pytest.FixtureRequest) -> Any:
    """The v1 package the requirements describe, then the committed default package."""
    return request.getfixturevalue(request.param)


def typed(pkg: Any, method: str, data: Any) -> Any:
    """The params of `method` as the package's type, from wire JSON."""
    return wire.build(pkg, data, pkg.METHODS[method].params)


def answer(pkg: Any, method: str, data: Any) -> Any:
    """The result of request `method` as the package's type, from wire JSON."""
    return wire.build(pkg, data, pkg.REQUESTS[method].result)


def as_wire(pkg: Any, obj: Any) -> Any:
    """A typed object back as wire JSON (builtins)."""
    return msgspec.json.decode(pkg.encode(obj))


Serve = Callable[[Any], Awaitable[Any]]


class Handler:
    """Serves the requests in `serves` (wire method -> wire result, or an async function of the
    typed params returning a typed or wire result, or None) and records every message it receives
    as (method, typed params) in `received`. Unlisted requests answer -32601; unlisted
    notifications are only recorded."""

    def __init__(self, conn: Any, pkg: Any, side: str, serves: dict[str, Any]) -> None:
        self.conn = conn
        self.pkg = pkg
        self.serves = serves
        self.received: list[tuple[str, Any]] = []
        self._methods = {info.handler: info for info in pkg.RECEIVED_BY[side]}

    def __getattr__(self, name: str) -> Serve:
        info = self.__dict__.get("_methods", {}).get(name)
        if info is None or (info.kind == "request" and info.method not in self.serves):
            raise AttributeError(name)

        async def serve(params: Any) -> Any:
            self.received.append((info.method, params))
            if info.method not in self.serves:
                return None  # a notification nobody asked to handle
            result = self.serves[info.method]
            if callable(result):
                result = await result(params)
            return answer(self.pkg, info.method, result) if isinstance(result, dict) else result

        return serve

    def of(self, method: str) -> list[Any]:
        """The params of every `method` message received, in order."""
        return [params for m, params in self.received if m == method]

    def updates(self) -> list[Any]:
        """The `update` of every session/update received, as wire JSON."""
        return [as_wire(self.pkg, params)["update"] for params in self.of("session/update")]


def agent_serving(pkg: Any, capabilities: Any = None, **serves: Any) -> Callable[[Any], Handler]:
    """An agent handler factory: initialize advertises `capabilities` (wire JSON), session/new
    answers s1, s2, ...; `serves` adds or replaces methods (keys use `_` for `/`: `session_prompt`).
    """
    ids = itertools.count(1)

    async def new_session(params: Any) -> Any:
        return {"sessionId": f"s{next(ids)}"}

    async def initialize(params: Any) -> Any:
        return {
            "protocolVersion": params.protocol_version,
            "agentCapabilities": capabilities or {},
            "agentInfo": {"name": "conformance-agent", "version": "1.0"},
        }

    table = {"initialize": initialize, "session/new": new_session, **_methods(pkg, serves)}
    return lambda conn: Handler(conn, pkg, "agent", table)


def client_serving(pkg: Any, **serves: Any) -> Callable[[Any], Handler]:
    """A client handler factory serving `serves` (keys as in `agent_serving`)."""
    table = _methods(pkg, serves)
    return lambda conn: Handler(conn, pkg, "client", table)


def _methods(pkg: Any, serves: dict[str, Any]) -> dict[str, Any]:
    by_handler = {info.handler: method for method, info in pkg.METHODS.items()}
    return {by_handler[name]: value for name, value in serves.items()}


def initialize_params(pkg: Any, capabilities: Any = None) -> Any:
    return typed(
        pkg,
        "initialize",
        {
            "protocolVersion": 1,
            "clientCapabilities": capabilities or {},
            "clientInfo": {"name": "conformance-client", "version": "1.0"},
        },
    )


async def connect(
    pkg: Any,
    agent: Any = None,
    client: Any = None,
    *,
    client_capabilities: Any = None,
    session: bool = True,
    agent_options: dict[str, Any] | None = None,
    client_options: dict[str, Any] | None = None,
) -> tuple[AgentSideConnection, ClientSideConnection]:
    """An initialized pair over an in-memory pipe (with session s1 set up unless told not to)."""
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    agent_conn = AgentSideConnection(
        agent or agent_serving(pkg), agent_in, agent_out, schema=pkg, **(agent_options or {})
    )
    client_conn = ClientSideConnection(
        client or client_serving(pkg), client_in, client_out, schema=pkg, **(client_options or {})
    )
    await client_conn.agent.initialize(initialize_params(pkg, client_capabilities))
    if session:
        await client_conn.agent.session_new(
            typed(pkg, "session/new", {"cwd": CWD, "mcpServers": []})
        )
    return agent_conn, client_conn


def raw_agent(pkg: Any, client: Any = None, **options: Any) -> tuple[ClientSideConnection, RawPeer]:
    """A client connection (nothing sent yet) and the byte-level agent on its far side."""
    (client_in, client_out), (peer_in, peer_out) = memory_pipe()
    options.setdefault("timeout", UNANSWERED_AFTER)
    conn = ClientSideConnection(
        client or client_serving(pkg), client_in, client_out, schema=pkg, **options
    )
    return conn, RawPeer(peer_in, peer_out)


async def client_against_raw_agent(
    pkg: Any,
    agent_capabilities: Any = None,
    *,
    session: bool = True,
    session_result: Any = None,
    client: Any = None,
    **options: Any,
) -> tuple[ClientSideConnection, RawPeer]:
    """A client connection initialized against a byte-level agent advertising
    `agent_capabilities`, with session s1 set up by a session/new answered `session_result`
    (unless told not to)."""
    conn, peer = raw_agent(pkg, client, **options)
    await answered(
        peer,
        conn.agent.initialize(initialize_params(pkg)),
        {"protocolVersion": 1, "agentCapabilities": agent_capabilities or {}},
    )
    if session:
        await answered(
            peer,
            conn.agent.session_new(typed(pkg, "session/new", {"cwd": CWD, "mcpServers": []})),
            session_result or {"sessionId": SESSION},
        )
    return conn, peer


async def answered(peer: RawPeer, call: Awaitable[Any], result: Any) -> Any:
    """Run `call` while the raw peer answers the one request it makes with `result`."""
    task = asyncio.ensure_future(call)
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
    return await task


async def raw_client(
    pkg: Any,
    agent: Any = None,
    client_capabilities: Any = None,
    *,
    initialize: bool = True,
    **options: Any,
) -> tuple[AgentSideConnection, RawPeer]:
    """An agent connection and the byte-level client on its far side, which has initialized it
    advertising `client_capabilities` (unless told not to)."""
    (agent_in, agent_out), (peer_in, peer_out) = memory_pipe()
    options.setdefault("timeout", UNANSWERED_AFTER)
    conn = AgentSideConnection(
        agent or agent_serving(pkg), agent_in, agent_out, schema=pkg, **options
    )
    peer = RawPeer(peer_in, peer_out)
    if initialize:
        params = {"protocolVersion": 1, "clientCapabilities": client_capabilities or {}}
        reply = await peer.call(0, "initialize", params)
        assert "result" in reply, reply
    return conn, peer


async def nothing_sent(peer: RawPeer) -> bool:
    """Whether the connection sent nothing so far: the next message is the answer to a probe."""
    peer.send({"jsonrpc": "2.0", "id": "probe", "method": "_probe", "params": {}})
    first = await peer.recv()
    return first.get("id") == "probe"


async def goes_out(conn: Any, peer: RawPeer, method: str, params: Any) -> bool:
    """Whether `conn` sends this call to the byte-level `peer`: True when it arrived (the peer
    then fails it), False when it was refused locally with `CapabilityError` and nothing sent."""
    try:
        call = await conn.send_request(method, params)
    except CapabilityError:
        assert await nothing_sent(peer)
        return False
    request = await peer.recv()
    assert (request["id"], request["method"]) == (call.id, method), request
    peer.send(
        {"jsonrpc": "2.0", "id": call.id, "error": {"code": -32603, "message": "not in this test"}}
    )
    with pytest.raises(conn.schema.RpcError):
        await call
    return True


async def eventually(
    predicate: Callable[[], Any], what: str, timeout: float = SETTLED_WITHIN
) -> None:
    """Wait until `predicate()` is true (for effects of a notification, which has no answer);
    an AssertionError saying `what` did not happen when it is not true within `timeout` s."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        assert asyncio.get_running_loop().time() < deadline, f"{what} (not within {timeout} s)"
        await asyncio.sleep(0.001)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def chunk(value: str, kind: str = "agent_message_chunk", **extra: Any) -> dict[str, Any]:
    return {"sessionUpdate": kind, "content": text(value), **extra}


def update(pkg: Any, data: dict[str, Any], session_id: str = SESSION) -> Any:
    """A typed session/update notification for `session_id` carrying the wire `data`."""
    return typed(pkg, "session/update", {"sessionId": session_id, "update": data})
