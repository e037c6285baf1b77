"""A prompt turn and a cancelled one, v1 and v2: stop reasons, ordering, cancellation."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from .client import AgentPeer, Received
from .context import (
    AFTER_ANSWER,
    PROMPT_TEXT,
    Call,
    Context,
    content_updates,
    judged,
    prompt,
    state,
    update_kind,
)

TURN_CHECKS = ("prompt.no-update-after-answer", "prompt.tool-calls-announced")

CANCEL_AFTER = 0.1  # the cancel goes at the turn's first update, or this far into it
ROUND_TRIP = "_acpgen_check/barrier"  # the request sent right after session/cancel
# over a link that keeps no order (Streamable HTTP): a turn's end this long after the round trip's
# answer came after it
CANCEL_LANDS = 0.25


async def turn_v1(ctx: Context, peer: AgentPeer, session_id: Any, call: Call) -> None:
    mark = peer.mark()
    reply = await call("session/prompt", prompt(session_id, PROMPT_TEXT))
    answered = time.monotonic()
    if reply.message is None:
        ctx.record("prompt.stop-reason", None, f"session/prompt: {reply.describe()}")
        ctx.turn_failed = f"the text prompt got no answer ({reply.describe()})"
        ctx.skip(ctx.turn_failed, *TURN_CHECKS)
        return
    if not reply.ok:
        turn_refused(ctx, peer, reply, mark)
        ctx.skip(ctx.turn_failed or "", *TURN_CHECKS)
        return
    stop = reply.result.get("stopReason") if isinstance(reply.result, dict) else None
    ctx.record(
        "prompt.stop-reason",
        stop is not None,
        f"the turn ended: {reply.describe()}",
        peer.evidence(mark),
    )
    await asyncio.sleep(AFTER_ANSWER)
    await peer.barrier()
    late = content_updates(peer.updates(session_id, after=answered))
    kinds = sorted({update_kind(u) for u in late})
    ctx.record(
        "prompt.no-update-after-answer",
        not late,
        (
            f"{len(late)} content or tool call updates ({', '.join(kinds)}) after the prompt's"
            " answer"
            if late
            else "no content or tool call update after it"
        ),
        peer.evidence(mark),
    )
    tool_calls(ctx, peer, session_id, mark)


def turn_refused(ctx: Context, peer: AgentPeer, reply: Any, mark: int) -> None:
    """The first text prompt was answered with an error: one finding (prompt.stop-reason; none
    when the error is authentication required, which is the environment's), and every check
    needing a finished turn is not exercised, for that cause."""
    blocked = ctx.refused_for_auth("session/prompt", reply)
    if blocked is not None:
        ctx.record("prompt.stop-reason", None, blocked)
        ctx.turn_failed = blocked
        return
    ctx.record(
        "prompt.stop-reason", False, f"the turn ended: {reply.describe()}", peer.evidence(mark)
    )
    ctx.turn_failed = f"the text prompt failed ({reply.describe()}; see prompt.stop-reason)"


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
        ctx.turn_failed = f"the text prompt got no answer ({reply.describe()})"
        return
    if ctx.refused_for_auth("session/prompt", reply) is not None:
        ctx.turn_failed = ctx.refused_for_auth("session/prompt", reply)
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
    if not reply.ok:
        ctx.turn_failed = f"the text prompt was refused ({reply.describe()})"
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
    return next((got for got in peer.updates(session_id, after=after) if _idle(got)), None)


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
    """A turn cancelled after its first update, judged only when the agent had the cancel while
    the turn ran: a turn that ended before the agent read the cancel raced it, no fault of its."""
    if not ctx.wants("cancel.cancelled", "prompt.no-update-after-answer"):
        return
    if ctx.turn_failed is not None:
        ctx.skip(ctx.turn_failed, "cancel.cancelled")
        return
    new = await call("session/new", ctx.new_session_params())
    session_id = new.result.get("sessionId") if isinstance(new.result, dict) else None
    if session_id is None:
        ctx.record("cancel.cancelled", None, "session/new failed")
        return
    went_idle = any(_idle(got) for got in peer.notifications)  # v2: its first turn did
    mark = peer.mark()
    started = time.monotonic()
    future = await peer.start("session/prompt", prompt(session_id, PROMPT_TEXT))
    # cancel at the turn's first update, or CANCEL_AFTER into it, whichever comes first
    await peer.wait_for_update(session_id, started, CANCEL_AFTER, until=future)
    if ctx.version == 1 and future.done():
        ctx.record("cancel.cancelled", None, "the turn ended before the cancel could be sent")
        return
    if ctx.version == 2 and idle_now(peer, session_id, started) is not None:
        why = "the turn went idle before the cancel could be sent"
        ctx.skip(why, "cancel.cancelled", "prompt.no-update-after-answer")
        return
    await peer.notify("session/cancel", {"sessionId": session_id})
    if ctx.version == 1:
        seen = await _round_trip(peer, future.done)
        reply = await peer.wait(future)
        ended, stop = time.monotonic(), None
        if isinstance(reply.result, dict):
            stop = reply.result.get("stopReason")
        error = None if reply.ok else reply.describe()
        if reply.closed:
            ctx.record("cancel.cancelled", None, "the agent exited during the cancelled turn")
            return
    else:
        seen = await _round_trip(peer, lambda: idle_now(peer, session_id, started) is not None)
        reply = await peer.wait(future)
        if not reply.ok:
            await peer.barrier()  # a `running` sent before the refusal has arrived by now
        if not reply.ok and not reply.closed and not _ran(peer, session_id, started):
            why = (
                f"the agent refused the prompt ({reply.describe()}) and reported no `running`"
                " state: no work started, so none was there to cancel"
            )
            ctx.skip(why, "cancel.cancelled", "prompt.no-update-after-answer")
            return
        idle = await wait_idle(peer, session_id, started, ctx.timeout)
        ended = idle.at if idle is not None else time.monotonic()
        stop = state(idle)[1] if idle is not None else None
        error = None if idle is not None else "no idle state_update after the cancel"
    if error is not None and ctx.version == 2 and not went_idle:
        why = (
            f"{error}, nor after its first turn (prompt.stop-reason reports it): with no idle,"
            " a turn that ended before the cancel reached it looks like a cancel ignored"
        )
        ctx.record("cancel.cancelled", None, why)
    elif error is not None:
        ctx.record(
            "cancel.cancelled", False, f"the cancelled turn ended: {error}", peer.evidence(mark)
        )
    elif stop == "cancelled":
        ctx.record("cancel.cancelled", True, "ended `cancelled`")
    else:
        landed, detail = _landed(peer, seen, ended, stop)
        ctx.record("cancel.cancelled", False if landed else None, detail, peer.evidence(mark))
    if ctx.version == 2:
        await asyncio.sleep(AFTER_ANSWER)
        await peer.barrier()
        late = content_updates(peer.updates(session_id, after=ended))
        if stop != "cancelled":
            ctx.record("prompt.no-update-after-answer", None, "no turn ended `cancelled`")
            return
        ctx.record(
            "prompt.no-update-after-answer",
            not late,
            f"{len(late)} updates after idle `cancelled`" if late else "none after idle",
            peer.evidence(mark),
        )


def _idle(got: Received) -> bool:
    """Whether `got` is an idle state_update (of any session)."""
    return (
        got.message.get("method") == "session/update"
        and isinstance(got.message.get("params"), dict)
        and update_kind(got) == "state_update"
        and state(got)[0] == "idle"
    )


async def _round_trip(peer: AgentPeer, over: Callable[[], bool]) -> list[tuple[float, bool]]:
    """A request sent right after session/cancel: the agent reads the cancel before it, so what
    it sends after the answer it sent having read the cancel. Filled when the answer is taken:
    when, and whether the turn was `over` by then. Answers and updates are taken in the order
    they arrive; one arriving just after may be taken with it, and count as over: in doubt the
    turn is not judged, never failed."""
    answered: list[tuple[float, bool]] = []

    def took(future: asyncio.Future[dict[str, Any] | None]) -> None:
        if not future.cancelled() and future.result() is not None:
            answered.append((time.monotonic(), over()))

    (await peer.start(ROUND_TRIP, {})).add_done_callback(took)
    return answered


def _landed(
    peer: AgentPeer, seen: list[tuple[float, bool]], ended: float, stop: Any
) -> tuple[bool, str]:
    """Whether a turn that ended `stop` (not cancelled) ended with the cancel in hand, and why.
    Over a link that does not keep the order of what the agent sends (Streamable HTTP), the end
    must also come CANCEL_LANDS after the round trip's answer."""
    if not seen or seen[0][1]:
        return False, (
            f"ended {stop!r} before the agent answered a request sent after session/cancel:"
            " the turn may have ended before the cancel reached it"
        )
    after = ended - seen[0][0]
    if not peer.wire.ordered and after < CANCEL_LANDS:
        return False, (
            f"ended {stop!r} within {CANCEL_LANDS} s of the answer to a request sent after"
            " session/cancel, over a transport that keeps no order between them: it may have"
            " finished first"
        )
    return True, (
        f"ended {stop!r} {after:.2f} s after the agent answered a request sent after"
        " session/cancel: it had read the cancel while the turn ran"
    )


def _ran(peer: AgentPeer, session_id: Any, after: float) -> bool:
    """Whether the session reported foreground work (`running` or `requires_action`) since
    `after`: a v2 session is idle until a state_update says otherwise (prompt-lifecycle.mdx)."""
    updates = peer.updates(session_id, after=after)
    states = [state(got)[0] for got in updates if update_kind(got) == "state_update"]
    return any(s in ("running", "requires_action") for s in states)


async def cancel_request(ctx: Context, peer: AgentPeer, session_id: Any) -> None:
    """A prompt cancelled with $/cancel_request right after it was sent must still be answered
    (an agent that does not support $/cancel_request ignores it and answers anyway)."""
    if not ctx.wants("rpc.cancel-request"):
        return
    if ctx.turn_failed is not None:  # an error before any cancel would say nothing of it
        ctx.skip(ctx.turn_failed, "rpc.cancel-request")
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


async def batch(ctx: Context, peer: AgentPeer) -> None:
    """v2: two requests in one batch. Answered with an array of both answers: pass. Anything
    else (one error, a refusal): information, since the older v2 docs describe batches
    (transports.mdx L57-L72) and the npm 2.4.0 v2 schema and the Rust SDK 5.0 removed them."""
    if not ctx.wants("rpc.batch"):
        return
    mark = peer.mark()
    ids = [peer.new_id(), peer.new_id()]
    futures = [peer.expect(rid, "_acpgen_check/batch") for rid in ids]
    calls = [{"jsonrpc": "2.0", "id": rid, "method": "_acpgen_check/batch"} for rid in ids]
    await peer.send(calls)
    await peer.barrier()
    await asyncio.sleep(AFTER_ANSWER)
    answered = [f for f in futures if f.done() and f.result() is not None]
    arrays = peer.batches
    if peer.closed.is_set():  # not a refusal: it took the batch down with it
        ctx.record("rpc.batch", False, "the agent exited after a batch", peer.evidence(mark))
        return
    good = len(answered) == len(ids) and arrays > 0
    detail = (
        "a batch of two requests was answered with an array of two answers"
        if good
        else f"a batch of two requests: {len(answered)} answered, {arrays} answer arrays"
        " (refused or not taken: the older v2 docs describe batches, the npm 2.4.0 v2 schema"
        " and the Rust SDK 5.0 removed them; see docs/check.md)"
    )
    ctx.record("rpc.batch", good, detail, peer.evidence(mark))
