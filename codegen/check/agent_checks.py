"""The scenarios that check an agent on one protocol version, each recording the checks of
catalogue.py. No model is needed: every check is something any agent must do with any prompt.

Connections (each a fresh process): the main one (initialize, sessions, two turns, JSON-RPC
hygiene, advertised capabilities), one per version probe (65535, 0), and one per stdio fault (a
split line, a huge line, EOF in the middle of a turn).
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from .. import __version__
from .catalogue import CHECKS, V1_SCHEMA_ROWS
from .client import AgentPeer, Reply
from .frames import NOT_A_MESSAGE, NOT_UTF8, SCHEMA
from .model import Result, outcome_of
from .schemas import default_package
from .wire import Link, WebSocketLink, Wire

HIGHER = 65535  # the largest protocol version the schema allows: no agent supports it
LOWER = 0
CANCEL_AFTER = 0.1
CANCEL_LANDS = 0.25  # an answer this long after session/cancel was written had seen the cancel
AFTER_ANSWER = 0.2  # how long the checker listens for stray updates after a turn ends
HUGE = 1 << 20
PROMPT_TEXT = "Hello from acpgen check. Please answer briefly."


@dataclass
class Context:
    argv: list[str]
    package: ModuleType
    version: int
    timeout: float
    selected: Callable[[str, str], bool]
    progress: Callable[[str], None]
    results: list[Result] = field(default_factory=list)
    peers: list[AgentPeer] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    accepted: set[int] = field(default_factory=set)  # versions the agent answered as asked
    url: str | None = None  # --url: a remote agent over WebSocket instead of a spawned one
    cwd: str = field(default_factory=os.getcwd)

    def wants(self, *names: str) -> bool:
        return any(
            self._cited(n) is not None and self.selected(n, self._cited(n) or "") for n in names
        )

    def _cited(self, name: str) -> str | None:
        return CHECKS[name].cites(self.version)

    def record(
        self,
        name: str,
        passed: bool | None,
        detail: str,
        evidence: list[str] | None = None,
        rid: str | None = None,
    ) -> None:
        cited = rid or self._cited(name)
        if cited is None or not self.selected(name, cited):
            return
        result = Result(name, self.version, cited, outcome_of(cited, passed), detail)
        if passed is not True:
            result.evidence = evidence or []
        self.results.append(result)
        self.progress(f"v{self.version} {name} [{cited}]: {result.outcome}")

    async def connect(self, what: str) -> AgentPeer:
        if self.url is not None:
            self.progress(f"v{self.version} connecting ({what}): {self.url}")
            link: Link = await WebSocketLink.connect(self.url, self.timeout)
        else:
            self.progress(f"v{self.version} starting the agent ({what}): {' '.join(self.argv)}")
            link = await Wire.spawn(self.argv)
        others = {v: default_package(v) for v in (1, 2) if v != self.version}
        peer = AgentPeer(link, self.package, self.timeout, version=self.version, others=others)
        self.peers.append(peer)
        return peer

    def initialize_params(self, version: int) -> dict[str, Any]:
        """initialize in the checked version's shape; for a version no schema defines (the
        probes), in the shape of both v1 and v2 (each ignores the other's members), so an agent
        that decodes an unknown version's request with either schema can read it."""
        info = {"name": "acpgen-check", "version": __version__}
        if version not in (1, 2):
            v1 = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}
            return {
                "protocolVersion": version,
                "clientCapabilities": v1,
                "clientInfo": info,
                "info": info,
                "capabilities": {},
            }
        if self.version == 1:
            capabilities = {
                "fs": {"readTextFile": False, "writeTextFile": False},
                "terminal": False,
            }
            return {
                "protocolVersion": version,
                "clientCapabilities": capabilities,
                "clientInfo": info,
            }
        return {"protocolVersion": version, "info": info, "capabilities": {}}

    def new_session_params(self) -> dict[str, Any]:
        return {"cwd": self.cwd, "mcpServers": []}


def judged(reply: Reply, good: bool) -> bool | None:
    """`good`, unless the agent is gone: a check it did not live to answer is not exercised
    (the check that made it exit, or none, reports that)."""
    return None if reply.closed else good


def _prompt(session_id: Any, text: str) -> dict[str, Any]:
    return {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}


