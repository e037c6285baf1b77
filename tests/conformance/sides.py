"""Both ends of an ACP connection over any generated package, for the conformance tests.

`pair(pkg)` connects a runtime agent and a runtime client over an in-memory pipe and initializes
them; `raw_client(pkg)` / `raw_agent(pkg)` put a `RawPeer` (tests/runtime/helpers.py), which writes
and reads raw lines, on the far end of one runtime connection. Handlers and messages are built
from wire-shaped JSON through the package (`typed`), so one test runs against any revision.
`Tap` records every line a connection writes.
"""

from __future__ import annotations

import asyncio
import functools
import json
import sys
from pathlib import Path
from typing import Any

from acp_runtime import AgentSideConnection, ClientSideConnection, memory_pipe, wire
from tests.runtime.helpers import RawPeer

CWD = "/work/project"
ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable


# A raw peer answers only what its test makes it answer. A call the runtime must refuse locally is
# checked with refusal.refused, which fails at once, quoting it, when it goes out; any other call
# left unanswered fails within seconds, naming its method (RequestTimeoutError), not at the test's
# 30 s limit.
UNANSWERED_AFTER = 5.0


def typed(pkg: Any, method: str, data: Any, *, result: bool = False) -> Any:
    """The params (or result) of `method` in `pkg`, from wire-shaped JSON."""
    info = pkg.METHODS[method]
    return wire.build(pkg, data, info.result if result else info.params)


class Tap:
    """A writer that records each line written through it, then passes it on."""

    def __init__(self, writer: Any) -> None:
        self.writer = writer
        self.lines: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.lines.extend(data.splitlines())
        self.writer.write(data)

    async def drain(self) -> None:
        await self.writer.drain()

    def close(self) -> None:
        self.writer.close()

    def messages(self) -> list[Any]:
        return [json.loads(line) for line in self.lines]


class Agent:
    """An agent for any package: answers initialize with `capabilities` (wire JSON), creates
    sessions "s1", "s2" ..., answers `_ping`, and records what it receives in `seen` as (method,
    params)."""

    def __init__(
        self, conn: AgentSideConnection, capabilities: Any = None, **initialize: Any
    ) -> None:
        self.conn = conn
        self.pkg = conn.schema
        self.capabilities = capabilities or {}
        self.initialize_fields = initialize
        self.seen: list[tuple[str, Any]] = []

    async def initialize(self, params: Any) -> Any:
        answer = {
            "protocolVersion": 1,
            "agentCapabilities": self.capabilities,
            **self.initialize_fields,
        }
        answer.setdefault("agentInfo", {"name": "conformance-agent", "version": "1.0"})
        return typed(self.pkg, "initialize", answer, result=True)

    async def session_new(self, params: Any) -> Any:
        self.seen.append(("session/new", params))
        created = sum(method == "session/new" for method, _ in self.seen)
        return typed(self.pkg, "session/new", {"sessionId": f"s{created}"}, result=True)

    async def session_prompt(self, params: Any) -> Any:
        self.seen.append(("session/prompt", params))
        return typed(self.pkg, "session/prompt", {"stopReason": "end_turn"}, result=True)

    async def ext_method(self, method: str, params: Any) -> Any:
        self.seen.append((method, params))
        if method == "_ping":
            return {"pong": True}
        raise self.pkg.MethodNotFoundError(f"Method not found: {method}")

    async def ext_notification(self, method: str, params: Any) -> None:
        self.seen.append((method, params))


class Client:
    """A client for any package: records what it receives in `seen` as (method, params); answers
    `_ping`; answers elicitation/create with `elicitation_answer` (wire JSON)."""

    def __init__(self, elicitation_answer: Any = None) -> None:
        self.seen: list[tuple[str, Any]] = []
        self.elicitation_answer = elicitation_answer or {"action": "decline"}

    async def session_update(self, params: Any) -> None:
        self.seen.append(("session/update", params))

    async def elicitation_create(self, params: Any) -> Any:
        self.seen.append(("elicitation/create", params))
        return self.elicitation_answer

    async def elicitation_complete(self, params: Any) -> None:
        self.seen.append(("elicitation/complete", params))

    async def ext_method(self, method: str, params: Any) -> Any:
        self.seen.append((method, params))
        if method == "_ping":
            return {"pong": True}
        raise RuntimeError(f"unexpected {method}")

    async def ext_notification(self, method: str, params: Any) -> None:
        self.seen.append((method, params))


