"""Version negotiation probes and stdio faults, each on a connection of its own."""

from __future__ import annotations

from typing import Any

from .client import AgentPeer
from .context import PROMPT_TEXT, Context, prompt

HIGHER = 65535  # the largest protocol version the schema allows: no agent supports it
LOWER = 0
HUGE = 1 << 20


async def versions(ctx: Context) -> None:
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


async def stdio_lines(ctx: Context) -> None:
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
        reply = await peer.request("session/prompt", prompt(session_id, "x" * HUGE))
        ctx.record(
            "stdio.huge-line",
            reply.message is not None,
            f"a {HUGE}-character prompt: {reply.describe()}",
            peer.evidence(mark) + [f"stderr: {peer.wire.stderr_tail[-400:]}"],
        )
    finally:
        await peer.close()


async def eof_mid_turn(ctx: Context) -> None:
    peer = await ctx.connect("EOF in a turn")
    try:
        session_id = await _setup(ctx, peer)
        if session_id is None:
            ctx.record("stdio.eof-mid-turn", None, "initialize or session/new failed")
            return
        await peer.start("session/prompt", prompt(session_id, PROMPT_TEXT))
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
