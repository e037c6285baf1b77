"""The cost of a hop in a proxy chain: round trips and streaming through 0, 1 and 2 pass-through
proxies under `python -m acp_runtime.conductor` (and the conductor with no proxy), against the
same agent (bench/peers/runtime_agent.py) direct.

This process is the client (acp_runtime's `spawn_agent`). Each pass-through proxy is
`run_proxy(Proxy)`: a proxy class that overrides nothing, so everything is forwarded by the
envelope, params and results as raw bytes, as the conductor does. Floor (docs/proxy.md):
streaming through one proxy at least 1/4 of the direct rate.

    python -m bench.proxy_hops [--quick]      prints the table and the floor
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from typing import Any

import acp_schema as acp
from acp_runtime import run, spawn_agent

from .processes import PEERS, PY

AGENT = [PY, str(PEERS / "runtime_agent.py")]
PASS = [PY, "-c", "from acp_runtime.proxy import Proxy, run_proxy; run_proxy(Proxy)"]
CONDUCTOR = [PY, "-m", "acp_runtime.conductor"]
QUICK, FULL = (2_000, 200, 1), (20_000, 1_000, 3)
"""Updates streamed, round trips and rounds: of `--quick`, and of the full run."""
FLOOR = 0.25
"""Streaming through one pass-through proxy, as a share of the direct rate."""


def chain(proxies: int | None) -> list[str]:
    """The agent command: direct (None), else the conductor with `proxies` pass-through proxies."""
    if proxies is None:
        return AGENT
    return [*CONDUCTOR, *(a for _ in range(proxies) for a in ("--", *PASS)), "--", *AGENT]


CHAINS = {"direct": None, "conductor, 0 proxies": 0, "1 proxy": 1, "2 proxies": 2}


class Counting(acp.ClientHandler):
    def __init__(self) -> None:
        self.count = 0

    async def session_update(self, params: acp.SessionNotification) -> None:
        self.count += 1


async def measure(command: list[str], stream_n: int, pings: int) -> dict[str, float]:
    client = Counting()
    async with spawn_agent(client, *command) as conn:
        agent = conn.agent
        await agent.initialize(acp.InitializeRequest(protocol_version=1))
        sid = (await agent.session_new(acp.NewSessionRequest(cwd="/", mcp_servers=[]))).session_id

        async def prompt(text: str) -> None:
            request = acp.PromptRequest(session_id=sid, prompt=[acp.TextContent(text=text)])
            await agent.session_prompt(request)

        await prompt(f"stream {min(stream_n, 500)}")  # warm-up
        client.count = 0
        start = time.perf_counter()
        await prompt(f"stream {stream_n}")
        stream_s = time.perf_counter() - start
        if client.count != stream_n:
            raise SystemExit(f"{command}: {client.count} of {stream_n} updates arrived")
        start = time.perf_counter()
        for _ in range(pings):
            await prompt("ping")
        ping_s = time.perf_counter() - start
    return {"chunks_per_s": stream_n / stream_s, "round_trips_per_s": pings / ping_s}


def run_section(stream_n: int, pings: int, rounds: int) -> dict[str, Any]:
    """Medians of `rounds` interleaved rounds, per chain."""
    runs: dict[str, list[dict[str, float]]] = {name: [] for name in CHAINS}
    for r in range(rounds):
        order = list(CHAINS.items()) if r % 2 == 0 else list(CHAINS.items())[::-1]
        for name, proxies in order:
            runs[name].append(run(measure(chain(proxies), stream_n, pings)))
    rows = {
        name: {field: statistics.median(x[field] for x in found) for field in found[0]}
        for name, found in runs.items()
    }
    return {"stream_n": stream_n, "pings": pings, "rounds": rounds, "chains": rows}


def targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    chains = results.get("chains", {})
    direct, one = chains.get("direct"), chains.get("1 proxy")
    ratio = None if not direct or not one else one["chunks_per_s"] / direct["chunks_per_s"]
    return [
        {
            "target": "streaming through one pass-through proxy, against direct",
            "wanted": f"≥ {FLOOR:g}×",
            "value": ratio,
            "shown": "n/a" if ratio is None else f"{ratio:.2f}×",
            "status": "NOT MEASURED" if ratio is None else ("PASS" if ratio >= FLOOR else "FAIL"),
        }
    ]


def table(results: dict[str, Any]) -> str:
    lines = [
        "### Proxy chains: the cost of a hop",
        "",
        f"One session: a prompt streaming {results['stream_n']:,} updates, and"
        f" {results['pings']:,} prompts answered at once (round trips), through the conductor and"
        f" pass-through proxies; medians of {results['rounds']} interleaved round(s).",
        "",
        "| chain | round trips/s | vs direct | chunks/s | vs direct |",
        "|---|---:|---:|---:|---:|",
    ]
    direct = results["chains"]["direct"]
    for name, row in results["chains"].items():
        cells = [name]
        for field in ("round_trips_per_s", "chunks_per_s"):
            cells += [f"{row[field]:,.0f}", f"{row[field] / direct[field]:.2f}x"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.proxy_hops")
    parser.add_argument("--quick", action="store_true", help="small samples, one round")
    args = parser.parse_args(argv)
    results = run_section(*(QUICK if args.quick else FULL))
    print(table(results))
    for row in targets(results):
        print(f"\n{row['target']}: {row['shown']} (wanted {row['wanted']}): {row['status']}")
    return 0 if all(row["status"] == "PASS" for row in targets(results)) else 1


if __name__ == "__main__":
    sys.exit(main())
