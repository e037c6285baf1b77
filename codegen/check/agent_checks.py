"""The scenarios that check an agent on one protocol version, each recording the checks of
catalogue.py. No model is needed: every check is something any agent must do with any prompt.

Connections (each a fresh process, or a remote connection with --url): the main one (initialize,
sessions, two turns, JSON-RPC hygiene, content kinds, auth methods, advertised capabilities: here,
turns.py, hygiene.py, surfaces.py, capabilities.py), one per version probe, one offering the file
system and terminals (v1, surfaces.py) and one per stdio fault (faults.py); then every frame of
every connection is judged (frame_results.py).
"""

from __future__ import annotations

from typing import Any

from .capabilities import capabilities, capabilities_v2, client_surface, config_payload
from .catalogue import CHECKS
from .client import AgentPeer, Reply
from .context import Call, Context, unless_flooded
from .faults import eof_mid_turn, malformed, stdio_lines, versions
from .frame_results import frame_results
from .hygiene import hygiene
from .link import refused
from .remote_faults import drop_mid_turn
from .surfaces import auth_methods, content_kinds, method_id, offered_surface
from .turns import batch, cancel, cancel_request, turn_v1, turn_v2


async def check_agent(ctx: Context) -> None:
    await _main_connection(ctx)
    if ctx.version not in ctx.accepted:  # initialize failed, or chose another version: a note says
        frame_results(ctx)
        return
    if ctx.wants("version.higher", "version.lower"):
        await versions(ctx)
    if ctx.version == 1:
        client_surface(ctx)  # before the offering connection: it judges the others
        if ctx.wants("caps.terminal-release"):
            await offered_surface(ctx)
    if ctx.wants("rpc.malformed-survives", "rpc.malformed-null-id"):
        await malformed(ctx)
    if ctx.url is not None:
        ctx.notes.append(f"v{ctx.version}: the stdio checks do not apply to --url")
        if ctx.wants("remote.drop-mid-turn"):
            await drop_mid_turn(ctx)
    else:
        if ctx.wants("stdio.split-line", "stdio.huge-line"):
            await stdio_lines(ctx)
        if ctx.wants("stdio.eof-mid-turn"):
            await eof_mid_turn(ctx)
    frame_results(ctx)
    _not_reached(ctx)


def _not_reached(ctx: Context) -> None:
    """Every check of the version that recorded nothing says why: not exercised, with the cause
    that stopped its scenario (blocked by authentication, session/new failed, ...)."""
    recorded = {r.check for r in ctx.results}
    reason = ctx.blocked or ctx.gate or ctx.turn_failed or "its scenario ended before it"
    for name, check in CHECKS.items():
        if name in recorded or check.cites(ctx.version) is None:
            continue
        if check.group == "remote" and ctx.url is None:
            continue  # --url only
        if check.group == "stdio" and ctx.url is not None:
            continue  # stdio only: a note says so
        ctx.record(name, None, reason)


async def _main_connection(ctx: Context) -> None:
    peer = await ctx.connect("main")
    unanswered: list[str] = []

    async def call(method: str, params: Any) -> Reply:
        reply = await peer.request(method, params)
        if reply.message is None and not reply.closed:
            unanswered.append(f"{method}: {reply.describe()}")
        ctx.refused_for_auth(method, reply)
        return reply

    try:
        init = await call("initialize", ctx.initialize_params(ctx.version))
        if ctx.url is not None and peer.wire.refusal is not None:
            raise refused(ctx.url, peer.wire.refusal)
        if not await _initialized(ctx, peer, init, call):
            return
        sessions = await _sessions(ctx, peer, call)
        if sessions is None:  # what needs no session still runs
            await hygiene(ctx, peer, call)
            if ctx.version == 1:
                auth_methods(ctx, peer, init.result)
            _answered(ctx, peer, unanswered)
            return
        session_id, new_result = sessions
        config_payload(ctx, new_result, "session/new")
        await (turn_v1 if ctx.version == 1 else turn_v2)(ctx, peer, session_id, call)
        await cancel(ctx, peer, call)
        await cancel_request(ctx, peer, session_id)
        await hygiene(ctx, peer, call)
        if ctx.version == 2:
            await capabilities_v2(ctx, peer, init.result, call)
            await batch(ctx, peer)
        if ctx.version == 1:
            await content_kinds(ctx, peer, init.result, session_id, call)
            auth_methods(ctx, peer, init.result)
            await capabilities(ctx, peer, init.result, session_id, new_result, call)
        _answered(ctx, peer, unanswered)
    finally:
        await peer.close()
        if ctx.version in ctx.accepted:
            _auth_required(ctx, peer)


