"""The many-connections section: what a connection costs to make, and many of them at once.

- construction: `AgentSideConnection` and `ClientSideConnection` on acp_runtime, the first of the
  process (which works out the package's tables, `acp_runtime.protocol.plan`) and each one after it;
- remote: N clients at once, each opening its own connection (initialize, one session, one prompt
  streaming 20 updates), against one server, over HTTP/1.1, h2c and WebSocket: acp_runtime's
  client and server side by side with the official Python SDK 1.0.0rc3's (its `acp.http` /
  `acp.ws`, both servers under the same Hypercorn settings; bench/servers.py runs it); wall
  time of the whole run and the peak memory of the client and of the server processes;
- stdio: N sessions at once on one stdio connection (a session/new each, then a prompt each
  streaming 20 updates), side by side with the SDK 1.0.0rc3; peak memory of both processes.

Run it alone: `python -m bench --only connections` (`--connections 200,1000` sets the counts).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from .peers.common import peak_kb
from .processes import PEERS, PY, run_json
from .servers import SDK_LABEL, missing, python_of, server, url_for

IMPLS = ("runtime", "sdk")
MODES = ("http1", "h2c", "ws")


def construction(n: int, timeout: float, env: dict[str, str]) -> dict[str, Any]:
    """Connections made one after another on in-memory pipes, in a fresh process."""
    return run_json([PY, str(PEERS / "construct.py"), str(n)], timeout, env)


def remote(
    counts: tuple[int, ...], chunks: int, timeout: float, env: dict[str, str]
) -> dict[str, Any]:
    """Every count, transport and implementation: a fresh server for each run."""
    out: dict[str, Any] = {}
    for n in counts:
        for mode in MODES:
            for impl in IMPLS:
                result: dict[str, Any]
                if why := missing(impl):
                    result = {"error": why}
                else:
                    with server(impl, env) as (url, proc):
                        client = PEERS / "many_client.py"
                        argv = [python_of(impl), str(client), impl, mode, str(n), str(chunks)]
                        result = run_json([*argv, url_for(url, mode)], timeout, env)
                        result["server_maxrss_kb"] = peak_kb(proc.pid)
                out.setdefault(str(n), {}).setdefault(mode, {})[impl] = result
                _log(f"  {n} connections, {mode}, {impl}: {_brief(result)}")
    return out


def stdio(sessions: int, chunks: int, timeout: float, env: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for impl in IMPLS:
        client = PEERS / "many_client.py"
        argv = [python_of(impl), str(client), impl, "stdio", str(sessions), str(chunks)]
        out[impl] = {"error": why} if (why := missing(impl)) else run_json(argv, timeout, env)
        _log(f"  {sessions} sessions on stdio, {impl}: {_brief(out[impl])}")
    return out


def run(
    counts: tuple[int, ...],
    sessions: int,
    chunks: int,
    construct_n: int,
    timeout: float,
    env: dict[str, str],
) -> dict[str, Any]:
    _log(f"connections: construction ({construct_n} each side)")
    results: dict[str, Any] = {
        "chunks": chunks,
        "construction": construction(construct_n, timeout, env),
    }
    _log(f"connections: {', '.join(map(str, counts))} remote connections at once, {chunks} updates")
    results["remote"] = remote(counts, chunks, timeout, env)
    _log(f"connections: {sessions} sessions at once on one stdio connection")
    results["stdio"] = stdio(sessions, chunks, timeout, env)
    results["stdio_sessions"] = sessions
    return results


CONSTRUCT_US = 500.0  # constructing a connection after the first, each side
SPEEDUP = 2.0  # 200 remote connections at once, against the SDK, on HTTP/1.1 and WebSocket
TARGET_N = "200"


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """This section's targets (issue 27), as rows of the bench's targets table."""
    rows: list[dict[str, Any]] = []

    def add(name: str, wanted: str, value: float | None, ok: bool | None, shown: str) -> None:
        status = "NOT MEASURED" if ok is None else ("PASS" if ok else "FAIL")
        rows.append(
            {"target": name, "wanted": wanted, "value": value, "shown": shown, "status": status}
        )

    built = results.get("construction", {})
    for side in ("agent", "client"):
        after = built.get(side, {}).get("after_us")
        add(
            f"constructing a connection after the first ({side} side)",
            f"< {CONSTRUCT_US:g} µs",
            after,
            None if after is None else after < CONSTRUCT_US,
            "n/a" if after is None else f"{after:.1f} µs",
        )
    for mode in ("http1", "ws"):
        row = results.get("remote", {}).get(TARGET_N, {}).get(mode, {})
        ours, theirs = row.get("runtime", {}), row.get("sdk", {})
        measured = "seconds" in ours and "seconds" in theirs and not ours.get("failed")
        speedup = theirs["seconds"] / ours["seconds"] if measured else None
        add(
            f"{TARGET_N} remote connections at once, {mode}, against the SDK",
            f"≥ {SPEEDUP:g}× faster",
            speedup,
            None if speedup is None else speedup >= SPEEDUP,
            "n/a" if speedup is None else f"{speedup:.2f}×",
        )
        for process, what in (("client", "maxrss_kb"), ("server", "server_maxrss_kb")):
            mine, sdk = ours.get(what), theirs.get(what)
            known = isinstance(mine, int) and isinstance(sdk, int)
            add(
                f"{TARGET_N} remote connections, {mode}: {process} memory",
                "≤ the SDK's",
                mine / sdk if known else None,
                mine <= sdk if known else None,
                f"{_mib(mine)} / {_mib(sdk)}",
            )
    return rows


def _log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def _brief(result: dict[str, Any]) -> str:
    if "error" in result:
        return str(result["error"])
    failed = f", {result['failed']} failed" if result.get("failed") else ""
    return f"{result['seconds']:.2f} s, {result['updates']} updates{failed}"


def _mib(kb: Any) -> str:
    return "n/a" if not isinstance(kb, (int, float)) else f"{kb / 1024:.0f} MiB"


def _cell(result: dict[str, Any]) -> str:
    if "error" in result:
        return f"error: {result['error']}"
    failed = f" ({result['failed']} failed: {result.get('first_error', '')[:80]})"
    return f"{result['seconds']:.2f} s" + (failed if result.get("failed") else "")


def _ratio(ours: dict[str, Any], theirs: dict[str, Any]) -> str:
    if "seconds" not in ours or "seconds" not in theirs or ours.get("failed"):
        return "n/a"
    return f"{theirs['seconds'] / ours['seconds']:.2f}x"


def table(results: dict[str, Any]) -> str:
    """The section as markdown."""
    lines = ["### Many connections", ""]
    built = results.get("construction", {})
    if "error" in built:
        lines.append(f"Construction: error: {built['error']}")
    elif built:
        lines += [
            "| constructing a connection (acp_runtime) | first of the process | each after it |",
            "|---|---:|---:|",
        ]
        for side in ("agent", "client"):
            row = built[side]
            lines.append(f"| {side} side | {row['first_ms']:.2f} ms | {row['after_us']:.1f} µs |")
    chunks = results.get("chunks")
    lines += [
        "",
        f"Remote: N connections at once, each one session and a prompt of {chunks} updates.",
        "",
        f"| N | transport | acp_runtime | {SDK_LABEL} | speed-up | client memory (ours / SDK)"
        " | server memory (ours / SDK) |",
        "|---:|---|---:|---:|---:|---:|---:|",
    ]
    for n, modes in results.get("remote", {}).items():
        for mode, row in modes.items():
            ours, theirs = row.get("runtime", {}), row.get("sdk", {})
            lines.append(
                f"| {n} | {mode} | {_cell(ours)} | {_cell(theirs)} | {_ratio(ours, theirs)}"
                f" | {_mib(ours.get('maxrss_kb'))} / {_mib(theirs.get('maxrss_kb'))}"
                f" | {_mib(ours.get('server_maxrss_kb'))} / {_mib(theirs.get('server_maxrss_kb'))}"
                " |"
            )
    over = results.get("stdio", {})
    if over:
        ours, theirs = over.get("runtime", {}), over.get("sdk", {})
        lines += [
            "",
            f"| {results.get('stdio_sessions')} sessions on one stdio connection | acp_runtime"
            f" | {SDK_LABEL} | speed-up |",
            "|---|---:|---:|---:|",
            f"| wall time | {_cell(ours)} | {_cell(theirs)} | {_ratio(ours, theirs)} |",
            f"| client memory | {_mib(ours.get('maxrss_kb'))} | {_mib(theirs.get('maxrss_kb'))}"
            " | |",
            f"| agent memory | {_mib(ours.get('agent_maxrss_kb'))}"
            f" | {_mib(theirs.get('agent_maxrss_kb'))} | |",
        ]
    return "\n".join(lines)


if __name__ == "__main__":  # python -m bench.connections N,N SESSIONS: a quick look
    env = dict(os.environ)
    counts = tuple(int(c) for c in (sys.argv[1] if len(sys.argv) > 1 else "20").split(","))
    sessions = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    print(table(run(counts, sessions, 20, 200, 600.0, env)))
