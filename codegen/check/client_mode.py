"""`acpgen check --client -- CLIENT_CMD ...{agent}...`: the checker is the agent the client spawns.

`{agent}` in the client's command is replaced by the relay's command (relay.py), which joins the
client's pipes to the checker's Unix socket. The checker then plays a v1 agent that advertises
nothing: it answers initialize and session/new, and during the first prompt's turn it probes the
client (an unknown `_` request, odd ids, an unknown notification, a permission request) before
ending the turn. Every frame the client sends is decoded strictly with the agent side's package.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, Callable

from .. import __version__
from .catalogue import V1_SCHEMA_ROWS
from .client import AgentPeer, Received
from .frames import NOT_A_MESSAGE, NOT_UTF8, SCHEMA
from .model import Check, Result, Run, outcome_of
from .wire import SpawnError, Wire

PLACEHOLDER = "{agent}"
SESSION = "acpgen-check-session"
ODD_IDS: tuple[Any, ...] = ("7", "acpgen check ✓", 0, -3)
GRACE = 0.5  # after the turn, how long the client has to finish before the checker closes

CLIENT_CHECKS: tuple[Check, ...] = (
    Check(
        "client.schema-frames",
        "ACP-V1-INIT-VERSION-AGREEMENT",
        None,
        "every frame the client sends decodes strictly (each method cites its schema row)",
    ),
    Check("client.utf8", "ACP-V1-TRANSPORT-UTF8", None, "every line the client writes is UTF-8"),
    Check(
        "client.stdin-only-acp",
        "ACP-V1-TRANSPORT-CLIENT-STDIN-ONLY-ACP",
        None,
        "every line the client writes to the agent is a JSON-RPC message",
    ),
    Check(
        "client.initialize-first",
        "ACP-V1-INIT-CLIENT-INITIALIZE-FIRST",
        None,
        "the client's first message is initialize",
    ),
    Check(
        "client.unadvertised-methods",
        "ACP-V1-SETUP-CLIENT-NO-LOAD-WITHOUT-CAPABILITY",
        None,
        "the agent advertises nothing: the client calls no session/load, resume, close, list,"
        " delete or logout (each cites its own row)",
    ),
    Check(
        "client.unknown-extension",
        "ACP-V1-EXT-UNKNOWN-METHOD-NOT-FOUND",
        None,
        "an unknown `_` request from the agent gets -32601",
    ),
    Check(
        "client.id-echo",
        "ACP-V1-JSONRPC-RESPONSE-ID-ECHO",
        None,
        "answers to the agent's requests carry their ids exactly",
    ),
    Check(
        "client.notification-no-reply",
        "ACP-V1-JSONRPC-NO-REPLY-TO-NOTIFICATION",
        None,
        "an unknown notification from the agent gets no answer",
    ),
    Check(
        "client.permission-answered",
        "ACP-V1-JSONRPC-RESPONSE-REQUIRED",
        None,
        "session/request_permission during the turn is answered",
    ),
)
CLIENT_CHECK_NAMES = {c.name: c for c in CLIENT_CHECKS}

UNADVERTISED = {
    "session/load": "ACP-V1-SETUP-CLIENT-NO-LOAD-WITHOUT-CAPABILITY",
    "session/resume": "ACP-V1-SETUP-CLIENT-NO-RESUME-WITHOUT-CAPABILITY",
    "session/close": "ACP-V1-SETUP-CLIENT-NO-CLOSE-WITHOUT-CAPABILITY",
    "session/list": "ACP-V1-LIST-CLIENT-NO-LIST-WITHOUT-CAPABILITY",
    "session/delete": "ACP-V1-DELETE-CLIENT-NO-DELETE-WITHOUT-CAPABILITY",
    "logout": "ACP-V1-AUTH-CLIENT-NO-LOGOUT-WITHOUT-CAPABILITY",
}


class ClientCommandError(Exception):
    """The client command has no {agent} placeholder, or the client never connected."""


@dataclass
class ClientRun:
    package: ModuleType
    timeout: float
    selected: Callable[[str, str], bool]
    progress: Callable[[str], None]
    results: list[Result] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def record(
        self, name: str, passed: bool | None, detail: str, evidence: list[str], rid: str = ""
    ) -> None:
        cited = rid or CLIENT_CHECK_NAMES[name].v1 or ""
        if not self.selected(name, cited):
            return
        result = Result(name, 1, cited, outcome_of(cited, passed), detail)
        if passed is not True:
            result.evidence = evidence
        self.results.append(result)
        self.progress(f"v1 {name} [{cited}]: {result.outcome}")


class CheckerAgent(AgentPeer):
    """The checker's side of the connection: answers the client as an agent advertising nothing,
    and probes it during the first prompt."""

    def __init__(self, wire: Wire, package: ModuleType, timeout: float) -> None:
        super().__init__(wire, package, timeout, side="agent")
        self.turn_done = asyncio.Event()
        self.probes: dict[str, Any] = {}
        self.prompted = False
        self.first_method: str | None = None

    async def _dispatch(self, got: Received) -> None:
        method = got.message.get("method")
        if isinstance(method, str) and self.first_method is None:
            self.first_method = method
        await super()._dispatch(got)

    async def _answer(self, request: dict[str, Any]) -> None:
        method, rid = request["method"], request["id"]
        if method == "initialize":
            info = {"name": "acpgen-check", "version": __version__}
            result: Any = {"protocolVersion": 1, "agentCapabilities": {}, "agentInfo": info}
        elif method == "session/new":
            result = {"sessionId": SESSION}
        elif method == "session/prompt" and not self.prompted:
            self.prompted = True
            asyncio.create_task(self._turn(rid))
            return
        elif method == "session/prompt":
            result = {"stopReason": "end_turn"}
        else:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            await self.send({"jsonrpc": "2.0", "id": rid, "error": error})
            return
        await self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    async def _update(self, update: dict[str, Any]) -> None:
        await self.notify("session/update", {"sessionId": SESSION, "update": update})

    async def _turn(self, rid: Any) -> None:
        text = {"type": "text", "text": "acpgen check is probing this client."}
        await self._update({"sessionUpdate": "agent_message_chunk", "content": text})
        mark = self.mark()
        self.probes["unknown"] = (await self.request("_acpgen_check/no_such_method", {}), mark)
        mark = self.mark()
        futures = [(i, await self.start("_acpgen_check/id", {}, i)) for i in ODD_IDS]
        await self.barrier()
        await asyncio.sleep(0.2)
        self.probes["ids"] = ([i for i, f in futures if not f.done()], mark)
        mark = self.mark()
        strays = len(self.stray)
        await self.notify("_acpgen_check/notice", {})
        await self.barrier()
        await asyncio.sleep(0.2)
        self.probes["notice"] = ([s.message for s in self.stray[strays:]], mark)
        call = {"sessionUpdate": "tool_call", "toolCallId": "check-1", "title": "Probe"}
        await self._update({**call, "status": "pending"})
        mark = self.mark()
        options = [
            {"optionId": "allow", "name": "Allow", "kind": "allow_once"},
            {"optionId": "reject", "name": "Reject", "kind": "reject_once"},
        ]
        params = {
            "sessionId": SESSION,
            "toolCall": {"toolCallId": "check-1", "title": "Probe"},
            "options": options,
        }
        self.probes["permission"] = (await self.request("session/request_permission", params), mark)
        await self._update(
            {"sessionUpdate": "tool_call_update", "toolCallId": "check-1", "status": "completed"}
        )
        await self.send({"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
        self.turn_done.set()


def relay_argv(socket_path: str) -> list[str]:
    return [sys.executable, "-m", "acpgen.check.relay", socket_path]


def client_argv(command: list[str], socket_path: str) -> list[str]:
    if PLACEHOLDER not in command:
        raise ClientCommandError(
            f"put {PLACEHOLDER} in the client's command where the agent command goes, e.g."
            f" acpgen check --client -- python examples/client.py --prompt hi -- {PLACEHOLDER}"
        )
    out: list[str] = []
    for arg in command:
        out += relay_argv(socket_path) if arg == PLACEHOLDER else [arg]
    return out


async def run_client_checks(
    command: list[str],
    package: ModuleType,
    timeout: float,
    selected: Callable[[str, str], bool],
    progress: Callable[[str], None],
    stdin: bytes | None = None,
) -> Run:
    """`stdin`: what the client reads on its stdin (an interactive client's prompt); None: the
    client shares the checker's stdin (`echo hi | acpgen check --client -- ...`)."""
    ctx = ClientRun(package, timeout, selected, progress)
    with tempfile.TemporaryDirectory(prefix="acpgen-check-") as folder:
        path = os.path.join(folder, "agent.sock")
        argv = client_argv(command, path)
        connected: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
        connected = asyncio.Queue()

        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connected.put_nowait((reader, writer))

        server = await asyncio.start_unix_server(accept, path, limit=1 << 24)
        progress(f"v1 starting the client: {' '.join(argv)}")
        try:
            client = await asyncio.create_subprocess_exec(
                *argv,
                stdin=None if stdin is None else asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.PIPE,
            )
        except OSError as exc:
            raise SpawnError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from exc
        if stdin is not None and client.stdin is not None:
            client.stdin.write(stdin)
            with contextlib.suppress(ConnectionError):
                await client.stdin.drain()
            client.stdin.close()
        try:
            reader, writer = await asyncio.wait_for(connected.get(), timeout)
        except TimeoutError:
            client.kill()
            await client.wait()
            server.close()
            raise ClientCommandError(
                f"the client did not start the agent ({PLACEHOLDER}) within {timeout} s"
            ) from None
        agent = CheckerAgent(Wire(reader, writer, None, argv), package, timeout)
        try:
            await _watch(ctx, agent, client)
        finally:
            await agent.close()
            with contextlib.suppress(ProcessLookupError):
                client.terminate()
            await client.wait()
            server.close()
    run = Run(command, [1], ctx.results, ctx.notes)
    return run


async def _watch(ctx: ClientRun, agent: CheckerAgent, client: asyncio.subprocess.Process) -> None:
    ended = asyncio.ensure_future(client.wait())
    turn = asyncio.ensure_future(agent.turn_done.wait())
    await asyncio.wait({ended, turn}, timeout=ctx.timeout * 3, return_when="FIRST_COMPLETED")
    if turn.done():
        await asyncio.wait({ended}, timeout=GRACE)
    turn.cancel()
    evidence = agent.evidence()
    first = agent.first_method
    ctx.record(
        "client.initialize-first",
        None if first is None else first == "initialize",
        f"the first message: {first}",
        evidence,
    )
    called = {str(r.message.get("method")) for r in agent.agent_requests}
    for method, rid in UNADVERTISED.items():
        ctx.record(
            "client.unadvertised-methods",
            method not in called,
            f"called {method}" if method in called else f"no {method}",
            evidence,
            rid,
        )
    _probes(ctx, agent)
    _frames(ctx, agent)


def _probes(ctx: ClientRun, agent: CheckerAgent) -> None:
    if not agent.prompted:
        ctx.notes.append(
            "the client sent no session/prompt, so the checks made during a turn did not run"
            " (give it a prompt through its arguments)"
        )
    unknown = agent.probes.get("unknown")
    if unknown is None:
        ctx.record("client.unknown-extension", None, "no turn", [])
    else:
        reply, mark = unknown
        ctx.record(
            "client.unknown-extension",
            None if reply.closed else reply.error_code == -32601,
            f"_acpgen_check/no_such_method: {reply.describe()}",
            agent.evidence(mark),
        )
    ids = agent.probes.get("ids")
    if ids is None:
        ctx.record("client.id-echo", None, "no turn", [])
    else:
        missing, mark = ids
        detail = f"no answer with ids {missing!r}" if missing else "every id came back"
        ctx.record("client.id-echo", not missing, detail, agent.evidence(mark))
    notice = agent.probes.get("notice")
    if notice is None:
        ctx.record("client.notification-no-reply", None, "no turn", [])
    else:
        answers, mark = notice
        detail = f"answered: {answers}"[:300] if answers else "no answer"
        ctx.record("client.notification-no-reply", not answers, detail, agent.evidence(mark))
    permission = agent.probes.get("permission")
    if permission is None:
        ctx.record("client.permission-answered", None, "no turn", [])
    else:
        reply, mark = permission
        ctx.record(
            "client.permission-answered",
            None if reply.closed else reply.message is not None,
            f"session/request_permission: {reply.describe()}",
            agent.evidence(mark),
        )


def _frames(ctx: ClientRun, agent: CheckerAgent) -> None:
    for name, kind in (("client.utf8", NOT_UTF8), ("client.stdin-only-acp", NOT_A_MESSAGE)):
        bad = [q for q in agent.problems if q.kind == kind]
        detail = "; ".join(q.describe() for q in bad[:3]) or "every line"
        ctx.record(name, not bad, detail, [q.frame for q in bad[:5]])
    default = CLIENT_CHECK_NAMES["client.schema-frames"].v1 or ""
    rows: dict[str, list[str]] = {}
    for method in sorted(agent.methods_seen):
        rows.setdefault(V1_SCHEMA_ROWS.get(method, default), [])
    for q in agent.problems:
        if q.kind == SCHEMA:
            row = V1_SCHEMA_ROWS.get(q.method or "", default)
            rows.setdefault(row, []).append(q.describe())
    for row, found in sorted(rows.items()):
        ctx.record(
            "client.schema-frames",
            not found,
            "; ".join(found[:3]) or "every frame decoded",
            [f"<- {q.frame}" for q in agent.problems if q.kind == SCHEMA][:5],
            row,
        )