def _update_kind(received: Any) -> str:
    update = received.message["params"].get("update")
    return str(update.get("sessionUpdate")) if isinstance(update, dict) else ""


def _state(received: Any) -> tuple[str, Any]:
    update = received.message["params"].get("update") or {}
    return str(update.get("state")), update.get("stopReason")


async def check_agent(ctx: Context) -> None:
    await _main_connection(ctx)
    if ctx.version not in ctx.accepted:  # initialize failed, or chose another version: a note says
        _frames(ctx)
        return
    if ctx.wants("version.higher", "version.lower"):
        await _versions(ctx)
    if ctx.url is not None:
        ctx.notes.append(f"v{ctx.version}: the stdio checks do not apply to --url")
    else:
        if ctx.wants("stdio.split-line", "stdio.huge-line"):
            await _stdio_lines(ctx)
        if ctx.wants("stdio.eof-mid-turn"):
            await _eof_mid_turn(ctx)
    _frames(ctx)


# ---- the main connection


async def _main_connection(ctx: Context) -> None:
    peer = await ctx.connect("main")
    unanswered: list[str] = []

    async def call(method: str, params: Any) -> Reply:
        reply = await peer.request(method, params)
        if reply.message is None and not reply.closed:
            unanswered.append(f"{method}: {reply.describe()}")
        return reply

    try:
        init = await call("initialize", ctx.initialize_params(ctx.version))
        if not await _initialized(ctx, peer, init):
            return
        sessions = await _sessions(ctx, peer, call)
        if sessions is None:
            return
        session_id, new_result = sessions
        await (_turn_v1 if ctx.version == 1 else _turn_v2)(ctx, peer, session_id, call)
        await _cancel(ctx, peer, call)
        await _cancel_request(ctx, peer, session_id)
        await _hygiene(ctx, peer, call)
        if ctx.version == 1:
            await _capabilities(ctx, peer, init.result, session_id, new_result, call)
            _client_surface(ctx)
        ctx.record(
            "rpc.response-required",
            not unanswered,
            "every request got an answer" if not unanswered else "; ".join(unanswered),
            peer.evidence(),
        )
    finally:
        await peer.close()


async def _initialized(ctx: Context, peer: AgentPeer, init: Reply) -> bool:
    result = init.result if isinstance(init.result, dict) else {}
    chosen = result.get("protocolVersion")
    if not init.ok or not isinstance(chosen, int):
        stderr = [f"stderr: {line}" for line in peer.wire.stderr_tail.splitlines()[-5:]]
        ctx.record("init.answer", False, f"initialize: {init.describe()}", peer.evidence() + stderr)
        ctx.notes.append(f"v{ctx.version}: initialize failed ({init.describe()}); nothing more")
        return False
    ctx.record("init.answer", True, f"protocolVersion {chosen}")
    if chosen != ctx.version:
        ctx.notes.append(
            f"v{ctx.version}: the agent answered protocolVersion {chosen} to {ctx.version}: it"
            f" does not support v{ctx.version}, so no other v{ctx.version} check ran"
        )
        return False
    ctx.accepted.add(ctx.version)
    if ctx.version == 1:
        info = result.get("agentInfo")
        ctx.record(
            "init.info",
            isinstance(info, dict),
            "agentInfo present" if isinstance(info, dict) else "no agentInfo in the answer",
            peer.evidence(),
        )
    return True


Call = Callable[[str, Any], Awaitable[Reply]]


async def _sessions(ctx: Context, peer: AgentPeer, call: Call) -> tuple[Any, dict[str, Any]] | None:
    first = await call("session/new", ctx.new_session_params())
    second = await call("session/new", ctx.new_session_params())
    ids = [
        r.result.get("sessionId") if isinstance(r.result, dict) else None for r in (first, second)
    ]
    good = all(isinstance(i, str) and i for i in ids) and ids[0] != ids[1]
    detail = f"session ids {ids[0]!r} and {ids[1]!r}"
    if not (first.ok and second.ok):
        detail = f"session/new: {first.describe()}; {second.describe()}"
    ctx.record("session.new-id", good, detail, peer.evidence())
    if not first.ok or not isinstance(ids[0], str):
        ctx.notes.append(f"v{ctx.version}: session/new failed; no turn was checked")
        return None
    return ids[0], first.result


