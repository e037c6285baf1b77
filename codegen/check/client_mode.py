"""`acpgen check --client -- CLIENT_CMD ...{agent}...`: the checker is the agent the client spawns.

`{agent}` in the client's command is replaced by the relay's command (relay.py), which joins the
client's pipes to the checker's Unix socket. The checker then plays an agent that advertises
nothing (checker_agent.py), on v1 or v2, and judges what the client did. Every frame the client
sends is decoded strictly with the agent side's package of the version played.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import os
import shlex
import signal
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable

from .catalogue import V1_SCHEMA_ROWS
from .checker_agent import CheckerAgent
from .frames import NOT_A_MESSAGE, NOT_UTF8, SCHEMA
from .link import SpawnError
from .model import Check, Result, Run, outcome_of
from .wire import Wire

PLACEHOLDER = "{agent}"
START = 3  # times --timeout the client has to start the agent
GRACE = 0.5  # after the turn, how long the client has to finish before the checker closes

CLIENT_CHECKS: tuple[Check, ...] = (
    Check(
        "client.schema-frames",
        "ACP-V1-INIT-VERSION-AGREEMENT",
        "ACP-V2-INIT-VERSION-AGREEMENT",
        "every frame the client sends decodes strictly (on v1 each method cites its schema row)",
    ),
    Check(
        "client.utf8",
        "ACP-V1-TRANSPORT-UTF8",
        None,
        "every line the client writes is UTF-8",
        shared=True,
    ),
    Check(
        "client.stdin-only-acp",
        "ACP-V1-TRANSPORT-CLIENT-STDIN-ONLY-ACP",
        None,
        "every line the client writes to the agent is a JSON-RPC message",
        shared=True,
    ),
    Check(
        "client.initialize-first",
        "ACP-V1-INIT-CLIENT-INITIALIZE-FIRST",
        None,
        "the client's first message is initialize",
        shared=True,
    ),
    Check(
        "client.setup-first",
        "ACP-V1-PROMPT-INIT-AND-SETUP-FIRST",
        "ACP-V2-PROMPT-CLIENT-SETUP-FIRST",
        "session/prompt comes after initialize was answered, for a session set up first",
    ),
    Check(
        "client.unadvertised-methods",
        "ACP-V1-SETUP-CLIENT-NO-LOAD-WITHOUT-CAPABILITY",
        "ACP-V2-AUTH-CLIENT-NO-AUTH-WITHOUT-METHODS",
        "the agent advertises nothing: the client calls none of the methods that need it to"
        " (v1: session/load, resume, close, list, delete, logout; v2: auth/login, auth/logout;"
        " each cites its own row)",
    ),
    Check(
        "client.mcp-transports",
        "ACP-V1-SETUP-CLIENT-CHECK-MCP-TRANSPORT",
        None,
        "the agent advertises no MCP transport beyond stdio: session/new lists no http or sse"
        " MCP server",
    ),
    Check(
        "client.unknown-extension",
        "ACP-V1-EXT-UNKNOWN-METHOD-NOT-FOUND",
        None,
        "an unknown `_` request from the agent gets -32601",
        shared=True,
    ),
    Check(
        "client.id-echo",
        "ACP-V1-JSONRPC-RESPONSE-ID-ECHO",
        None,
        "answers to the agent's requests carry their ids exactly",
        shared=True,
    ),
    Check(
        "client.notification-no-reply",
        "ACP-V1-JSONRPC-NO-REPLY-TO-NOTIFICATION",
        None,
        "an unknown notification from the agent gets no answer",
        shared=True,
    ),
    Check(
        "client.unsupported-version",
        "ACP-V1-INIT-CLIENT-UNSUPPORTED-VERSION",
        None,
        "when the checker answers another version than the client asked for, the client goes on"
        " in it, or closes the connection and tells the user (run only then)",
        shared=True,
    ),
    Check(
        "client.permission-answered",
        "ACP-V1-JSONRPC-RESPONSE-REQUIRED",
        None,
        "session/request_permission during the turn is answered",
        shared=True,
    ),
)
CLIENT_CHECK_NAMES = {c.name: c for c in CLIENT_CHECKS}

UNADVERTISED = {  # per version: a method the client must not call, and the row saying so
    1: {
        "session/load": "ACP-V1-SETUP-CLIENT-NO-LOAD-WITHOUT-CAPABILITY",
        "session/resume": "ACP-V1-SETUP-CLIENT-NO-RESUME-WITHOUT-CAPABILITY",
        "session/close": "ACP-V1-SETUP-CLIENT-NO-CLOSE-WITHOUT-CAPABILITY",
        "session/list": "ACP-V1-LIST-CLIENT-NO-LIST-WITHOUT-CAPABILITY",
        "session/delete": "ACP-V1-DELETE-CLIENT-NO-DELETE-WITHOUT-CAPABILITY",
        "logout": "ACP-V1-AUTH-CLIENT-NO-LOGOUT-WITHOUT-CAPABILITY",
    },
    2: {
        "auth/login": "ACP-V2-AUTH-CLIENT-NO-AUTH-WITHOUT-METHODS",
        "auth/logout": "ACP-V2-AUTH-CLIENT-NO-AUTH-WITHOUT-METHODS",
    },
}


class ClientCommandError(Exception):
    """The client command has no {agent} placeholder, or the client never connected."""


@dataclass
class ClientRun:
    timeout: float
    selected: Callable[[str, str], bool]
    progress: Callable[[str], None]
    version: int = 1  # the version played, once the client's initialize chose it
    results: list[Result] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def record(
        self, name: str, passed: bool | None, detail: str, evidence: list[str], rid: str = ""
    ) -> None:
        cited = rid or CLIENT_CHECK_NAMES[name].cites(self.version)
        if cited is None or not self.selected(name, cited):
            return  # a check of the other version
        result = Result(name, self.version, cited, outcome_of(cited, passed), detail)
        if passed is not True:
            result.evidence = evidence
        self.results.append(result)
        self.progress(f"v{self.version} {name} [{cited}]: {result.outcome}")


def relay_argv(socket_path: str) -> list[str]:
    return [sys.executable, "-m", "acpgen.check.relay", socket_path]


def has_placeholder(command: list[str]) -> bool:
    return any(PLACEHOLDER in arg for arg in command)


def client_argv(command: list[str], socket_path: str) -> list[str]:
    """The client's command with {agent} replaced. An argument that is {agent} becomes the
    relay's arguments (`-- {agent}`, `client.py {agent}`), unless it is an option's value
    (`--agent "{agent}"`: the argument before it starts with `-` and is not `--`); then, as
    inside an argument (`--agent={agent}`, `"{agent} --stdio"`), {agent} becomes the relay's
    command line, quoted for a shell, for clients that take the agent as one command line."""
    if not has_placeholder(command):
        raise ClientCommandError(
            f"put {PLACEHOLDER} in the client's command where the agent command goes, e.g."
            f" acpgen check --client -- python examples/client.py --prompt hi -- {PLACEHOLDER}"
        )
    relay = relay_argv(socket_path)
    out: list[str] = []
    for index, arg in enumerate(command):
        before = command[index - 1] if index else ""
        if arg == PLACEHOLDER and not (before.startswith("-") and before != "--"):
            out += relay
        else:
            out.append(arg.replace(PLACEHOLDER, shlex.join(relay)))
    return out


async def run_client_checks(
    command: list[str],
    packages: Mapping[int, ModuleType],
    timeout: float,
    selected: Callable[[str, str], bool],
    progress: Callable[[str], None],
    stdin: bytes | None = None,
    version: int | None = None,
) -> Run:
    """`packages`: the generated package of each version the checker may play; `version`: the
    one to play (None: the one the client asks for). `stdin`: what the client reads on its stdin
    (an interactive client's prompt); None: the client shares the checker's stdin
    (`echo hi | acpgen check --client -- ...`)."""
    ctx = ClientRun(timeout, selected, progress)
    with tempfile.TemporaryDirectory(prefix="acpgen-check-") as folder:
        path = os.path.join(folder, "agent.sock")
        argv = client_argv(command, path)
        connected: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]]
        connected = asyncio.Queue()

        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            connected.put_nowait((reader, writer))

        server = await asyncio.start_unix_server(accept, path, limit=1 << 24)
        progress(f"starting the client: {' '.join(argv)}")
        # the client's stderr goes to a file, not a pipe: the relay shares it, and a pipe the
        # relay holds open would outlive the event loop
        stderr = open(os.path.join(folder, "client.stderr"), "w+b")
        try:
            client = await asyncio.create_subprocess_exec(
                *argv,
                stdin=None if stdin is None else asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.DEVNULL,
                stderr=stderr,
                start_new_session=True,  # its own process group: the relay goes with it
            )
        except OSError as exc:
            server.close()
            stderr.close()
            raise SpawnError(f"cannot start {argv[0]!r}: {exc.strerror or exc}") from exc
        said = functools.partial(_tail, stderr.fileno())
        try:
            if stdin is not None and client.stdin is not None:
                with contextlib.suppress(ConnectionError):
                    client.stdin.write(stdin)
                    await client.stdin.drain()
                client.stdin.close()
            # a client starts its runtime, then the relay starts another interpreter
            reader, writer = await _connection(client, connected, START * timeout, said)
            agent = CheckerAgent(Wire(reader, writer, None, argv), packages, timeout, version)
            try:
                await _watch(ctx, agent, client, said)
            finally:
                await agent.close()
        finally:
            await _end(client)
            stderr.close()
            server.close()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 1.0)
    return Run(command, [ctx.version], ctx.results, ctx.notes)


def _tail(fd: int) -> str:
    """The last line of the last 4 KiB the client wrote on stderr ("" when it wrote none),
    read without moving the offset the client writes at."""
    size = os.fstat(fd).st_size
    data = os.pread(fd, 1 << 12, max(0, size - (1 << 12)))
    lines = data.decode("utf-8", "backslashreplace").strip().splitlines()
    return lines[-1][:200] if lines else ""


async def _connection(
    client: asyncio.subprocess.Process,
    connected: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter]],
    timeout: float,
    said: Callable[[], str],
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """The relay's connection, or ClientCommandError (one line) when the client exits first or
    does not start the agent within `timeout`."""
    got = asyncio.ensure_future(connected.get())
    ended = asyncio.ensure_future(client.wait())
    await asyncio.wait({got, ended}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    if got.done():
        ended.cancel()
        return got.result()
    got.cancel()
    if ended.done():
        last = f"; its stderr ends: {said()}" if said() else ""
        raise ClientCommandError(
            f"the client exited with status {ended.result()} before it started the agent"
            f" ({PLACEHOLDER}){last}"
        )
    ended.cancel()
    raise ClientCommandError(
        f"the client did not start the agent ({PLACEHOLDER}) within {timeout:g} s"
    )


async def _end(client: asyncio.subprocess.Process) -> None:
    """Terminate the client's process group, then kill what is left of it."""
    for sig, grace in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(client.pid, sig)
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(client.wait(), grace)
            break
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(client.pid, signal.SIGKILL)  # its children
    await client.wait()


async def _watch(
    ctx: ClientRun,
    agent: CheckerAgent,
    client: asyncio.subprocess.Process,
    said: Callable[[], str],
) -> None:
    """Until the turn is over, the client exits or closes its connection (its relay ends; the
    client's own exit may wait on the relay, which shares its stderr), or 3 x --timeout."""
    ended = asyncio.ensure_future(client.wait())
    turn = asyncio.ensure_future(agent.turn_done.wait())
    closed = asyncio.ensure_future(agent.closed.wait())
    waits = {ended, turn, closed}
    await asyncio.wait(waits, timeout=ctx.timeout * 3, return_when="FIRST_COMPLETED")
    if turn.done() or closed.done():
        await asyncio.wait({ended}, timeout=GRACE)
    for waiting in (turn, closed):
        waiting.cancel()
    ctx.version = agent.version or agent.forced or 1
    evidence = agent.evidence()
    _unsupported_version(ctx, agent, client.returncode, said(), evidence)
    first = agent.first_method
    ctx.record(
        "client.initialize-first",
        None if first is None else first == "initialize",
        f"the first message: {first}",
        evidence,
    )
    early = agent.early_prompts
    ctx.record(
        "client.setup-first",
        None if not early and not agent.prompted else not early,
        "; ".join(early)
        or ("the prompt came after initialize and session/new" if agent.prompted else "no prompt"),
        evidence,
    )
    _mcp_transports(ctx, agent, evidence)
    called = {str(r.message.get("method")) for r in agent.agent_requests}
    for method, rid in UNADVERTISED[ctx.version].items():
        ctx.record(
            "client.unadvertised-methods",
            method not in called,
            f"called {method}" if method in called else f"no {method}",
            evidence,
            rid,
        )
    _probes(ctx, agent, client.returncode)
    _frames(ctx, agent)


def _unsupported_version(
    ctx: ClientRun, agent: CheckerAgent, status: int | None, said: str, evidence: list[str]
) -> None:
    """Only when the checker answered another version than the client asked for: going on in it
    passes (the client supports it); so does closing the connection after initialize with a
    word for the user on stderr or a failing exit status; staying silent, or closing with
    neither, warns."""
    played = agent.version or agent.forced
    if agent.asked is None or played is None or agent.asked == played:
        return
    asked = f"the client asked for v{agent.asked}, the checker answered v{played}"
    told = f"its stderr ends: {said}" if said else "nothing on its stderr"
    gone = agent.closed.is_set() or status is not None
    if agent.last_method not in (None, "initialize"):
        permission = agent.probes.get("permission")
        worked = permission is not None and permission[0].message is not None
        if worked or not gone:  # it took the turn in that version, or is still in it
            went = True if worked else None
            ctx.record("client.unsupported-version", went, f"{asked}; it went on in v{played}", [])
            return
        detail = (
            f"{asked}; it went on in v{played}, then closed the connection before the turn was"
            f" over (exit status {status}; {told}): a client that does not support the version"
            " answered closes the connection after initialize and tells the user"
        )
        ctx.record("client.unsupported-version", False, detail, evidence)
        return
    if not gone:
        detail = f"{asked}; it neither went on nor closed the connection in {ctx.timeout * 3:g} s"
    else:
        detail = (
            f"{asked}; it closed the connection (exit status {status}) after initialize: it does"
            f" not support v{played}; {told}"
        )
    informed = gone and (bool(said) or status not in (None, 0))
    ctx.record("client.unsupported-version", informed, detail, evidence)


def _mcp_transports(ctx: ClientRun, agent: CheckerAgent, evidence: list[str]) -> None:
    """The checker advertises no mcpCapabilities: every MCP server must be a stdio one."""
    news = [r.message for r in agent.agent_requests if r.message.get("method") == "session/new"]
    if not news:
        ctx.record("client.mcp-transports", None, "no session/new", [])
        return
    remote = []
    for message in news:
        params = message.get("params")
        servers = params.get("mcpServers") if isinstance(params, dict) else None
        for server in servers if isinstance(servers, list) else []:
            if isinstance(server, dict) and server.get("type") in ("http", "sse"):
                remote.append(f"{server.get('type')} {server.get('name')!r}")
    detail = f"unadvertised MCP transports: {remote}" if remote else "stdio MCP servers only"
    ctx.record("client.mcp-transports", not remote, detail, evidence)


def _probes(ctx: ClientRun, agent: CheckerAgent, exit_status: int | None = None) -> None:
    if not agent.prompted:
        ctx.notes.append(_why_no_prompt(agent, exit_status))
    unknown = agent.probes.get("unknown")
    if unknown is None:
        ctx.record("client.unknown-extension", None, "no turn", [])
    else:
        reply, mark = unknown
        answered = "the client closed the connection" if reply.closed else reply.describe()
        ctx.record(
            "client.unknown-extension",
            None if reply.closed else reply.error_code == -32601,
            f"_acpgen_check/no_such_method: {answered}",
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


def _why_no_prompt(agent: CheckerAgent, exit_status: int | None) -> str:
    """What the client did instead of prompting: the note says it as the wire shows it."""
    ran = "so the checks made during a turn did not run"
    ended = "" if exit_status is None else f" and exited with status {exit_status}"
    played = agent.version or agent.forced
    if agent.asked is not None and played is not None and agent.asked != played:
        return (
            f"the client asked for protocol version {agent.asked}, the checker answered"
            f" {played}; the client sent no session/prompt{ended} (it may not support v{played}),"
            f" {ran}"
        )
    last = agent.last_method
    if last is None:
        return f"the client sent no message{ended}, {ran}"
    if exit_status is not None:
        return f"the client's last message was {last}{ended} without a session/prompt, {ran}"
    return (
        f"the client sent no session/prompt (its last message: {last}), {ran} (give it a"
        " prompt through its arguments or stdin)"
    )


def _frames(ctx: ClientRun, agent: CheckerAgent) -> None:
    for name, kind in (("client.utf8", NOT_UTF8), ("client.stdin-only-acp", NOT_A_MESSAGE)):
        bad = [q for q in agent.problems if q.kind == kind]
        detail = "; ".join(q.describe() for q in bad[:3]) or "every line"
        ctx.record(name, not bad, detail, [q.frame for q in bad[:5]])
    default = CLIENT_CHECK_NAMES["client.schema-frames"].cites(ctx.version) or ""
    by_method = V1_SCHEMA_ROWS if ctx.version == 1 else {}
    rows: dict[str, list[str]] = {}
    for method in sorted(agent.methods_seen):
        rows.setdefault(by_method.get(method, default), [])
    for q in agent.problems:
        if q.kind == SCHEMA:
            row = by_method.get(q.method or "", default)
            rows.setdefault(row, []).append(q.describe())
    for row, found in sorted(rows.items()):
        ctx.record(
            "client.schema-frames",
            not found,
            "; ".join(found[:3]) or "every frame decoded",
            [f"<- {q.frame}" for q in agent.problems if q.kind == SCHEMA][:5],
            row,
        )
