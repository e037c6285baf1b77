"""`acpgen check --proxy -- PROXY_CMD [ARGS...]`: check a proxy of a proxy chain (the Proxy Chains
RFD). The checker spawns the proxy and plays both its neighbours on its one connection: the
conductor (it sends `proxy/initialize` and the client's messages, plain) and the successor (it
answers what the proxy forwards inside `proxy/successor`, and sends the agent's messages so
wrapped). One scenario, each step judged by the sentence it cites (proxy_catalogue.py):

1. `proxy/initialize`: forwarded as `initialize` before the answer; the answer's protocolVersion
   is the successor's.
2. a request the proxy cannot know, each way, and one the successor fails: forwarded with its
   params, answered with the result or error unchanged; `_meta` kept in the message, the
   envelope's own `_meta` left on its hop.
3. `$/cancel_request` for a forwarded request: never forwarded to another hop.
4. JSON-RPC hygiene over every line; then stdin is closed: the proxy should exit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from .. import __version__
from .frames import _key
from .model import Result, Run, outcome_of
from .proxy_catalogue import PROXY_CHECK_NAMES
from .proxy_peer import CANCEL, INITIALIZE_PROXY, SUCCESSOR, Message, ProxyPeer
from .schemas import SchemaProblem
from .wire import Wire

QUIET = 0.5  # how long the checker listens for a forwarded cancel (bounded, not a timing check)
INNER_META = {"acpgen.check/inner": "kept"}  # a wrapped message's own _meta: it must stay
HOP_META = {"acpgen.check/hop": "this hop only"}  # an envelope's _meta: it must not travel
RESULT = {"echo": [1, "two", {"three": None}], "n": 1.5, "_meta": {"acpgen.check/answer": True}}
ERROR = {"code": -32042, "message": "acpgen check: the successor fails", "data": {"kept": [1, 2]}}
ASKED = {"q": [True, None], "_meta": INNER_META}


@dataclass
class ProxyRun:
    version: int
    timeout: float
    selected: Callable[[str, str], bool]
    progress: Callable[[str], None]
    results: list[Result] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seen: dict[str, list[tuple[bool | None, str]]] = field(default_factory=dict)

    def judge(self, name: str, passed: bool | None, detail: str) -> None:
        """One observation for check `name`; `verdict` makes them its result."""
        self.seen.setdefault(name, []).append((passed, detail))

    def verdict(self, name: str, evidence: list[str], none: str = "not reached") -> None:
        """The check's result: failed when one observation failed, passed when one passed and
        none failed, else not exercised."""
        cited = PROXY_CHECK_NAMES[name].cites(self.version)
        if cited is None or not self.selected(name, cited):
            return
        seen = self.seen.get(name, [])
        failed = [d for p, d in seen if p is False]
        passed: bool | None = None if not any(p for p, _ in seen) and not failed else not failed
        detail = "; ".join(failed or [d for _, d in seen]) or none
        result = Result(name, self.version, cited, outcome_of(cited, passed), detail[:600])
        if passed is not True:
            result.evidence = evidence
        self.results.append(result)
        self.progress(f"v{self.version} {name} [{cited}]: {result.outcome}")


def _proxy_methods(package: ModuleType) -> None:
    """The package must declare the proxy side's two methods (x-side "proxy")."""
    missing = [
        m
        for m in (INITIALIZE_PROXY, SUCCESSOR)
        if getattr(package.METHODS.get(m), "side", "") != "proxy"
    ]
    if missing:
        raise SchemaProblem(f"--proxy: the schema declares no proxy-side {', '.join(missing)}")


def initialize_params(version: int) -> dict[str, Any]:
    info = {"name": "acpgen-check", "version": __version__}
    if version == 1:
        capabilities = {"fs": {"readTextFile": False, "writeTextFile": False}, "terminal": False}
        return {"protocolVersion": 1, "clientCapabilities": capabilities, "clientInfo": info}
    return {"protocolVersion": 2, "info": info, "capabilities": {}}