async def _turn_v1(ctx: Context, peer: AgentPeer, session_id: Any, call: Call) -> None:
    mark = peer.mark()
    reply = await call("session/prompt", _prompt(session_id, PROMPT_TEXT))
    answered = time.monotonic()
    if reply.message is None:
        ctx.record("prompt.stop-reason", None, f"session/prompt: {reply.describe()}")
        return
    stop = reply.result.get("stopReason") if isinstance(reply.result, dict) else None
    ctx.record(
        "prompt.stop-reason",
        reply.ok and stop is not None,
        f"the turn ended: {reply.describe()}",
        peer.evidence(mark),
    )
    await asyncio.sleep(AFTER_ANSWER)
    await peer.barrier()
    late = peer.updates(session_id, after=answered)
    ctx.record(
        "prompt.no-update-after-answer",
        not late,
        f"{len(late)} session/update after the prompt's answer" if late else "none after it",
        peer.evidence(mark),
    )
    _tool_calls(ctx, peer, session_id, mark)


def _tool_calls(ctx: Context, peer: AgentPeer, session_id: Any, mark: int) -> None:
    announced: set[Any] = set()
    unknown: list[Any] = []
    updates = 0
    for got in peer.updates(session_id):
        update = got.message["params"].get("update") or {}
        kind = update.get("sessionUpdate")
        if kind == "tool_call":
            announced.add(update.get("toolCallId"))
        elif kind == "tool_call_update":
            updates += 1
            if update.get("toolCallId") not in announced:
                unknown.append(update.get("toolCallId"))
    if not updates:
        ctx.record("prompt.tool-calls-announced", None, "the turn made no tool_call_update")
        return
    ctx.record(
        "prompt.tool-calls-announced",
        not unknown,
        f"tool_call_update for unannounced {unknown}" if unknown else f"{updates} updates",
        peer.evidence(mark),
    )


async def _turn_v2(ctx: Context, peer: AgentPeer, session_id: Any, call: Call) -> None:
    mark = peer.mark()
    started = time.monotonic()
    reply = await call("session/prompt", _prompt(session_id, PROMPT_TEXT))
    answered = time.monotonic()
    if reply.message is None:
        ctx.record("prompt.accepted", None, f"session/prompt: {reply.describe()}")
        return
    idle = await _idle(peer, session_id, started, ctx.timeout)
    accepted = reply.ok and (idle is None or idle.at >= answered)
    ctx.record(
        "prompt.accepted", accepted, f"session/prompt: {reply.describe()}", peer.evidence(mark)
    )
    updates = peer.updates(session_id, after=started)
    kinds = [_update_kind(u) for u in updates]
    users = [u for u in updates if _update_kind(u) in ("user_message", "user_message_chunk")]
    ctx.record(
        "prompt.user-message",
        bool(users) if reply.ok else None,
        f"updates: {kinds}",
        peer.evidence(mark),
    )
    states = [_state(u) for u in updates if _update_kind(u) == "state_update"]
    if idle is None:
        ctx.record(
            "prompt.stop-reason", False, f"no idle state_update; {kinds}", peer.evidence(mark)
        )
        ctx.record("prompt.running", None, "the turn never went idle")
        return
    stop = _state(idle)[1]
    ctx.record("prompt.stop-reason", stop is not None, f"idle with {stop!r}", peer.evidence(mark))
    running = [s for s, _ in states if s == "running"]
    first_idle = states.index(("idle", stop)) if ("idle", stop) in states else len(states)
    ctx.record(
        "prompt.running",
        "running" in [s for s, _ in states[:first_idle]],
        f"states {states}" if running else f"no running state_update; {kinds}",
        peer.evidence(mark),
    )


def _idle_now(peer: AgentPeer, session_id: Any, after: float) -> Any:
    """The idle state_update of the session already received since `after`, if any."""
    for got in peer.updates(session_id, after=after):
        if _update_kind(got) == "state_update" and _state(got)[0] == "idle":
            return got
    return None


