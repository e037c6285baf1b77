"""What the agent advertises is exercised (v1): session load, list, resume, close, delete,
modes, config options; what it does not is refused, and what it was not offered never used."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from .client import AgentPeer
from .context import (
    AFTER_ANSWER,
    PROMPT_TEXT,
    Call,
    Context,
    content_updates,
    judged,
    prompt,
    update_kind,
)
from .offering import OfferingPeer


async def capabilities(
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
        await session_list(ctx, peer, call)
    else:
        ctx.record("session.list", None, "sessionCapabilities.list is not advertised")
    if advertised["session/load"] and ctx.turn_failed is not None:
        ctx.skip(ctx.turn_failed, "session.load-replay", "session.load-answer-after-replay")
    elif advertised["session/load"]:
        await _load(ctx, peer, session_id, base, call)
    else:
        ctx.record("session.load-replay", None, "loadSession is not advertised")
        ctx.record("session.load-answer-after-replay", None, "loadSession is not advertised")
    if advertised["session/resume"]:
        await _resume(ctx, peer, base, call)
    else:
        why = "sessionCapabilities.resume is not advertised"
        ctx.skip(why, "session.resume-no-replay", "session.resume-history")
    await _modes(ctx, peer, session_id, new, call)
    await _config(ctx, peer, session_id, new, call)
    if advertised["session/close"]:
        mark = peer.mark()
        reply = await call("session/close", {"sessionId": session_id})
        after = await call("session/prompt", prompt(session_id, PROMPT_TEXT))
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


async def _resume(ctx: Context, peer: AgentPeer, base: Any, call: Call) -> None:
    """session/resume of a session of its own, the newest, whose one turn finished: nothing
    replayed before the answer (resume-no-replay), and none of the history after it either
    (resume-history). Of its own, so that what the agent does with several sessions (load-replay
    judges that) cannot hide what it does on resume (fast-agent-acp files a turn under the
    newest session's id: the main session cannot be resumed, a new one replays)."""
    new = await call("session/new", base)
    session_id = new.result.get("sessionId") if isinstance(new.result, dict) else None
    if session_id is None:
        why = f"session/new: {new.describe()}"
        ctx.skip(why, "session.resume-no-replay", "session.resume-history")
        return
    if ctx.turn_failed is None:  # else it would fail the same way: resume-history says so
        turn = await call("session/prompt", prompt(session_id, PROMPT_TEXT))
        if not turn.ok:
            why = f"the turn before session/resume: {turn.describe()}"
            ctx.skip(why, "session.resume-no-replay", "session.resume-history")
            return
        # what the turn sends after its answer is prompt.no-update-after-answer's, not a replay
        await asyncio.sleep(AFTER_ANSWER)
        await peer.barrier()
    mark = peer.mark()
    sent = time.monotonic()
    reply = await call("session/resume", {"sessionId": session_id, **base})
    answered = time.monotonic()
    replayed = content_updates(peer.updates(session_id, after=sent))
    before = [u for u in replayed if u.at <= answered] if reply.message is not None else []
    ctx.record(
        "session.resume-no-replay",
        judged(reply, reply.ok and not before),
        f"session/resume: {reply.describe()}; {len(before)} updates before it",
        peer.evidence(mark),
    )
    config_payload(ctx, reply.result, "session/resume")
    if not reply.ok:
        ctx.record("session.resume-history", None, f"session/resume: {reply.describe()}")
        return
    if ctx.turn_failed is not None:
        ctx.record("session.resume-history", None, ctx.turn_failed)
        return
    await asyncio.sleep(AFTER_ANSWER)
    await peer.barrier()
    replayed = content_updates(peer.updates(session_id, after=sent))
    kinds = sorted({update_kind(u) for u in replayed})
    ctx.record(
        "session.resume-history",
        judged(reply, not replayed),
        (
            f"{len(replayed)} content updates ({', '.join(kinds)}) around session/resume of a"
            " session with a finished turn"
            if replayed
            else "no history came with session/resume"
        ),
        peer.evidence(mark),
    )


def config_payload(ctx: Context, result: Any, where: str) -> None:
    """The checker advertises no boolean config options: a payload listing one is remembered
    for config.no-boolean (judged with every update, client_surface)."""
    options = result.get("configOptions") if isinstance(result, dict) else None
    for option in options if isinstance(options, list) else []:
        if isinstance(option, dict) and option.get("type") == "boolean":
            ctx.booleans.append(f"{where}: {option.get('id')!r}")


async def session_list(ctx: Context, peer: AgentPeer, call: Call) -> None:
    mark = peer.mark()
    reply = await call("session/list", {})
    sessions = reply.result.get("sessions") if isinstance(reply.result, dict) else None
    good = reply.ok and isinstance(sessions, list)
    ctx.record(
        "session.list",
        judged(reply, good),
        f"session/list: {reply.describe()}",
        peer.evidence(mark),
    )


async def capabilities_v2(ctx: Context, peer: AgentPeer, init: Any, call: Call) -> None:
    """v2: an agent advertising the `session` method surface must serve session/list."""
    caps = init.get("capabilities") if isinstance(init, dict) else None
    if isinstance(caps, dict) and isinstance(caps.get("session"), dict):
        await session_list(ctx, peer, call)
    else:
        ctx.record("session.list", None, "capabilities.session is not advertised")


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
    config_payload(ctx, reply.result, "session/load")
    await asyncio.sleep(AFTER_ANSWER)
    await peer.barrier()
    before = content_updates(peer.updates(session_id, after=sent))
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
    # over an unordered link (two streams), an update arriving after the answer still replays
    replayed = len(before) - len(late) if peer.wire.ordered else len(before)
    ctx.record(
        "session.load-replay",
        replayed > 0,
        f"{replayed} updates replayed a session with one finished turn",
        peer.evidence(mark),
    )
    if not peer.wire.ordered:  # the answer and the replay come on two streams read at once
        detail = "the transport sets no order between the answer's stream and the replay's"
        ctx.record("session.load-answer-after-replay", None, detail)
        return
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
    config_payload(ctx, reply.result, "session/set_config_option")
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
        reply = await peer.probe(method, params[method])
        if reply.closed:
            ctx.record("session.unadvertised", None, f"the agent exited on {method}")
            return
        if reply.ok:
            accepted.append(method)
    if not tried:
        ctx.record("session.unadvertised", None, "every optional session method is advertised")
        return
    detail = f"answered although not advertised: {accepted}" if accepted else f"refused {tried}"
    off = [q.describe() for q in peer.probe_problems]
    if off:  # the client must not send these at all: an answer off the schema is no MUST break
        detail += f"; answers off the schema (not judged as frames): {'; '.join(off[:5])}"
    ctx.record("session.unadvertised", not accepted, detail, peer.evidence(mark))


def client_surface(ctx: Context) -> None:
    for name, prefix in (
        ("caps.fs-not-offered", "fs/"),
        ("caps.terminal-not-offered", "terminal/"),
    ):
        calls = [
            r.message["method"]
            for p in ctx.peers
            if not isinstance(p, OfferingPeer)  # it offered them
            for r in p.agent_requests
            if str(r.message.get("method", "")).startswith(prefix)
        ]
        ctx.record(name, not calls, f"called {calls}" if calls else f"no {prefix}* call")
    asked = [
        r
        for p in ctx.peers
        for r in p.agent_requests
        if r.message.get("method") == "elicitation/create"
    ]
    ctx.record(
        "caps.elicitation-not-offered",
        not asked,
        (
            f"elicitation/create {len(asked)} times, elicitation not advertised"
            if asked
            else "no elicitation/create"
        ),
        [f"<- {json.dumps(r.message)[:300]}" for r in asked[:3]],
    )
    for p in ctx.peers:
        for got in p.notifications:
            update = (
                got.message.get("params", {}).get("update")
                if isinstance(got.message.get("params"), dict)
                else None
            )
            if isinstance(update, dict) and update.get("sessionUpdate") == "config_option_update":
                config_payload(ctx, update, "config_option_update")
    ctx.record(
        "config.no-boolean",
        None if ctx.gate is not None else not ctx.booleans,
        (
            f"boolean config options, not advertised: {ctx.booleans[:5]}"
            if ctx.booleans
            else ctx.gate or "no boolean config option"
        ),
    )
