"""The mcp section: one MCP tool call round trip, over ACP's `mcp/message` and on the official
`mcp` SDK's own stdio transport, each crossing a process boundary on a pipe
(bench/peers/mcp_peer.py).

- `mcp/message`, McpCaller: an ACP agent (a child on stdio) calls a tool its ACP client provides
  (an `mcp` SDK `Server`, served by acp_runtime.mcp.sdk.serve_mcp_server), with acp_runtime's
  McpCaller;
- `mcp/message`, mcp.Client: the same, with a real `mcp.Client` on the carrier
  (acp_runtime.mcp.sdk.mcp_client_session);
- mcp SDK stdio: an `mcp.Client` calling the same tool of the same `Server` in a child process on
  the SDK's stdio transport (`stdio_client` / `stdio_server`), MCP 2026-07-28 on both.

CALLS calls one after another after a warm-up, in ROUNDS rounds (the contenders alternate which
goes first); the figures are medians. Run it alone: `python -m bench --only mcp`
(`--mcp CALLS,ROUNDS` sets the sizes).
"""

from __future__ import annotations

import statistics
import sys
from typing import Any

from .processes import PEERS, run_json

WAYS = (
    ("caller_us", "`mcp/message` (ACP stdio), acp_runtime `McpCaller`"),
    ("client_us", "`mcp/message` (ACP stdio), `mcp.Client` on the carrier"),
    ("stdio_us", "mcp SDK 2.3.0 stdio transport, `mcp.Client`"),
)
RUNS = ("carrier", "stdio")


def run(calls: int, rounds: int, timeout: float, env: dict[str, str]) -> dict[str, Any]:
    _log(f"mcp: {calls:,} tool calls one after another, {rounds} round(s)")
    samples: dict[str, list[float]] = {key: [] for key, _ in WAYS}
    errors: dict[str, str] = {}
    for r in range(rounds):
        for kind in RUNS if r % 2 == 0 else RUNS[::-1]:
            result = run_json(
                [sys.executable, str(PEERS / "mcp_peer.py"), kind, str(calls)], timeout, env
            )
            if "error" in result:
                errors[kind] = result["error"]
                continue
            for key, value in result.items():
                samples[key].append(float(value))
            _log(f"  round {r + 1}, {kind}: {result}")
    ways: dict[str, Any] = {}
    for key, _ in WAYS:
        if samples[key]:
            ways[key] = {"us": statistics.median(samples[key]), "runs": samples[key]}
        else:
            kind = "stdio" if key == "stdio_us" else "carrier"
            ways[key] = {"error": errors.get(kind, "no result")}
    return {"calls": calls, "rounds": rounds, "ways": ways}


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    return []  # a comparison, not a target


def table(results: dict[str, Any]) -> str:
    ways = results["ways"]
    stdio = ways.get("stdio_us", {}).get("us")
    lines = [
        f"MCP tool call round trip ({results['calls']:,} calls one after another, median of"
        f" {results['rounds']} round(s))",
        "",
        "| way | µs per call | calls/s | vs the SDK's stdio |",
        "|---|---:|---:|---:|",
    ]
    for key, label in WAYS:
        row = ways[key]
        if "error" in row:
            lines.append(f"| {label} | {row['error']} | | |")
            continue
        us = row["us"]
        ratio = f"{stdio / us:.2f}x" if stdio else ""
        lines.append(f"| {label} | {us:,.0f} | {1e6 / us:,.0f} | {ratio} |")
    return "\n".join(lines)


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