async def _idle(peer: AgentPeer, session_id: Any, after: float, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    seen = after
    while time.monotonic() < deadline:
        idle = _idle_now(peer, session_id, after)
        if idle is not None:
            return idle
        seen = max([seen, *(got.at for got in peer.updates(session_id, after=after))])
        if not await peer.wait_for_update(session_id, seen, deadline - time.monotonic()):
            return None
    return None


async def _cancel(ctx: Context, peer: AgentPeer, call: Call) -> None:
    """A turn cancelled after its first update; judged only when the cancel clearly landed."""
    if not ctx.wants("cancel.cancelled", "prompt.no-update-after-answer"):
        return
    new = await call("session/new", ctx.new_session_params())
    session_id = new.result.get("sessionId") if isinstance(new.result, dict) else None
    if session_id is None:
        ctx.record("cancel.cancelled", None, "session/new failed")
        return
    mark = peer.mark()
    started = time.monotonic()
    future = await peer.start("session/prompt", _prompt(session_id, PROMPT_TEXT))
    # cancel at the turn's first update, or CANCEL_AFTER into it, whichever comes first
    await peer.wait_for_update(session_id, started, CANCEL_AFTER, until=future)
    if ctx.version == 1 and future.done():
        ctx.record("cancel.cancelled", None, "the turn ended before the cancel could be sent")
        return
    if ctx.version == 2 and _idle_now(peer, session_id, started) is not None:
        ctx.record("cancel.cancelled", None, "the turn went idle before the cancel could be sent")
        return
    await peer.notify("session/cancel", {"sessionId": session_id})
    sent = time.monotonic()
    if ctx.version == 1:
        reply = await peer.wait(future)
        ended, stop = time.monotonic(), None
        if isinstance(reply.result, dict):
            stop = reply.result.get("stopReason")
        error = None if reply.ok else reply.describe()
        if reply.closed:
            ctx.record("cancel.cancelled", None, "the agent exited during the cancelled turn")
            return
    else:
        reply = await peer.wait(future)
        idle = await _idle(peer, session_id, started, ctx.timeout)
        ended = idle.at if idle is not None else time.monotonic()
        stop = _state(idle)[1] if idle is not None else None
        error = None if idle is not None else "no idle state_update after the cancel"
    landed = ended - sent >= CANCEL_LANDS
    if error is not None:
        ctx.record(
            "cancel.cancelled", False, f"the cancelled turn ended: {error}", peer.evidence(mark)
        )
    elif stop == "cancelled":
        ctx.record("cancel.cancelled", True, "ended `cancelled`")
    elif landed:
        detail = f"ended {stop!r} {ended - sent:.2f} s after session/cancel"
        ctx.record("cancel.cancelled", False, detail, peer.evidence(mark))
    else:
        detail = f"ended {stop!r} within {CANCEL_LANDS} s of the cancel: it may have finished first"
        ctx.record("cancel.cancelled", None, detail)
    if ctx.version == 2:
        await asyncio.sleep(AFTER_ANSWER)
        await peer.barrier()
        late = [
            u for u in peer.updates(session_id, after=ended) if _update_kind(u) != "state_update"
        ]
        if stop != "cancelled":
            ctx.record("prompt.no-update-after-answer", None, "no turn ended `cancelled`")
            return
        ctx.record(
            "prompt.no-update-after-answer",
            not late,
            f"{len(late)} updates after idle `cancelled`" if late else "none after idle",
            peer.evidence(mark),
        )


async def _cancel_request(ctx: Context, peer: AgentPeer, session_id: Any) -> None:
    """A prompt cancelled with $/cancel_request right after it was sent must still be answered
    (an agent that does not support $/cancel_request ignores it and answers anyway)."""
    if not ctx.wants("rpc.cancel-request"):
        return
    mark = peer.mark()
    rid = peer.new_id()
    future = await peer.start("session/prompt", _prompt(session_id, PROMPT_TEXT), rid)
    await peer.notify("$/cancel_request", {"requestId": rid})
    reply = await peer.wait(future)
    good = reply.ok or reply.error_code == -32800
    detail = f"session/prompt then $/cancel_request: {reply.describe()}"
    ctx.record("rpc.cancel-request", judged(reply, good), detail, peer.evidence(mark))
    if ctx.version == 2 and reply.ok:  # let the acknowledged turn finish before going on
        await _idle(peer, session_id, time.monotonic() - ctx.timeout, ctx.timeout)


# ---- JSON-RPC hygiene


async def _hygiene(ctx: Context, peer: AgentPeer, call: Call) -> None:
    for name, method in (
        ("rpc.unknown-method", "acpgen_check/no_such_method"),
        ("rpc.unknown-extension", "_acpgen_check/no_such_method"),
    ):
        mark = peer.mark()
        reply = await call(method, {})
        if reply.message is None:
            ctx.record(name, None, f"{method}: {reply.describe()}")
            continue
        good = reply.error_code == -32601
        ctx.record(name, good, f"{method}: {reply.describe()}", peer.evidence(mark))
    mark = peer.mark()
    reply = await call("session/new", {"cwd": 42, "mcpServers": "none"})
    if reply.message is None:
        ctx.record("rpc.bad-params", None, f"session/new: {reply.describe()}")
    else:
        ctx.record(
            "rpc.bad-params",
            reply.error_code == -32602,
            f"session/new with cwd 42: {reply.describe()}",
            peer.evidence(mark),
        )
    await _ids(ctx, peer)
    await _notifications(ctx, peer)


ODD_IDS: tuple[Any, ...] = ("7", "acpgen check ✓", "", 0, -3, 2**40)


async def _ids(ctx: Context, peer: AgentPeer) -> None:
    mark = peer.mark()
    strays = len(peer.stray)
    futures = [(rid, await peer.start("_acpgen_check/id", {}, rid)) for rid in ODD_IDS]
    await peer.barrier()
    await asyncio.sleep(AFTER_ANSWER)
    missing = [rid for rid, future in futures if not future.done()]
    wrong = [s.message.get("id") for s in peer.stray[strays:]]
    detail = "every id came back as sent"
    if missing:
        detail = f"no answer with ids {missing!r}; answers with ids {wrong!r} match no request"
    passed = None if peer.closed.is_set() else not missing
    ctx.record("rpc.id-echo", passed, detail, peer.evidence(mark))


async def _notifications(ctx: Context, peer: AgentPeer) -> None:
    mark = peer.mark()
    strays = len(peer.stray)
    await peer.notify("_acpgen_check/notice", {"n": 1})
    await peer.notify("acpgen_check/notice", {"n": 2})
    await peer.notify("session/cancel", {"sessionId": "acpgen-check-no-such-session"})
    reply = await peer.barrier()
    await asyncio.sleep(AFTER_ANSWER)
    answered = [s.message for s in peer.stray[strays:]]
    ctx.record(
        "rpc.notification-no-reply",
        not answered,
        f"answers to notifications: {answered}"[:300] if answered else "no answer",
        peer.evidence(mark),
    )
    ctx.record(
        "rpc.unknown-notification-ignored",
        reply.message is not None,
        f"a request after them: {reply.describe()}",
        peer.evidence(mark),
    )


# ---- advertised capabilities (v1)


async def _capabilities(
    ctx: Context, peer: AgentPeer, init: Any, session_id: Any, new: dict[str, Any], call: Call
) -> None:
    caps = init.get("agentCapabilities") if isinstance(init, dict) else None
    caps = caps if isinstance(caps, dict) else {}
    sessions: dict[str, Any] = caps.get("sessionCapabilities") or {}
    sessions = sessions if isinstance(sessions, dict) else {}
    base = ctx.new_session_params()
    advertised = {
        "session/load": caps.get("loadSession") is True,
        "session/list": sessions.get("list") is not None,
        "session/resume": sessions.get("resume") is not None,
        "session/close": sessions.get("close") is not None,
        "session/delete": sessions.get("delete") is not None,
    }
    if advertised["session/list"]:
        mark = peer.mark()
        reply = await call("session/list", {})
        good = (
            reply.ok
            and isinstance(reply.result, dict)
            and isinstance(reply.result.get("sessions"), list)
        )
        ctx.record(
            "session.list",
            judged(reply, good),
            f"session/list: {reply.describe()}",
            peer.evidence(mark),
        )
    else:
        ctx.record("session.list", None, "sessionCapabilities.list is not advertised")
    if advertised["session/load"]:
        await _load(ctx, peer, session_id, base, call)
    else:
        ctx.record("session.load-replay", None, "loadSession is not advertised")
        ctx.record("session.load-answer-after-replay", None, "loadSession is not advertised")
    if advertised["session/resume"]:
        mark = peer.mark()
        sent = time.monotonic()
        reply = await call("session/resume", {"sessionId": session_id, **base})
        replayed = [u for u in peer.updates(session_id, after=sent) if reply.message is not None]
        ctx.record(
            "session.resume-no-replay",
            judged(reply, reply.ok and not replayed),
            f"session/resume: {reply.describe()}; {len(replayed)} updates before it",
            peer.evidence(mark),
        )
    else:
        ctx.record("session.resume-no-replay", None, "sessionCapabilities.resume is not advertised")
    await _modes(ctx, peer, session_id, new, call)
    await _config(ctx, peer, session_id, new, call)
    if advertised["session/close"]:
        mark = peer.mark()
        reply = await call("session/close", {"sessionId": session_id})
        after = await call("session/prompt", _prompt(session_id, PROMPT_TEXT))
        good = reply.ok and after.message is not None and not after.ok
        detail = f"session/close: {reply.describe()}; a prompt after it: {after.describe()}"
        ctx.record("session.close", judged(after, good), detail, peer.evidence(mark))
    else:
        ctx.record("session.close", None, "sessionCapabilities.close is not advertised")
    if advertised["session/delete"]:
        await _delete(ctx, peer, base, call)
    else:
        ctx.record(
            "session.delete-idempotent", None, "sessionCapabilities.delete is not advertised"
        )
    await _unadvertised(ctx, peer, advertised, base, call)


async def _delete(ctx: Context, peer: AgentPeer, base: Any, call: Call) -> None:
    mark = peer.mark()
    new = await call("session/new", base)
    session_id = new.result.get("sessionId") if isinstance(new.result, dict) else None
    if session_id is None:
        ctx.record("session.delete-idempotent", None, f"session/new: {new.describe()}")
        return
    replies = []
    for target in (session_id, session_id, "acpgen-check-never-existed"):
        reply = await call("session/delete", {"sessionId": target})
        if reply.closed:
            ctx.record("session.delete-idempotent", None, "the agent exited on session/delete")
            return
        replies.append(f"{target}: {reply.describe()}")
        if not reply.ok:
            detail = "; ".join(replies)
            ctx.record("session.delete-idempotent", False, detail, peer.evidence(mark))
            return
    ctx.record("session.delete-idempotent", True, "; ".join(replies))


async def _load(ctx: Context, peer: AgentPeer, session_id: Any, base: Any, call: Call) -> None:
    mark = peer.mark()
    sent = time.monotonic()
    reply = await call("session/load", {"sessionId": session_id, **base})
    answered = time.monotonic()
    await asyncio.sleep(AFTER_ANSWER)
    await peer.barrier()
    before = peer.updates(session_id, after=sent)
    late = [u for u in before if u.at > answered]
    if reply.message is None or not reply.ok:
        ctx.record(
            "session.load-replay",
            judged(reply, False),
            f"session/load: {reply.describe()}",
            peer.evidence(mark),
        )
        ctx.record("session.load-answer-after-replay", None, "session/load failed")
        return
    replayed = len(before) - len(late)
    ctx.record(
        "session.load-replay",
        replayed > 0,
        f"{replayed} updates replayed a session with one finished turn",
        peer.evidence(mark),
    )
    ctx.record(
        "session.load-answer-after-replay",
        not late if replayed else None,
        f"{len(late)} updates after session/load's answer",
        peer.evidence(mark),
    )


async def _modes(ctx: Context, peer: AgentPeer, session_id: Any, new: Any, call: Call) -> None:
    modes = new.get("modes") if isinstance(new, dict) else None
    listed = modes.get("availableModes") if isinstance(modes, dict) else None
    ids = [m.get("id") for m in listed or [] if isinstance(m, dict)]
    if not ids:
        ctx.record("modes.set-listed", None, "session/new advertised no modes")
        return
    mark = peer.mark()
    refused = []
    for mode in ids:
        reply = await call("session/set_mode", {"sessionId": session_id, "modeId": mode})
        if reply.closed:
            ctx.record("modes.set-listed", None, f"the agent exited on session/set_mode {mode}")
            return
        if not reply.ok:
            refused.append(f"{mode}: {reply.describe()}")
    detail = f"refused listed modes: {refused}" if refused else f"set each of {ids}"
    ctx.record("modes.set-listed", not refused, detail, peer.evidence(mark))


async def _config(ctx: Context, peer: AgentPeer, session_id: Any, new: Any, call: Call) -> None:
    options = new.get("configOptions") if isinstance(new, dict) else None
    select = [
        o
        for o in options or []
        if isinstance(o, dict) and o.get("type") == "select" and isinstance(o.get("options"), list)
    ]
    values = [v.get("value") for o in select[:1] for v in o["options"] if isinstance(v, dict)]
    if not select or not values or values[0] is None:
        ctx.record("config.set-complete", None, "session/new advertised no select config option")
        return
    option = select[0]
    mark = peer.mark()
    params = {"sessionId": session_id, "configId": option.get("id"), "value": values[-1]}
    reply = await call("session/set_config_option", params)
    got = reply.result.get("configOptions") if isinstance(reply.result, dict) else None
    want = {o.get("id") for o in options or [] if isinstance(o, dict)}
    have = {o.get("id") for o in got or [] if isinstance(o, dict)}
    ctx.record(
        "config.set-complete",
        judged(reply, reply.ok and want <= have),
        f"options {sorted(map(str, want))}, answered with {sorted(map(str, have))}",
        peer.evidence(mark),
    )


async def _unadvertised(
    ctx: Context, peer: AgentPeer, advertised: dict[str, bool], base: Any, call: Call
) -> None:
    missing = "acpgen-check-no-such-session"
    params = {
        "session/load": {"sessionId": missing, **base},
        "session/list": {},
        "session/resume": {"sessionId": missing, **base},
        "session/close": {"sessionId": missing},
        "session/delete": {"sessionId": missing},
    }
    mark = peer.mark()
    accepted = []
    tried = []
    for method, on in advertised.items():
        if on:
            continue
        tried.append(method)
        reply = await call(method, params[method])
        if reply.closed:
            ctx.record("session.unadvertised", None, f"the agent exited on {method}")
            return
        if reply.ok:
            accepted.append(method)
    if not tried:
        ctx.record("session.unadvertised", None, "every optional session method is advertised")
        return
    detail = f"answered although not advertised: {accepted}" if accepted else f"refused {tried}"
    ctx.record("session.unadvertised", not accepted, detail, peer.evidence(mark))


def _client_surface(ctx: Context) -> None:
    for name, prefix in (
        ("caps.fs-not-offered", "fs/"),
        ("caps.terminal-not-offered", "terminal/"),
    ):
        calls = [
            r.message["method"]
            for p in ctx.peers
            for r in p.agent_requests
            if str(r.message.get("method", "")).startswith(prefix)
        ]
        ctx.record(name, not calls, f"called {calls}" if calls else f"no {prefix}* call")


# ---- version negotiation


async def _versions(ctx: Context) -> None:
    answers: dict[int, Any] = {}
    for name, asked in (("version.higher", HIGHER), ("version.lower", LOWER)):
        peer = await ctx.connect(f"protocolVersion {asked}")
        try:
            reply = await peer.request("initialize", ctx.initialize_params(asked))
        finally:
            await peer.close()
        chosen = reply.result.get("protocolVersion") if isinstance(reply.result, dict) else None
        answers[asked] = chosen
        latest = max(ctx.accepted, default=None)
        if not reply.ok or not isinstance(chosen, int):
            good, detail = False, f"asked {asked}: {reply.describe()}"
        elif chosen == asked:
            good, detail = False, f"asked {asked}, it answered {chosen}: it echoed the version"
        elif latest is not None and chosen < latest:
            good, detail = False, f"asked {asked}, it answered {chosen} but it supports {latest}"
        elif name == "version.lower" and answers.get(HIGHER) not in (None, chosen, HIGHER):
            good = False
            detail = f"asked {asked}, it answered {chosen}; asked {HIGHER}: {answers[HIGHER]}"
        else:
            good, detail = True, f"asked {asked}, it answered {chosen}"
        ctx.record(name, good, detail, peer.evidence())


# ---- stdio faults


async def _setup(ctx: Context, peer: AgentPeer) -> Any:
    init = await peer.request("initialize", ctx.initialize_params(ctx.version))
    if not init.ok:
        return None
    new = await peer.request("session/new", ctx.new_session_params())
    return new.result.get("sessionId") if isinstance(new.result, dict) else None


async def _stdio_lines(ctx: Context) -> None:
    """session/new in three writes 50 ms apart, then a prompt of 1 MiB on one line."""
    peer = await ctx.connect("a frame in three writes, a 1 MiB line")
    try:
        init = await peer.request("initialize", ctx.initialize_params(ctx.version))
        if not init.ok:  # the agent reads now: the pieces below reach it one at a time
            ctx.record("stdio.split-line", None, f"initialize: {init.describe()}")
            ctx.record("stdio.huge-line", None, f"initialize: {init.describe()}")
            return
        new = await peer.request("session/new", ctx.new_session_params(), pieces=3, pause=0.05)
        stderr = [f"stderr: {peer.wire.stderr_tail[-400:]}"]
        ctx.record(
            "stdio.split-line",
            new.ok,
            f"session/new in three writes 50 ms apart: {new.describe()}",
            peer.evidence() + stderr,
        )
        session_id = new.result.get("sessionId") if isinstance(new.result, dict) else None
        if session_id is None:
            ctx.record("stdio.huge-line", None, "session/new failed")
            return
        mark = peer.mark()
        reply = await peer.request("session/prompt", _prompt(session_id, "x" * HUGE))
        ctx.record(
            "stdio.huge-line",
            reply.message is not None,
            f"a {HUGE}-character prompt: {reply.describe()}",
            peer.evidence(mark) + [f"stderr: {peer.wire.stderr_tail[-400:]}"],
        )
    finally:
        await peer.close()


async def _eof_mid_turn(ctx: Context) -> None:
    peer = await ctx.connect("EOF in a turn")
    try:
        session_id = await _setup(ctx, peer)
        if session_id is None:
            ctx.record("stdio.eof-mid-turn", None, "initialize or session/new failed")
            return
        await peer.start("session/prompt", _prompt(session_id, PROMPT_TEXT))
        peer.wire.close_stdin()
        code = await peer.wire.wait_exit(ctx.timeout)
        detail = (
            f"exited with status {code}"
            if code is not None
            else f"still running {ctx.timeout} s after its stdin closed"
        )
        ctx.record("stdio.eof-mid-turn", code is not None, detail, peer.evidence())
    finally:
        await peer.close()


# ---- every frame of every connection


def _frames(ctx: Context) -> None:
    problems = [(p, q) for p in ctx.peers for q in p.problems]
    for name, kind in (("transport.utf8", NOT_UTF8), ("transport.stdout-only-acp", NOT_A_MESSAGE)):
        bad = [q for _, q in problems if q.kind == kind]
        frames = sum(len(p.wire.transcript.frames) for p in ctx.peers)
        ctx.record(
            name,
            not bad,
            "; ".join(q.describe() + f" in {q.frame[:120]!r}" for q in bad[:3])
            or f"{frames} frames",
            [q.frame for q in bad[:5]],
        )
    default = CHECKS["schema.frames"].cites(ctx.version)
    assert default is not None
    by_row: dict[str, list[str]] = {}
    evidence: dict[str, list[str]] = {}
    methods = {m for p in ctx.peers for m in p.methods_seen}
    for method in sorted(methods):
        by_row.setdefault(_schema_row(ctx.version, method, default), [])
    for _, q in problems:
        if q.kind != SCHEMA:
            continue
        row = _schema_row(ctx.version, q.method, default)
        by_row.setdefault(row, []).append(q.describe())
        evidence.setdefault(row, []).append(f"<- {q.frame}")
    for row, found in sorted(by_row.items()):
        detail = "; ".join(found[:3]) + (f" (+{len(found) - 3} more)" if len(found) > 3 else "")
        ctx.record(
            "schema.frames",
            not found,
            detail or "every frame decoded",
            evidence.get(row, [])[:5],
            rid=row,
        )


def _schema_row(version: int, method: str | None, default: str) -> str:
    if version != 1 or method is None:
        return default
    return V1_SCHEMA_ROWS.get(method, default)


def progress_to_stderr(line: str) -> None:
    print(f"acpgen check: {line}", file=sys.stderr, flush=True)
