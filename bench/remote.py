"""The remote section: one connection at a time over HTTP/1.1, h2c and WebSocket on loopback,
acp_runtime's client and server side by side with the official Python SDK 1.0.0rc3's (its
`acp.http` / `acp.ws` client and its ASGI app, both servers under the same Hypercorn settings).

Each run is a fresh server and one client (bench/peers/remote_client.py): one connection, one
session, a warm-up, then a prompt streaming STREAM_N updates (chunks/s, counted once the client
has handled the last one) and PINGS prompts answered at once, one after another (round trips/s).
The rounds interleave the contenders (each round runs every transport and implementation once,
which goes first alternating); the figures are medians over the rounds.

Run it alone: `python -m bench --only remote` (`--remote STREAM_N,PINGS,ROUNDS` sets the sizes).
"""

from __future__ import annotations

import statistics
import sys
from typing import Any

from .peers.common import peak_kb
from .processes import PEERS, run_json
from .servers import SDK_LABEL, missing, python_of, server, url_for

IMPLS = ("runtime", "sdk")
MODES = ("http1", "h2c", "ws")


def run(stream_n: int, pings: int, rounds: int, timeout: float, env: dict[str, str]) -> Any:
    _log(
        f"remote: {stream_n:,} updates streamed and {pings:,} round trips on one connection,"
        f" {rounds} round(s)"
    )
    runs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    errors: dict[tuple[str, str], str] = {}
    for r in range(rounds):
        for mode in MODES:
            for impl in IMPLS if r % 2 == 0 else IMPLS[::-1]:
                key = (mode, impl)
                if key in errors:
                    continue
                if why := missing(impl):
                    errors[key] = why
                    continue
                with server(impl, env) as (url, proc):
                    client = [python_of(impl), str(PEERS / "remote_client.py"), impl, mode]
                    argv = [*client, url_for(url, mode), str(stream_n), str(pings), str(proc.pid)]
                    result = run_json(argv, timeout, env)
                    result["server_maxrss_kb"] = peak_kb(proc.pid)
                if "error" in result:
                    errors[key] = result["error"]
                else:
                    runs.setdefault(key, []).append(result)
                _log(f"  round {r + 1}, {mode}, {impl}: {_brief(result)}")
    out: dict[str, Any] = {"stream_n": stream_n, "pings": pings, "rounds": rounds, "modes": {}}
    for mode in MODES:
        row = out["modes"][mode] = {}
        for impl in IMPLS:
            key = (mode, impl)
            row[impl] = {"error": errors[key]} if key in errors else _summary(runs[key])
    return out


def _summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    stream_s = [r["stream_seconds"][0] for r in runs]
    ping_s = [r["ping_seconds"][0] for r in runs]
    stream_n, pings = runs[0]["stream_n"], runs[0]["pings"]
    cpu: dict[str, float] = {}
    for side in ("client", "server"):
        per_chunk = [r["stream_cpu_seconds"][side][0] / stream_n for r in runs]
        per_ping = [r["ping_cpu_seconds"][side][0] / pings for r in runs]
        cpu[f"{side}_cpu_us_per_chunk"] = statistics.median(per_chunk) * 1e6
        cpu[f"{side}_cpu_us_per_round_trip"] = statistics.median(per_ping) * 1e6
    return {
        "stream_seconds": stream_s,
        "ping_seconds": ping_s,
        "chunks_per_s": stream_n / statistics.median(stream_s),
        "round_trips_per_s": pings / statistics.median(ping_s),
        **cpu,
        "maxrss_kb": max(r["maxrss_kb"] for r in runs),
        "server_maxrss_kb": max(r["server_maxrss_kb"] or 0 for r in runs),
    }