def agent_with(capabilities: Any = None, **initialize: Any) -> Any:
    """An `Agent` factory advertising these agent capabilities (wire JSON)."""
    return functools.partial(Agent, capabilities=capabilities, **initialize)


def initialize_params(pkg: Any, client_capabilities: Any = None, **fields: Any) -> Any:
    data = {
        "protocolVersion": 1,
        "clientCapabilities": client_capabilities or {},
        "clientInfo": {"name": "conformance-client", "version": "1.0"},
        **fields,
    }
    return typed(pkg, "initialize", data)


async def pair(
    pkg: Any,
    agent: Any = Agent,
    client: Any = None,
    *,
    client_capabilities: Any = None,
    session: bool = True,
    agent_options: dict[str, Any] | None = None,
    client_options: dict[str, Any] | None = None,
) -> tuple[AgentSideConnection, ClientSideConnection, Tap, Tap]:
    """A runtime agent and client over an in-memory pipe, initialized, with session "s1" set up;
    and the taps of what each wrote (agent's, client's)."""
    (agent_in, agent_out), (client_in, client_out) = memory_pipe()
    agent_tap, client_tap = Tap(agent_out), Tap(client_out)
    agent_conn = AgentSideConnection(
        agent, agent_in, agent_tap, schema=pkg, **(agent_options or {})
    )
    client_conn = ClientSideConnection(
        client if client is not None else Client(),
        client_in,
        client_tap,
        schema=pkg,
        **(client_options or {}),
    )
    await client_conn.agent.initialize(initialize_params(pkg, client_capabilities))
    if session:
        await client_conn.agent.session_new(
            typed(pkg, "session/new", {"cwd": CWD, "mcpServers": []})
        )
    return agent_conn, client_conn, agent_tap, client_tap


async def raw_client(
    pkg: Any,
    handler: Any = Agent,
    *,
    client_capabilities: Any = None,
    initialize: bool = True,
    **options: Any,
) -> tuple[AgentSideConnection, RawPeer]:
    """A runtime agent, and a raw client peer (initialized with these capabilities by default)."""
    (agent_in, agent_out), (peer_in, peer_out) = memory_pipe()
    options.setdefault("timeout", UNANSWERED_AFTER)
    conn = AgentSideConnection(handler, agent_in, agent_out, schema=pkg, **options)
    peer = RawPeer(peer_in, peer_out)
    if initialize:
        params = {"protocolVersion": 1, "clientCapabilities": client_capabilities or {}}
        answer = await peer.call("init", "initialize", params)
        assert "result" in answer, answer
    return conn, peer


async def raw_agent(
    pkg: Any,
    handler: Any = None,
    *,
    agent_capabilities: Any = None,
    initialize: bool = True,
    client_capabilities: Any = None,
    **options: Any,
) -> tuple[ClientSideConnection, RawPeer]:
    """A runtime client, and a raw agent peer that answered its initialize (unless told not to)."""
    (client_in, client_out), (peer_in, peer_out) = memory_pipe()
    options.setdefault("timeout", UNANSWERED_AFTER)
    conn = ClientSideConnection(
        handler if handler is not None else Client(), client_in, client_out, schema=pkg, **options
    )
    peer = RawPeer(peer_in, peer_out)
    if initialize:
        call = asyncio.ensure_future(
            conn.agent.initialize(initialize_params(pkg, client_capabilities))
        )
        request = await peer.recv()
        result = {"protocolVersion": 1, "agentCapabilities": agent_capabilities or {}}
        peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
        await call
    return conn, peer


async def silent(peer: RawPeer) -> bool:
    """True when the connection wrote nothing before answering a probe sent now: what it writes
    for a message (an answer, an error) is written before it reads the next, so nothing skipped."""
    peer.send({"jsonrpc": "2.0", "id": "silent-probe", "method": "_probe", "params": {}})
    message = await peer.recv()
    assert (
        message.get("id") == "silent-probe" and "method" not in message
    ), f"unexpected message: {message}"
    return True


def package_path(pkg: Any) -> str:
    """The directory to put on PYTHONPATH for a subprocess to import `pkg`."""
    return str(Path(pkg.__file__).resolve().parents[1])
