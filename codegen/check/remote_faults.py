"""Remote faults (--url): a client that goes away in the middle of a turn. The connection is
closed at the turn's first update (or 0.1 s into it): a DELETE over Streamable HTTP, a close
frame over WebSocket. Then a new connection must still be served: initialize and session/new."""

from __future__ import annotations

import asyncio
import time

from .context import PROMPT_TEXT, Context, prompt, state

DROP_AFTER = 0.1


async def drop_mid_turn(ctx: Context) -> None:
    peer = await ctx.connect("closed in the middle of a turn")
    try:
        init = await ctx.ready(peer)
        new = await peer.request("session/new", ctx.new_session_params())
        session_id = new.result.get("sessionId") if isinstance(new.result, dict) else None
        if not init.ok or session_id is None:
            detail = f"initialize: {init.describe()}; session/new: {new.describe()}"
            ctx.record("remote.drop-mid-turn", None, detail)
            return
        started = time.monotonic()
        turn = await peer.start("session/prompt", prompt(session_id, PROMPT_TEXT))
        if ctx.version == 1:
            await peer.wait_for_update(session_id, started, DROP_AFTER, until=turn)
            over = turn.done()  # v1: the prompt's answer ends the turn
        else:  # v2: the prompt is answered at once, the idle state_update ends the turn
            await asyncio.sleep(DROP_AFTER)
            over = any(state(u)[0] == "idle" for u in peer.updates(session_id, started))
        if over:
            ctx.record("remote.drop-mid-turn", None, "the turn was over before the drop")
            return
    finally:
        await peer.close()
    await asyncio.sleep(0.2)
    try:
        again = await ctx.connect("a new connection after the drop")
    except Exception as exc:  # SpawnError: the server is gone
        ctx.record("remote.drop-mid-turn", False, f"no new connection after the drop: {exc}")
        return
    try:
        init = await ctx.ready(again)
        new = await again.request("session/new", ctx.new_session_params())
    finally:
        await again.close()
    served = init.ok and new.ok
    ctx.record(
        "remote.drop-mid-turn",
        served,
        f"after the drop, initialize: {init.describe()}; session/new: {new.describe()}",
        again.evidence(),
    )
