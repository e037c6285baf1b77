"""Version negotiation probes and stdio faults, each on a connection of its own."""

from __future__ import annotations

import importlib
from typing import Any

from .client import AgentPeer, Reply
from .context import AFTER_ANSWER, PROMPT_TEXT, Context, judged, prompt, unless_flooded

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
        if asked == LOWER and (refusal := _schema_refusal(ctx, reply)) is not None:
            good, detail = True, f"asked {asked}: {reply.describe()}; {refusal}"
        elif not reply.ok or not isinstance(chosen, int):
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


def _schema_refusal(ctx: Context, reply: Reply) -> str | None:
    """Why an error answer to a version below every supported one is what the checked schema
    prescribes: its error code is one the schema names "Unsupported protocol version" (v2's
    -32022: "No protocol version supported by the Agent is at or below the requested version";
    v1's schema has no such code, so there the docs' "respond with the latest version it
    supports" stands). None: it is not."""
    if reply.ok or reply.error_code is None:
        return None
    errors = importlib.import_module(f"{ctx.package.__name__}.errors")
    named = errors.ERROR_CLASSES.get(reply.error_code)
    if named is None or named.title != "Unsupported protocol version":
        return None
    return (
        f"the schema's error {named.code} ({named.title}) for a version below every supported"
        ' one (InitializeResponse.protocolVersion: "If no such version exists, initialization'
        f' fails with error code {named.code}")'
    )


# ---- stdio faults


async def _setup(ctx: Context, peer: AgentPeer) -> Any:
    init = await ctx.ready(peer)
    if not init.ok:
        return None
    new = await peer.request("session/new", ctx.new_session_params())
    return new.result.get("sessionId") if isinstance(new.result, dict) else None


async def stdio_lines(ctx: Context) -> None:
    """session/new in three writes 50 ms apart, then a prompt of 1 MiB on one line."""
    peer = await ctx.connect("a frame in three writes, a 1 MiB line")
    try:
        init = await ctx.ready(peer)
        if not init.ok:  # the agent reads now: the pieces below reach it one at a time
            ctx.record("stdio.split-line", None, f"initialize: {init.describe()}")
            ctx.record("stdio.huge-line", None, f"initialize: {init.describe()}")
            return
        new = await peer.request("session/new", ctx.new_session_params(), pieces=3, pause=0.05)
        stderr = [f"stderr: {peer.wire.stderr_tail[-400:]}"]
        # read as one message: answered with a result, or an error that is not about its framing
        # (-32000 authentication required shows the agent read the request whole)
        read = new.message is not None and new.error_code not in (-32700, -32600)
        ctx.record(
            "stdio.split-line",
            judged(new, read),
            f"session/new in three writes 50 ms apart: {_answer(new, ctx.timeout)}",
            peer.evidence() + stderr,
        )
        session_id = new.result.get("sessionId") if isinstance(new.result, dict) else None
        if session_id is None:
            why = ctx.refused_for_auth("session/new", new) or f"session/new: {new.describe()}"
            ctx.record("stdio.huge-line", None, why)
            return
        mark = peer.mark()
        reply = await peer.request("session/prompt", prompt(session_id, "x" * HUGE))
        ctx.record(
            "stdio.huge-line",
            unless_flooded(reply, reply.message is not None),
            f"{_answer(reply, ctx.timeout)} to a {HUGE}-character prompt on one line",
            peer.evidence(mark) + [f"stderr: {peer.wire.stderr_tail[-400:]}"],
        )
    finally:
        await peer.close()


def _answer(reply: Any, timeout: float) -> str:
    """What came, saying a timeout first: a slow handler looks like a lost line."""
    if reply.message is None and not reply.closed:
        return f"no answer within {timeout:g} s (a slow handler, or the line was not read)"
    return str(reply.describe())


async def malformed(ctx: Context) -> None:
    """A line that is not JSON and a JSON object that is no message, then a request: it must
    still be answered, and an error answer to either line must have id null."""
    if ctx.url is not None and ctx.url.split("://", 1)[0].lower() in ("http", "https"):
        why = "over Streamable HTTP a body that is not JSON is the transport's to refuse"
        ctx.skip(why, "rpc.malformed-survives", "rpc.malformed-null-id")
        return
    peer = await ctx.connect("a line that is not JSON, an object that is no message")
    try:
        init = await ctx.ready(peer)
        if not init.ok:
            why = f"initialize: {init.describe()}"
            ctx.skip(why, "rpc.malformed-survives", "rpc.malformed-null-id")
            return
        mark = peer.mark()
        strays = len(peer.stray)
        await peer.wire.write(b'{"jsonrpc": "2.0", "id": 41, "method": "initialize", "par\n')
        await peer.wire.write(b'{"jsonrpc": "2.0", "acpgen_check": "no method, no result"}\n')
        reply = await peer.barrier()
        await peer.quiet(AFTER_ANSWER)
        answers = [s.message for s in peer.stray[strays:]]
        ctx.record(
            "rpc.malformed-survives",
            unless_flooded(reply, reply.message is not None),
            f"a request after them: {_answer(reply, ctx.timeout)}",
            peer.evidence(mark) + [f"stderr: {peer.wire.stderr_tail[-400:]}"],
        )
        wrong = [a for a in answers if a.get("id") is not None]
        detail = (
            f"answered with ids {[a.get('id') for a in wrong]}"
            if wrong
            else (
                f"{len(answers)} error answers, each with id null"
                if answers
                else "no answer to them"
            )
        )
        ctx.record("rpc.malformed-null-id", not wrong, detail, peer.evidence(mark))
    finally:
        await peer.close()


async def eof_mid_turn(ctx: Context) -> None:
    peer = await ctx.connect("EOF in a turn")
    try:
        session_id = await _setup(ctx, peer)
        if session_id is None and ctx.gate is None:
            ctx.record("stdio.eof-mid-turn", None, "initialize or session/new failed")
            return
        if session_id is not None:
            await peer.start("session/prompt", prompt(session_id, PROMPT_TEXT))
        peer.wire.close_stdin()
        code = await peer.wire.wait_exit(ctx.timeout)
        when = "during a turn" if session_id is not None else f"with no turn ({ctx.gate})"
        detail = (
            f"stdin closed {when}: exited with status {code}"
            if code is not None
            else f"still running {ctx.timeout} s after its stdin closed {when}"
        )
        ctx.record("stdio.eof-mid-turn", code is not None, detail, peer.evidence())
    finally:
        await peer.close()