def initialize_result(version: int) -> dict[str, Any]:
    info = {"name": "acpgen-check-successor", "version": __version__}
    if version == 1:
        return {"protocolVersion": 1, "agentCapabilities": {}, "agentInfo": info, "authMethods": []}
    return {"protocolVersion": 2, "info": info, "capabilities": {}, "authMethods": []}


async def run_proxy_checks(
    argv: list[str],
    packages: dict[int, ModuleType],
    versions: list[int],
    timeout: float,
    selected: Callable[[str, str], bool],
    progress: Callable[[str], None],
) -> Run:
    run = Run(argv, versions)
    for version in versions:
        _proxy_methods(packages[version])
        ctx = ProxyRun(version, timeout, selected, progress)
        progress(f"v{version} starting the proxy: {' '.join(argv)}")
        peer = ProxyPeer(await Wire.spawn(argv), timeout)
        try:
            await _scenario(ctx, peer)
        finally:
            await peer.close()
        run.results += ctx.results
        run.notes += ctx.notes
    return run


async def _scenario(ctx: ProxyRun, peer: ProxyPeer) -> None:
    await _initialize(ctx, peer)
    await _forwarded(ctx, peer, 2, {"n": 1, "_meta": INNER_META}, {"result": RESULT})
    await _forwarded(ctx, peer, 3, {}, {"error": ERROR})
    await _notice(ctx, peer)
    await _from_successor(ctx, peer, 4)
    await _cancel(ctx, peer, 5)
    _envelopes(ctx, peer)
    evidence = peer.evidence()
    for name in (
        "proxy.initialize-forwarded",
        "proxy.version-unchanged",
        "proxy.unknown-forwarded",
        "proxy.answers-unchanged",
        "proxy.cancel-hop-local",
        "proxy.meta-hop-local",
    ):
        ctx.verdict(name, evidence)
    _hygiene(ctx, peer)
    peer.wire.close_stdin()
    code = await peer.wire.wait_exit(ctx.timeout)
    ctx.judge(
        "proxy.eof-exit",
        code is not None,
        (
            f"exited with status {code} when its stdin closed"
            if code is not None
            else f"still running {ctx.timeout:g} s after its stdin closed"
        ),
    )
    ctx.verdict("proxy.eof-exit", peer.evidence())


def _answer(rid: Any) -> Callable[[Message], bool]:
    return lambda m: m.answers(rid)


def _wrapped(method: str, request: bool = True) -> Callable[[Message], bool]:
    def wanted(m: Message) -> bool:
        inner = m.wrapped
        return inner is not None and inner[0] == method and m.is_request == request

    return wanted


def _either(*wanted: Callable[[Message], bool]) -> Callable[[Message], bool]:
    return lambda m: any(w(m) for w in wanted)


async def _initialize(ctx: ProxyRun, peer: ProxyPeer) -> None:
    name, version = "proxy.initialize-forwarded", "proxy.version-unchanged"
    await peer.send({"id": 1, "method": INITIALIZE_PROXY, "params": initialize_params(ctx.version)})
    got = await peer.next(_either(_answer(1), _wrapped("initialize")))
    if got is None:
        said = f": {_missing(peer)}" if peer.closed.is_set() else f" in {ctx.timeout:g} s"
        ctx.judge(name, False, f"neither an answer nor a forwarded initialize{said}")
        return
    if got.method is None:
        ctx.judge(
            name,
            False,
            f"answered proxy/initialize without forwarding initialize: {_shown(got.value)}",
        )
        ctx.judge(version, None, "the proxy answered before its successor did")
        return
    ctx.judge(name, True, "initialize went to the successor before the answer")
    successor = initialize_result(ctx.version)
    await peer.send({"id": got.value["id"], "result": successor})
    answer = await peer.next(_answer(1))
    if answer is None or not isinstance(answer.value.get("result"), dict):
        said = "no answer in time" if answer is None else _shown(answer.value)
        ctx.judge(version, None, f"proxy/initialize: {said}")
        ctx.notes.append(f"v{ctx.version}: proxy/initialize: {said}")
        return
    chosen = answer.value["result"].get("protocolVersion")
    ctx.judge(
        version,
        chosen == successor["protocolVersion"],
        f"the successor answered protocolVersion {successor['protocolVersion']}, the proxy"
        f" {json.dumps(chosen)}",
    )


