"""A prompt turn and a cancelled one, v1 and v2: stop reasons, ordering, cancellation."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from .client import AgentPeer
from .context import AFTER_ANSWER, PROMPT_TEXT, Call, Context, judged, prompt, state, update_kind

CANCEL_AFTER = 0.1  # the cancel goes at the turn's first update, or this far into it
CANCEL_LANDS = 0.25  # an answer this long after session/cancel was written had seen the cancel


async def turn_v1(ctx: Context, peer: AgentPeer, session_id: Any, call: Call) -> None:
    mark = peer.mark()
    reply = await call("session/prompt", prompt(session_id, PROMPT_TEXT))
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
    tool_calls(ctx, peer, session_id, mark)


def tool_calls(ctx: Context, peer: AgentPeer, session_id: Any, mark: int) -> None:
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


async def turn_v2(ctx: Context, peer: AgentPeer, session_id: Any, call: Call) -> None:
    mark = peer.mark()
    started = time.monotonic()
    reply = await call("session/prompt", prompt(session_id, PROMPT_TEXT))
    answered = time.monotonic()
    if reply.message is None:
        ctx.record("prompt.accepted", None, f"session/prompt: {reply.describe()}")
        return
    idle = await wait_idle(peer, session_id, started, ctx.timeout)
    accepted = reply.ok and (idle is None or idle.at >= answered)
    ctx.record(
        "prompt.accepted", accepted, f"session/prompt: {reply.describe()}", peer.evidence(mark)
    )
    updates = peer.updates(session_id, after=started)
    kinds = [update_kind(u) for u in updates]
    users = [u for u in updates if update_kind(u) in ("user_message", "user_message_chunk")]
    ctx.record(
        "prompt.user-message",
        bool(users) if reply.ok else None,
        f"updates: {kinds}",
        peer.evidence(mark),
    )
    states = [state(u) for u in updates if update_kind(u) == "state_update"]
    if idle is None:
        ctx.record(
            "prompt.stop-reason", False, f"no idle state_update; {kinds}", peer.evidence(mark)
        )
        ctx.record("prompt.running", None, "the turn never went idle")
        return
    stop = state(idle)[1]
    ctx.record("prompt.stop-reason", stop is not None, f"idle with {stop!r}", peer.evidence(mark))
    running = [s for s, _ in states if s == "running"]
    first_idle = states.index(("idle", stop)) if ("idle", stop) in states else len(states)
    ctx.record(
        "prompt.running",
        "running" in [s for s, _ in states[:first_idle]],
        f"states {states}" if running else f"no running state_update; {kinds}",
        peer.evidence(mark),
    )


def idle_now(peer: AgentPeer, session_id: Any, after: float) -> Any:
    """The idle state_update of the session already received since `after`, if any."""
    for got in peer.updates(session_id, after=after):
        if update_kind(got) == "state_update" and state(got)[0] == "idle":
            return got
    return None


async def wait_idle(peer: AgentPeer, session_id: Any, after: float, timeout: float) -> Any:
    deadline = time.monotonic() + timeout
    seen = after
    while time.monotonic() < deadline:
        idle = idle_now(peer, session_id, after)
        if idle is not None:
            return idle
        seen = max([seen, *(got.at for got in peer.updates(session_id, after=after))])
        if not await peer.wait_for_update(session_id, seen, deadline - time.monotonic()):
            return None
    return None


async def cancel(ctx: Context, peer: AgentPeer, call: Call) -> None:
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
    future = await peer.start("session/prompt", prompt(session_id, PROMPT_TEXT))
    # cancel at the turn's first update, or CANCEL_AFTER into it, whichever comes first
    await peer.wait_for_update(session_id, started, CANCEL_AFTER, until=future)
    if ctx.version == 1 and future.done():
        ctx.record("cancel.cancelled", None, "the turn ended before the cancel could be sent")
        return
    if ctx.version == 2 and idle_now(peer, session_id, started) is not None:
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
        idle = await wait_idle(peer, session_id, started, ctx.timeout)
        ended = idle.at if idle is not None else time.monotonic()
        stop = state(idle)[1] if idle is not None else None
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
            u for u in peer.updates(session_id, after=ended) if update_kind(u) != "state_update"
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


async def cancel_request(ctx: Context, peer: AgentPeer, session_id: Any) -> None:
    """A prompt cancelled with $/cancel_request right after it was sent must still be answered
    (an agent that does not support $/cancel_request ignores it and answers anyway)."""
    if not ctx.wants("rpc.cancel-request"):
        return
    mark = peer.mark()
    rid = peer.new_id()
    future = await peer.start("session/prompt", prompt(session_id, PROMPT_TEXT), rid)
    await peer.notify("$/cancel_request", {"requestId": rid})
    reply = await peer.wait(future)
    good = reply.ok or reply.error_code == -32800
    detail = f"session/prompt then $/cancel_request: {reply.describe()}"
    ctx.record("rpc.cancel-request", judged(reply, good), detail, peer.evidence(mark))
    if ctx.version == 2 and reply.ok:  # let the acknowledged turn finish before going on
        await wait_idle(peer, session_id, time.monotonic() - ctx.timeout, ctx.timeout)