def _answered(ctx: Context, peer: AgentPeer, unanswered: list[str]) -> None:
    ctx.record(
        "rpc.response-required",
        not unanswered,
        "every request got an answer" if not unanswered else "; ".join(unanswered),
        peer.evidence(),
    )


def _auth_required(ctx: Context, peer: AgentPeer) -> None:
    refused = ctx.auth_refusals
    if ctx.auth_methods:
        detail = f"auth methods advertised: {ctx.auth_methods}"
    elif refused:
        detail = f"answered -32000 with no auth method advertised: {refused}"
    else:
        detail = "no -32000 answer"
    ctx.record(
        "auth.required-advertised", bool(ctx.auth_methods) or not refused, detail, peer.evidence()
    )


async def _initialized(ctx: Context, peer: AgentPeer, init: Reply, call: Call) -> bool:
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
    methods = result.get("authMethods")
    ctx.auth_methods = (
        [str(method_id(m)) for m in methods if isinstance(m, dict)]
        if isinstance(methods, list)
        else []
    )
    if ctx.version == 1:
        info = result.get("agentInfo")
        ctx.record(
            "init.info",
            isinstance(info, dict),
            "agentInfo present" if isinstance(info, dict) else "no agentInfo in the answer",
            peer.evidence(),
        )
    if ctx.auth_method is not None:
        if ctx.auth_method not in ctx.auth_methods:
            ctx.notes.append(
                f"v{ctx.version}: --auth-method {ctx.auth_method} is not among the advertised"
                f" auth methods {ctx.auth_methods}; {ctx.auth_flow()} is sent anyway"
            )
        auth = await ctx.authenticate(call)
        if auth is None:
            ctx.notes.append(
                f"v{ctx.version}: --auth-method: the schema has no request whose params carry"
                " methodId; no auth flow ran"
            )
        elif not auth.ok:
            ctx.notes.append(f"v{ctx.version}: {ctx.auth_flow()}: {auth.describe()}")
    return True


async def _sessions(ctx: Context, peer: AgentPeer, call: Call) -> tuple[Any, dict[str, Any]] | None:
    first = await call("session/new", ctx.new_session_params())
    blocked = ctx.refused_for_auth("session/new", first)
    if blocked is not None:
        ctx.gate = blocked if ctx.blocked else f"no session: {blocked}"
        ctx.record("session.new-id", None, ctx.gate)
        return None
    second = await call("session/new", ctx.new_session_params())
    ids = [
        r.result.get("sessionId") if isinstance(r.result, dict) else None for r in (first, second)
    ]
    good = all(isinstance(i, str) and i for i in ids) and ids[0] != ids[1]
    detail = f"session ids {ids[0]!r} and {ids[1]!r}"
    if not (first.ok and second.ok):
        detail = f"session/new: {first.describe()}; {second.describe()}"
    ctx.record("session.new-id", unless_flooded(second, good), detail, peer.evidence())
    if not first.ok or not isinstance(ids[0], str):
        ctx.gate = f"no session: session/new: {peer.wire.flood or first.describe()}"
        ctx.notes.append(f"v{ctx.version}: session/new failed; no turn was checked")
        return None
    return ids[0], first.result