ROUND_TRIPS = {"http1": 1.0, "h2c": 2.0, "ws": 2.0}
"""Round trips against the SDK: at least its own on every transport (issue 27), twice its own
over h2c and WebSocket (issue 21)."""
STREAMING = {"h2c": 2.0, "ws": 2.0}
"""Streaming against the SDK over h2c and WebSocket (issue 21)."""


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    """This section's targets, as rows of the bench's targets table."""
    rows: list[dict[str, Any]] = []
    modes = results.get("modes", {})
    for what, field, wanted in (
        ("round trips", "round_trips_per_s", ROUND_TRIPS),
        ("streaming", "chunks_per_s", STREAMING),
    ):
        for mode, factor in wanted.items():
            ratio = _ratio(modes.get(mode, {}), field)
            rows.append(
                {
                    "target": f"remote {what}, {mode}, one connection, against the SDK 1.0.0rc3",
                    "wanted": f"≥ {factor:g}×",
                    "value": ratio,
                    "shown": "n/a" if ratio is None else f"{ratio:.2f}×",
                    "status": (
                        "NOT MEASURED" if ratio is None else ("PASS" if ratio >= factor else "FAIL")
                    ),
                }
            )
    return rows


def _ratio(row: dict[str, Any], field: str) -> float | None:
    ours, theirs = row.get("runtime", {}), row.get("sdk", {})
    if field not in ours or field not in theirs:
        return None
    return float(ours[field] / theirs[field])


def table(results: dict[str, Any]) -> str:
    """The section as markdown."""
    lines = [
        "### Remote, one connection",
        "",
        f"One connection, one session: a prompt streaming {results['stream_n']:,} updates, and"
        f" {results['pings']:,} prompts answered at once (round trips); medians of"
        f" {results['rounds']} interleaved round(s).",
        "",
        f"| transport | round trips/s: acp_runtime | {SDK_LABEL} | ratio | chunks/s: acp_runtime"
        f" | {SDK_LABEL} | ratio | client memory (ours / SDK) | server memory (ours / SDK) |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for mode, row in results.get("modes", {}).items():
        ours, theirs = row.get("runtime", {}), row.get("sdk", {})
        cells = [mode]
        for field in ("round_trips_per_s", "chunks_per_s"):
            ratio = _ratio(row, field)
            cells += [_rate(ours, field), _rate(theirs, field)]
            cells.append("n/a" if ratio is None else f"{ratio:.2f}x")
        for field in ("maxrss_kb", "server_maxrss_kb"):
            cells.append(f"{_mib(ours.get(field))} / {_mib(theirs.get(field))}")
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "CPU time in the same runs, µs per round trip and per chunk (ours / SDK; the rates above"
        " move with the machine's load, these far less):",
        "",
        "| transport | per round trip: client | server | both, SDK ÷ ours | per chunk: client"
        " | server | both, SDK ÷ ours |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for mode, row in results.get("modes", {}).items():
        ours, theirs = row.get("runtime", {}), row.get("sdk", {})
        cells = [mode]
        for unit in ("round_trip", "chunk"):
            for side in ("client", "server"):
                field = f"{side}_cpu_us_per_{unit}"
                cells.append(f"{_us(ours.get(field))} / {_us(theirs.get(field))}")
            mine, sdk = (_both(r, unit) for r in (ours, theirs))
            cells.append("n/a" if mine is None or sdk is None else f"{sdk / mine:.2f}x")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _both(result: dict[str, Any], unit: str) -> float | None:
    """Client and server CPU µs per `unit` (round_trip, chunk), or None."""
    parts = [result.get(f"{side}_cpu_us_per_{unit}") for side in ("client", "server")]
    return None if None in parts else float(sum(p for p in parts if p is not None))


def _us(value: Any) -> str:
    return "n/a" if not isinstance(value, (int, float)) else f"{value:,.0f}"


def _rate(result: dict[str, Any], field: str) -> str:
    if "error" in result:
        return f"error: {result['error'][:80]}"
    return f"{result[field]:,.0f}"


def _mib(kb: Any) -> str:
    return "n/a" if not isinstance(kb, (int, float)) or not kb else f"{kb / 1024:.0f} MiB"


def _brief(result: dict[str, Any]) -> str:
    if "error" in result:
        return str(result["error"])
    stream = result["stream_n"] / result["stream_seconds"][0]
    pings = result["pings"] / result["ping_seconds"][0]
    return f"{stream:,.0f} chunks/s, {pings:,.0f} round trips/s"


def _log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)
