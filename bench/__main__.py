"""`python -m bench`: measure acpgen against the alternatives, print one markdown table.

python -m bench                 full run (a few minutes): writes bench/results.json and the
                                generated block of BENCHMARKS.md
python -m bench --quick         seconds, for smoke tests: small samples, small streams; writes
                                nothing unless --json / --markdown say where
--only codecs,pipe / --skip generation,imports   choose sections
--only connections --connections 200,1000      the many-connections section alone, with its counts
--only remote --remote 20000,1000,3            one remote connection per transport against the SDK
                                               1.0.0rc3: updates streamed, round trips, rounds
--only mcp --mcp 2000,3                        an MCP tool call over mcp/message beside the mcp
                                               SDK's own stdio transport: calls, rounds
--only proxy_hops               round trips and streaming through 0, 1 and 2 pass-through proxies
                                under the conductor (bench/proxy_hops.py)
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

import msgspec
import orjson

from . import connections, mcp_call, processes, proxy_hops, remote
from .codecs import (
    DECODE_FLOOR,
    ENCODE_FLOOR,
    acpgen_decoder,
    contenders,
    generate_dcg,
    load_module,
    runnable,
)
from .corpus import ROOT, corpus, repair_message
from .harness import FULL, QUICK, Settings, geomean, measure
from .machine import describe, git_state, loadavg
from .report import codec_summary, table, targets, targets_markdown, write_benchmarks_md
from .sendpath import send_path

SECTIONS = (
    "generation",
    "codecs",
    "sendpath",
    "imports",
    "pipe",
    "memory",
    "connections",
    "remote",
    "mcp",
    "proxy_hops",
)
EXTRA_SECTIONS = ("connections", "remote", "mcp", "proxy_hops")
"""The sections with a table of their own (the others share the main table)."""


class Plan:
    def __init__(self, quick: bool) -> None:
        self.quick = quick
        self.codec: Settings = QUICK if quick else FULL
        self.import_repeats = 2 if quick else 15
        self.generation_repeats = 1 if quick else 3
        self.stream_n = 2_000 if quick else 100_000
        self.pings = 200 if quick else 5_000
        self.pipe_repeats = 1 if quick else 3
        self.pipe_timeout = 60.0 if quick else 300.0
        self.huge_line = (2 << 20) if quick else (50 << 20)
        # many connections (bench/connections.py): remote clients at once, sessions on one stdio
        self.connection_counts: tuple[int, ...] = (20,) if quick else (200, 1_000)
        self.stdio_sessions = 100 if quick else 1_000
        self.connection_chunks = 20
        self.constructions = 200 if quick else 1_000
        self.connections_timeout = 120.0 if quick else 600.0
        # one remote connection per transport (bench/remote.py)
        self.remote_stream_n = 500 if quick else 20_000
        self.remote_pings = 50 if quick else 1_000
        self.remote_rounds = 1 if quick else 3
        # an MCP tool call round trip (bench/mcp_call.py)
        self.mcp_calls = 200 if quick else 2_000
        self.mcp_rounds = 1 if quick else 3
        # a proxy chain's hops (bench/proxy_hops.py): updates streamed, round trips, rounds
        self.hops = proxy_hops.QUICK if quick else proxy_hops.FULL

    def as_dict(self) -> dict[str, Any]:
        return {
            "quick": self.quick,
            "codec_sample_ns": self.codec.sample_ns,
            "codec_repeats": self.codec.repeats,
            "codec_warmup_samples": self.codec.warmup,
            "import_repeats": self.import_repeats,
            "generation_repeats": self.generation_repeats,
            "stream_notifications": self.stream_n,
            "round_trips_per_run": self.pings,
            "pipe_runs": self.pipe_repeats,
            "huge_line_bytes": self.huge_line,
            "connection_counts": list(self.connection_counts),
            "stdio_sessions": self.stdio_sessions,
            "connection_chunks": self.connection_chunks,
            "remote_stream_n": self.remote_stream_n,
            "remote_pings": self.remote_pings,
            "remote_rounds": self.remote_rounds,
            "mcp_calls": self.mcp_calls,
            "mcp_rounds": self.mcp_rounds,
            "hops": self.hops,
        }


def log(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def run_codecs(plan: Plan, dcg_path: Path | None) -> dict[str, Any]:
    dcg = None
    dcg_error = None
    if dcg_path is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                dcg = load_module(dcg_path)
            except Exception as exc:  # its output does not even import: every message is n/a
                dcg_error = f"{type(exc).__name__}: {exc}"
    messages = []
    for msg in corpus():
        cases = contenders(msg, dcg)
        entry: dict[str, Any] = {
            "name": msg.name,
            "bytes": len(msg.data),
            "receiver": msg.side,
            "kind": msg.kind,
            "method": msg.method,
            "def": msg.def_name,
        }
        for op, group in (("decode", cases.decode), ("encode", cases.encode)):
            timed = measure(runnable(group), plan.codec)
            entry[op] = {
                name: timed[name].as_dict() if name in timed else {"error": group[name]}
                for name in group
            }
            floors = DECODE_FLOOR if op == "decode" else ENCODE_FLOOR
            by = min(floors, key=lambda f: timed[f].median_ns)
            entry[f"{op}_floor_ns"] = timed[by].median_ns
            entry[f"{op}_floor_by"] = by
        entry["encode_equal_json"] = cases.encode_equal
        messages.append(entry)
        d = entry["decode"]
        log(
            f"  {msg.name}: decode {d['acpgen']['median_ns']:,.0f} ns (sdk"
            f" {d['sdk'].get('median_ns', float('nan')):,.0f}, floor"
            f" {entry['decode_floor_ns']:,.0f}); encode"
            f" {entry['encode']['acpgen']['median_ns']:,.0f} ns"
        )
    out: dict[str, Any] = {"messages": messages, "summary": codec_summary(messages)}
    out["repair"] = run_repair(plan)
    out["jsonschema_geomean_vs_acpgen"] = geomean(
        [
            m["decode"]["jsonschema"]["median_ns"] / m["decode"]["acpgen"]["median_ns"]
            for m in messages
        ]
    )
    out["dcg_error"] = dcg_error
    out["definitions"] = {
        "acpgen decode": (
            "acp_schema.MessageDecoder(receiving side, result_type=the pending request's result"
            " type).decode(bytes)"
        ),
        "acpgen encode": "acp_schema.encode_message(the decoded message)",
        "sdk decode": (
            "json.loads + <Model>.model_validate(params | result), as the SDK's stdio connection"
            " does"
        ),
        "sdk encode": (
            "model_dump(mode='json', by_alias=True, exclude_none=True, exclude_defaults=True |"
            " exclude_unset=True) + envelope + json.dumps(separators) + newline, as the SDK sends"
        ),
        "dcg decode": (
            "msgspec.json.Decoder(envelope Struct with the generated params/result"
            " type).decode(bytes)"
        ),
        "jsonschema decode": (
            "json.loads + Draft202012Validator(the def).validate(params | result | error)"
        ),
        "decode floor": "min(msgspec.json.decode, orjson.loads) of the same bytes, untyped",
        "encode floor": (
            "orjson.dumps of the same untyped dict (msgspec.json.encode of it is also recorded)"
        ),
    }
    return out


def run_repair(plan: Plan) -> dict[str, Any]:
    """Decode of the message that needs the schema's lenient repair, against the untyped floor."""
    msg = repair_message()
    decode = acpgen_decoder(msg)
    sent = len(json.loads(msg.data)["params"]["update"]["locations"])
    kept = len(decode(msg.data).params.update.locations)
    cases = {
        "acpgen": (decode, msg.data),
        "msgspec": (msgspec.json.decode, msg.data),
        "orjson": (orjson.loads, msg.data),
    }
    timed = measure(cases, plan.codec)
    by = min(DECODE_FLOOR, key=lambda f: timed[f].median_ns)
    out = {
        "name": msg.name,
        "bytes": len(msg.data),
        "decode": {name: t.as_dict() for name, t in timed.items()},
        "floor_ns": timed[by].median_ns,
        "floor_by": by,
        "vs_floor": timed["acpgen"].median_ns / timed[by].median_ns,
        "locations_sent": sent,
        "locations_kept": kept,
    }
    log(
        f"  {msg.name}: decode {timed['acpgen'].median_ns:,.0f} ns "
        f"(floor {timed[by].median_ns:,.0f}); {sent} locations sent, {kept} kept"
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fast, rough run (smoke tests)")
    parser.add_argument(
        "--only", default="", help=f"comma-separated sections to run, of {','.join(SECTIONS)}"
    )
    parser.add_argument("--skip", default="", help="comma-separated sections to leave out")
    parser.add_argument(
        "--json",
        type=Path,
        help="where to write results (default: bench/results.json on a full run)",
    )
    parser.add_argument(
        "--markdown",
        type=Path,
        help="BENCHMARKS.md to update (default: ./BENCHMARKS.md on a full run)",
    )
    parser.add_argument("--no-write", action="store_true", help="print only, write no file")
    parser.add_argument(
        "--connections",
        default="",
        help="counts of remote connections at once (comma-separated), in the connections section",
    )
    parser.add_argument(
        "--remote",
        default="",
        help="STREAM_N,PINGS,ROUNDS of the remote section (updates streamed, round trips, rounds)",
    )
    parser.add_argument(
        "--mcp",
        help="CALLS,ROUNDS of the mcp section (tool calls one after another, rounds)",
    )
    parser.add_argument(
        "--sessions", type=int, default=0, help="sessions at once on one stdio connection"
    )
    parser.add_argument(
        "--no-pin",
        action="store_true",
        help=(
            "run the pipe benchmark only as the scheduler places its processes (by default also"
            " pinned to two CPUs)"
        ),
    )
    args = parser.parse_args(argv)

    only = {s for s in args.only.split(",") if s}
    skip = {s for s in args.skip.split(",") if s}
    unknown = (only | skip) - set(SECTIONS)
    if unknown:
        parser.error(
            f"unknown sections: {', '.join(sorted(unknown))} (choose from {', '.join(SECTIONS)})"
        )
    sections = [s for s in SECTIONS if (not only or s in only) and s not in skip]
    full_run = not args.quick and set(sections) == set(SECTIONS)
    json_path = args.json or (ROOT / "bench" / "results.json" if full_run else None)
    md_path = args.markdown or (ROOT / "BENCHMARKS.md" if full_run else None)
    if args.no_write:
        json_path = md_path = None

    plan = Plan(args.quick)
    if args.connections:
        plan.connection_counts = tuple(int(n) for n in args.connections.split(","))
    if args.sessions:
        plan.stdio_sessions = args.sessions
    if args.remote:
        try:
            plan.remote_stream_n, plan.remote_pings, plan.remote_rounds = (
                int(n) for n in args.remote.split(",")
            )
        except ValueError:
            parser.error(
                f"--remote wants STREAM_N,PINGS,ROUNDS (three integers), not {args.remote!r}"
            )
    if args.mcp:
        try:
            plan.mcp_calls, plan.mcp_rounds = (int(n) for n in args.mcp.split(","))
        except ValueError:
            parser.error(f"--mcp wants CALLS,ROUNDS (two integers), not {args.mcp!r}")
    started = time.perf_counter()
    meta = describe()
    meta["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    meta["plan"] = plan.as_dict()
    meta["git"] = git_state(str(ROOT))
    meta["sections"] = sections
    if meta["loadavg_start"] and meta["loadavg_start"][0] > 0.5 * max(meta["nproc"], 1):
        log(
            f"warning: the machine is busy (load average {meta['loadavg_start']}): figures will be"
            " noisy"
        )
    results: dict[str, Any] = {"meta": meta}

    start = time.perf_counter()
    messages = corpus()
    meta["corpus"] = {
        "messages": len(messages),
        "validated_with": "jsonschema Draft 2020-12, root + own def",
        "seconds": time.perf_counter() - start,
    }
    log(f"corpus: {len(messages)} messages, each validated against schema/schema.json")

    with tempfile.TemporaryDirectory(prefix="acpgen-bench-") as tmp:
        workdir = Path(tmp)
        env = processes.child_env(workdir)
        dcg_path: Path | None = None
        if "generation" in sections:
            log(
                f"generation: acpgen generate and datamodel-codegen, {plan.generation_repeats}"
                " run(s) each"
            )
            results["generation"], dcg_path = processes.generation_times(
                plan.generation_repeats, workdir, env
            )
        elif "codecs" in sections:
            dcg_path, dcg_seconds = generate_dcg(workdir)
        if "codecs" in sections:
            log("codecs: decode and encode every message with every contender")
            results["codecs"] = run_codecs(plan, dcg_path)
        if "sendpath" in sections:
            log("sendpath: the agent's send path per session/update (struct, wire JSON, helper)")
            results["sendpath"] = send_path(plan.codec)
            for name, t in results["sendpath"]["ns_per_update"].items():
                log(f"  {name}: {t['median_ns']:,.0f} ns per update")
        if "imports" in sections:
            log(f"imports: fresh interpreters, {plan.import_repeats} runs each")
            results["imports"] = processes.import_times(plan.import_repeats, env)
        if "pipe" in sections:
            results["pipe"] = {}
            for placement in processes.placements(pin=not args.no_pin):
                log(
                    f"pipe ({placement}): {plan.stream_n:,} notifications and {plan.pings:,} round"
                    f" trips, {plan.pipe_repeats} round(s)"
                )
                results["pipe"][placement] = processes.pipe_throughput(
                    plan.stream_n,
                    plan.pings,
                    plan.pipe_repeats,
                    plan.pipe_timeout,
                    env,
                    pin=placement == "pinned",
                )
        if "memory" in sections:
            log(
                f"memory: a {plan.huge_line >> 20} MiB line, decoded alone and received over a pipe"
            )
            results["memory"] = {
                "decode": processes.decode_memory(plan.huge_line, workdir, plan.pipe_timeout, env),
                "pipe": processes.huge_line_over_pipe(
                    plan.huge_line, plan.pipe_timeout, env, pin=not args.no_pin
                ),
            }

        if "connections" in sections:
            results["connections"] = connections.run(
                plan.connection_counts,
                plan.stdio_sessions,
                plan.connection_chunks,
                plan.constructions,
                plan.connections_timeout,
                env,
            )
        if "remote" in sections:
            results["remote"] = remote.run(
                plan.remote_stream_n,
                plan.remote_pings,
                plan.remote_rounds,
                plan.connections_timeout,
                env,
            )
        if "mcp" in sections:
            results["mcp"] = mcp_call.run(
                plan.mcp_calls, plan.mcp_rounds, plan.connections_timeout, env
            )

        if "proxy_hops" in sections:
            results["proxy_hops"] = proxy_hops.run_section(*plan.hops)

    meta["loadavg_end"] = loadavg()
    results["targets"] = targets(results)
    extra = {
        "connections": connections,
        "remote": remote,
        "mcp": mcp_call,
        "proxy_hops": proxy_hops,
    }
    for name, section in extra.items():
        if name in results:
            results["targets"] += section.targets(results[name])
    tables = [table(results)] if set(sections) - set(EXTRA_SECTIONS) else []
    tables += [section.table(results[name]) for name, section in extra.items() if name in results]
    results["table"] = "\n\n".join(tables)
    results["elapsed_s"] = time.perf_counter() - started

    print(results["table"])
    if results["targets"]:
        print()
        print(targets_markdown(results["targets"]))
    if json_path is not None:
        json_path.write_text(json.dumps(results, indent=1, default=str) + "\n")
        log(f"wrote {json_path}")
    if md_path is not None:
        write_benchmarks_md(md_path, results)
        log(f"updated {md_path}")
    log(f"done in {results['elapsed_s']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
