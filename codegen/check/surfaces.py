"""Capability-driven checks of an agent (v1) beyond the session methods: the prompt content kinds
(the baseline every agent takes, and each kind promptCapabilities advertises), the authentication
methods it advertises, and, on a connection of its own, what it does when the checker offers the
file system and terminals (offering.py: every call is recorded and answered without touching
the machine; every terminal created must be released)."""

from __future__ import annotations

from typing import Any

from .client import AgentPeer, Reply
from .context import PROMPT_TEXT, Call, Context
from .offering import OfferingPeer

RESOURCE_LINK = {
    "type": "resource_link",
    "name": "acpgen-check.txt",
    "uri": "file:///acpgen-check/acpgen-check.txt",
}
PIXEL = (  # a 1x1 transparent PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
SILENCE = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="  # an empty WAV
ADVERTISED_KINDS: dict[str, dict[str, Any]] = {
    "image": {"type": "image", "mimeType": "image/png", "data": PIXEL},
    "audio": {"type": "audio", "mimeType": "audio/wav", "data": SILENCE},
    "embeddedContext": {
        "type": "resource",
        "resource": {
            "uri": "file:///acpgen-check/notes.txt",
            "mimeType": "text/plain",
            "text": "acpgen check",
        },
    },
}


def _turn_ended(reply: Reply) -> bool:
    return reply.ok and isinstance(reply.result, dict) and "stopReason" in reply.result


async def content_kinds(
    ctx: Context, peer: AgentPeer, init: Any, session_id: Any, call: Call
) -> None:
    """A text and a resource_link block (the baseline), then each advertised richer kind."""
    text = {"type": "text", "text": PROMPT_TEXT}
    if ctx.turn_failed is not None:  # the same cause would fail these the same way
        ctx.skip(ctx.turn_failed, "prompt.baseline-content", "prompt.advertised-content")
        return
    mark = peer.mark()
    reply = await call("session/prompt", {"sessionId": session_id, "prompt": [text, RESOURCE_LINK]})
    ctx.record(
        "prompt.baseline-content",
        None if reply.message is None else _turn_ended(reply),
        f"a text and a resource_link block: {reply.describe()}",
        peer.evidence(mark),
    )
    caps = init.get("agentCapabilities") if isinstance(init, dict) else None
    prompts = caps.get("promptCapabilities") if isinstance(caps, dict) else None
    advertised = [k for k in ADVERTISED_KINDS if isinstance(prompts, dict) and prompts.get(k)]
    if not advertised:
        ctx.record("prompt.advertised-content", None, "promptCapabilities advertises no kind")
        return
    mark = peer.mark()
    refused = []
    for kind in advertised:
        blocks = [text, ADVERTISED_KINDS[kind]]
        reply = await call("session/prompt", {"sessionId": session_id, "prompt": blocks})
        if reply.message is None:
            ctx.record("prompt.advertised-content", None, f"{kind}: {reply.describe()}")
            return
        if not _turn_ended(reply):
            refused.append(f"{kind}: {reply.describe()}")
    detail = "; ".join(refused) if refused else f"took {advertised}"
    ctx.record("prompt.advertised-content", not refused, detail, peer.evidence(mark))


def method_id(method: dict[str, Any]) -> Any:
    """An advertised auth method's id: `id` in v1's AuthMethod, `methodId` in v2's (issue 38:
    codex-acp 2.6.0's v2 methods were listed as `None, None`)."""
    return method.get("id", method.get("methodId"))


def auth_methods(ctx: Context, peer: AgentPeer, init: Any) -> None:
    """The checker's initialize enables no terminal authentication (clientCapabilities.auth):
    no advertised method may be of type `terminal`."""
    methods = init.get("authMethods") if isinstance(init, dict) else None
    if not isinstance(methods, list) or not methods:
        ctx.record("auth.terminal-method", None, "initialize advertises no authentication method")
        return
    listed = [m for m in methods if isinstance(m, dict)]
    terminal = [method_id(m) for m in listed if m.get("type") == "terminal"]
    ids = [method_id(m) for m in listed]
    detail = f"terminal methods {terminal} although not enabled" if terminal else f"methods {ids}"
    ctx.record("auth.terminal-method", not terminal, detail, peer.evidence(0)[:2])


OFFERED = {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}


async def offered_surface(ctx: Context) -> None:
    """A connection offering fs and terminals, one prompt turn: every terminal the agent
    creates is released by the turn's end (the calls it made are the detail)."""
    if ctx.gate is not None or ctx.turn_failed is not None:
        ctx.record("caps.terminal-release", None, ctx.gate or ctx.turn_failed or "")
        return
    peer = await ctx.connect("offering the file system and terminals", offering=True)
    assert isinstance(peer, OfferingPeer)
    try:
        params = ctx.initialize_params(ctx.version)
        params["clientCapabilities"] = OFFERED
        init = await ctx.ready(peer, params)
        new = await peer.request("session/new", ctx.new_session_params())
        session_id = new.result.get("sessionId") if isinstance(new.result, dict) else None
        if not init.ok or session_id is None:
            detail = f"initialize: {init.describe()}; session/new: {new.describe()}"
            ctx.record("caps.terminal-release", None, detail)
            return
        text = [{"type": "text", "text": PROMPT_TEXT}]
        reply = await peer.request("session/prompt", {"sessionId": session_id, "prompt": text})
        await peer.barrier()
    finally:
        await peer.close()
    calls = f"calls: {peer.calls}" if peer.calls else "no fs/* or terminal/* call"
    if not peer.created:
        ctx.record("caps.terminal-release", None, f"no terminal created ({calls})")
        return
    kept = [t for t in peer.created if t not in peer.released]
    ctx.record(
        "caps.terminal-release",
        None if reply.message is None else not kept,
        f"not released: {kept}; {calls}" if kept else f"every terminal released; {calls}",
        peer.evidence(),
    )