async def _forwarded(
    ctx: ProxyRun, peer: ProxyPeer, rid: int, params: dict[str, Any], reply: dict[str, Any]
) -> None:
    """A request from the client's direction no proxy knows: forwarded, and what the successor
    answers (`reply`: a result or an error) comes back unchanged."""
    method = "_acpgen_check/echo" if "result" in reply else "_acpgen_check/fails"
    await peer.send({"id": rid, "method": method, "params": params})
    got = await peer.next(_either(_answer(rid), _wrapped(method)))
    if got is None or got.method is None:
        said = _missing(peer) if got is None else _shown(got.value)
        ctx.judge("proxy.unknown-forwarded", _failed(peer, got), f"{method} not forwarded: {said}")
        return
    inner = got.wrapped
    same = inner is not None and inner[1] == params
    ctx.judge(
        "proxy.unknown-forwarded",
        same,
        (
            f"{method} forwarded"
            if same
            else f"{method} forwarded with other params: {_shown(got.value)}"
        ),
    )
    ctx.judge(
        "proxy.meta-hop-local",
        same or None,
        "the wrapped request kept its own _meta" if same else "params changed",
    )
    await peer.send({"id": got.value["id"], **reply})
    _unchanged(ctx, peer, method, await peer.next(_answer(rid)), reply)


def _unchanged(
    ctx: ProxyRun, peer: ProxyPeer, method: str, got: Message | None, reply: dict[str, Any]
) -> None:
    if got is None:
        ctx.judge("proxy.answers-unchanged", _failed(peer, got), f"{method}: {_missing(peer)}")
        return
    member = "result" if "result" in reply else "error"
    same = member in got.value and got.value[member] == reply[member]
    ctx.judge(
        "proxy.answers-unchanged",
        same,
        (
            f"{method}: the {member} came back unchanged"
            if same
            else f"{method}: the successor's {member} {json.dumps(reply[member])[:200]} came back"
            f" as {_shown(got.value)}"
        ),
    )


async def _notice(ctx: ProxyRun, peer: ProxyPeer) -> None:
    method, params = "_acpgen_check/notice", {"n": 3, "_meta": INNER_META}
    await peer.send({"method": method, "params": params})
    got = await peer.next(_wrapped(method, request=False))
    inner = got.wrapped if got is not None else None
    ctx.judge(
        "proxy.unknown-forwarded",
        (inner is not None and inner[1] == params) if got is not None else _failed(peer, got),
        (
            f"{method} (a notification) forwarded"
            if inner is not None and inner[1] == params
            else f"{method} (a notification): "
            + (_missing(peer) if got is None else f"forwarded as {_shown(got.value)}")
        ),
    )


async def _from_successor(ctx: ProxyRun, peer: ProxyPeer, rid: int) -> None:
    """A request from the agent's direction: unwrapped to the client with its params and its own
    _meta, not the envelope's, and the client's result comes back unchanged."""
    method = "_acpgen_check/ask"
    envelope = {"method": method, "params": ASKED, "_meta": HOP_META}
    await peer.send({"id": rid, "method": SUCCESSOR, "params": envelope})
    got = await peer.next(_either(_answer(rid), lambda m: m.method == method and m.is_request))
    if got is None or got.method is None:
        said = _missing(peer) if got is None else _shown(got.value)
        ctx.judge(
            "proxy.unknown-forwarded",
            _failed(peer, got),
            f"{method} from the successor not forwarded: {said}",
        )
        return
    params = got.params
    ctx.judge(
        "proxy.unknown-forwarded",
        True,
        f"{method} from the successor forwarded to the client",
    )
    kept = isinstance(params, dict) and params == ASKED
    ctx.judge(
        "proxy.meta-hop-local",
        kept,
        (
            "unwrapped with its own _meta, without the envelope's"
            if kept
            else f"{method} unwrapped as {_shown(got.value)}: params {json.dumps(ASKED)} were"
            f" sent (the envelope's _meta {json.dumps(HOP_META)} is hop-local)"
        ),
    )
    await peer.send({"id": got.value["id"], "result": RESULT})
    _unchanged(
        ctx,
        peer,
        f"{method} (from the successor)",
        await peer.next(_answer(rid)),
        {"result": RESULT},
    )


