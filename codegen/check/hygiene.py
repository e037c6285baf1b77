"""JSON-RPC hygiene: unknown methods, bad params, odd ids, notifications."""

from __future__ import annotations

import asyncio
from typing import Any

from .client import AgentPeer
from .context import AFTER_ANSWER, Call, Context, unless_flooded


async def hygiene(ctx: Context, peer: AgentPeer, call: Call) -> None:
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
    elif (blocked := ctx.refused_for_auth("session/new", reply)) is not None:
        ctx.record("rpc.bad-params", None, f"{blocked} (before its params were read)")
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
        unless_flooded(reply, reply.message is not None),
        f"a request after them: {reply.describe()}",
        peer.evidence(mark),
    )