async def _cancel(ctx: ProxyRun, peer: ProxyPeer, rid: int) -> None:
    """The client cancels a request the proxy forwarded: the proxy may cancel its own request
    on this hop, never pass the cancel on."""
    name, method = "proxy.cancel-hop-local", "_acpgen_check/slow"
    await peer.send({"id": rid, "method": method, "params": {}})
    got = await peer.next(_either(_answer(rid), _wrapped(method)))
    if got is None or got.method is None:
        ctx.judge(name, None, f"{method} was not forwarded, so no cancel could follow it")
        return
    await peer.send({"method": CANCEL, "params": {"requestId": rid}})
    own = await peer.next(lambda m: m.method == CANCEL, QUIET)
    await peer.send(
        {"id": got.value["id"], "error": {"code": -32800, "message": "Request cancelled"}}
    )
    answer = await peer.next(_answer(rid))
    said = "no answer in time" if answer is None else _shown(answer.value)
    if own is not None and not isinstance(own.params, dict):
        ctx.judge(name, False, f"a $/cancel_request without params: {_shown(own.value)}")
    elif own is not None and _key(own.params.get("requestId")) not in peer.own_ids():
        ctx.judge(
            name, False, f"the client's cancel of id {rid} was passed on: {_shown(own.value)}"
        )
    else:
        cancelled = "cancelled its own request" if own is not None else "sent no cancel of its own"
        ctx.judge(name, True, f"the proxy {cancelled}; {method} was answered: {said}")


def _envelopes(ctx: ProxyRun, peer: ProxyPeer) -> None:
    """Over every envelope the proxy sent: no wrapped cancel, an object or null `_meta`."""
    for message in peer.messages:
        if message.method != SUCCESSOR:
            continue
        inner = message.wrapped
        if inner is not None and inner[0] == CANCEL:
            ctx.judge(
                "proxy.cancel-hop-local",
                False,
                f"a cancel forwarded to the successor: {_shown(message.value)}",
            )
        params = message.params
        meta = params.get("_meta") if isinstance(params, dict) else None
        if meta is not None and not isinstance(meta, dict):
            ctx.judge(
                "proxy.meta-hop-local",
                False,
                f"an envelope's _meta is a JSON {type(meta).__name__}, not an object or null:"
                f" {_shown(message.value)}",
            )


def _hygiene(ctx: ProxyRun, peer: ProxyPeer) -> None:
    found = peer.findings
    evidence = peer.evidence()
    for name, bad in (
        ("proxy.utf8", found.not_utf8),
        ("proxy.stdout-only-acp", found.not_message),
        ("proxy.jsonrpc-version", found.bad_version),
    ):
        ctx.judge(name, not bad, "; ".join(bad[:3]) or "every line")
        ctx.verdict(name, evidence)
    strays = peer.strays()
    ctx.judge(
        "proxy.id-echo",
        not strays,
        (
            f"answers to ids never sent: {_shown(strays[0])}"
            if strays
            else "every answer carried its id"
        ),
    )
    ctx.verdict("proxy.id-echo", evidence)


def _failed(peer: ProxyPeer, got: Message | None) -> bool | None:
    """False: what the step waited for did not come; None (not exercised) when the proxy closed
    its output, so it had no chance to (the exit is what is wrong, and eof-exit or the
    initialize check says so)."""
    return None if got is None and peer.closed.is_set() else False


def _missing(peer: ProxyPeer) -> str:
    """Why no message came: the proxy closed its output (with the last line of its stderr), or
    none came in time."""
    if not peer.closed.is_set():
        return "no answer in time"
    lines = peer.wire.stderr_tail.strip().splitlines()
    return "the proxy closed its output" + (
        f" (its stderr ends: {lines[-1][:200]})" if lines else ""
    )


def _shown(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)[:300]
