"""Smoke tests of the benchmark harness (`python -m bench`): it runs and its output is sane.

No timing is asserted here (CI machines vary); only that every figure exists, is positive, and
that the structure the table and BENCHMARKS.md are built from is complete. `make bench` is the
real run.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import corpus as bench_corpus  # noqa: E402
from bench import report  # noqa: E402
from bench.harness import QUICK  # noqa: E402
from bench.sendpath import send_path  # noqa: E402


def _bench(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`python -m bench --quick ARGS --json OUT`, which must succeed."""
    run = subprocess.run(
        [sys.executable, "-m", "bench", "--quick", *args, "--json", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    return run


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, str]:
    out = tmp_path_factory.mktemp("bench") / "results.json"
    # the connections, remote and mcp sections have tests of their own (below), proxy_hops in
    # tests/proxy/test_bench.py
    run = _bench(out, "--skip", "generation,imports,connections,remote,mcp,proxy_hops")
    return json.loads(out.read_text()), run.stdout


def test_corpus_has_every_message_kind_the_issue_lists() -> None:
    messages = bench_corpus.corpus()
    names = [m.name for m in messages]
    assert len(messages) >= 20
    assert {"initialize request", "initialize response"} <= set(names)
    bodies = {m.name: json.loads(m.data) for m in messages}
    servers = bodies["session/new request (stdio + http MCP)"]["params"]["mcpServers"]
    assert {s.get("type", "stdio") for s in servers} >= {"stdio", "http"}
    prompt = bodies["session/prompt request (text, link, resources, image)"]["params"]["prompt"]
    kinds = {
        (
            b["type"]
            if b["type"] != "resource"
            else ("text" in b["resource"] and "resource/text" or "resource/blob")
        )
        for b in prompt
    }
    assert kinds == {"text", "resource_link", "resource/text", "resource/blob", "image"}
    diff = bodies["update tool_call_update (diff)"]["params"]["update"]["content"]
    assert diff[0]["type"] == "diff"
    outcomes = {
        json.loads(m.data)["result"]["outcome"]["outcome"]
        for m in messages
        if m.def_name == "RequestPermissionResponse"
    }
    assert outcomes == {"selected", "cancelled"}
    assert sum(m.kind == "error" for m in messages) >= 2
    assert max(len(m.data) for m in messages) >= bench_corpus.LARGE_MIN_BYTES


def test_every_session_update_variant_of_the_schema_is_in_the_corpus() -> None:
    schema = bench_corpus.schema()
    variants = {
        b["properties"]["sessionUpdate"]["const"] for b in schema["$defs"]["SessionUpdate"]["oneOf"]
    }
    seen = {
        json.loads(m.data)["params"]["update"]["sessionUpdate"]
        for m in bench_corpus.corpus()
        if m.method == "session/update"
    }
    assert seen == variants


def test_corpus_validation_rejects_a_message_its_def_forbids() -> None:
    from jsonschema import ValidationError

    good = next(m for m in bench_corpus.corpus() if m.name == "update plan")
    body = json.loads(good.data)
    body["params"]["update"]["entries"][0]["priority"] = "urgent"
    bad = bench_corpus.Message(
        good.name, bench_corpus.dumps(body), good.side, good.kind, good.method, good.def_name
    )
    with pytest.raises(ValidationError):
        bench_corpus.validate(bad)


def test_quick_run_times_every_message_with_every_contender(quick_run: tuple[dict, str]) -> None:
    results, _ = quick_run
    messages = results["codecs"]["messages"]
    assert [m["name"] for m in messages] == [m.name for m in bench_corpus.corpus()]
    for m in messages:
        for op in ("decode", "encode"):
            assert m[op]["acpgen"]["median_ns"] > 0
            # the official SDK (an older schema revision) measured it, or says it cannot read it
            sdk = m[op]["sdk"]
            assert sdk.get("median_ns", 0) > 0 or sdk["error"].startswith(
                "SDK model rejects it"
            ), sdk
            assert m[f"{op}_floor_ns"] > 0
            assert m[f"{op}_vs_floor"] > 0
        assert m["decode"]["jsonschema"]["median_ns"] > 0
        # datamodel-codegen either decoded it or says why not
        assert "median_ns" in m["decode"]["dcg"] or m["decode"]["dcg"]["error"]
        assert m["encode_equal_json"]["acpgen"], f"acpgen re-encodes {m['name']} to different JSON"


def test_quick_run_summary_and_targets_are_complete(quick_run: tuple[dict, str]) -> None:
    results, stdout = quick_run
    summary = results["codecs"]["summary"]
    for op in ("decode", "encode"):
        assert summary[op]["geomean_vs_sdk"] > 0
        assert summary[op]["geomean_vs_floor"] > 0
        assert summary[op]["messages"] == len(results["codecs"]["messages"])
    repair = results["codecs"]["repair"]
    assert repair["vs_floor"] > 0 and repair["locations_kept"] < repair["locations_sent"]
    statuses = {t["target"]: t["status"] for t in results["targets"]}
    # every target but the import one (imports were skipped); the pipe ones once per CPU placement:
    # streaming and round trips vs the SDK and the floor, and the Session fold vs none (issue 14),
    # and on each event loop streaming and round trips vs the floor, round trips vs the SDK (21)
    assert len(statuses) == 6 + (5 + 3 * len(report.ISSUE_21_LOOPS)) * len(results["pipe"])
    assert set(statuses.values()) <= {"PASS", "FAIL", "NOT MEASURED"}
    assert stdout.startswith(report.HEADER[0])
    for op in ("decode", "encode"):
        repair_row = 1 if op == "decode" else 0  # the message that needs lenient repair
        assert stdout.count(f"| {op} · ") == len(results["codecs"]["messages"]) + repair_row
        assert f"| **{op} · geometric mean" in stdout


def test_quick_run_measures_the_pipe_and_memory(quick_run: tuple[dict, str]) -> None:
    results, _ = quick_run
    assert "unpinned" in results["pipe"]
    for pipe in results["pipe"].values():
        for name in ("sdk", "floor", "floor (asyncio)"):
            assert pipe[name]["notifications_per_s"] > 0
            assert pipe[name]["round_trips_per_s"] > 0
            assert pipe[name]["maxrss_kb_after_stream"] > 0
        ours = pipe["acpgen"]
        assert ours.get("notifications_per_s", 0) > 0 or ours["error"].startswith(
            "not measured: runtime not ready"
        )
        for variant in ("acpgen+session", "acpgen (uvloop)", "floor (uvloop)"):
            measured = pipe[variant]
            assert measured.get("notifications_per_s", 0) > 0 or measured["error"].startswith(
                "not measured"
            ), measured
    decode = results["memory"]["decode"]
    for name in ("acpgen", "sdk", "msgspec", "orjson"):
        assert decode[name]["peak_increase_kb"] >= 0
    assert (
        results["memory"]["pipe"]["floor"]["big_chars"]
        == results["meta"]["plan"]["huge_line_bytes"]
    )


def test_the_connections_section_runs_alone_and_reports_both_implementations(
    tmp_path: Path,
) -> None:
    out = tmp_path / "results.json"
    run = _bench(out, "--only", "connections", "--connections", "3", "--sessions", "10")
    results = json.loads(out.read_text())["connections"]
    for side in ("agent", "client"):
        assert results["construction"][side]["after_us"] > 0
    chunks = results["chunks"]
    for mode in ("http1", "h2c", "ws"):
        for impl in ("runtime", "sdk"):
            got = results["remote"]["3"][mode][impl]
            assert got["failed"] == 0 and got["updates"] == 3 * chunks, (mode, impl, got)
            assert got["maxrss_kb"] > 0 and got["server_maxrss_kb"] > 0
    for impl in ("runtime", "sdk"):
        got = results["stdio"][impl]
        assert got["failed"] == 0 and got["updates"] == 10 * chunks, (impl, got)
        assert got["agent_maxrss_kb"] > 0
    assert "### Many connections" in run.stdout
    assert "constructing a connection after the first (agent side)" in run.stdout


def test_the_remote_section_runs_alone_and_reports_both_implementations(
    tmp_path: Path,
) -> None:
    out = tmp_path / "results.json"
    run = _bench(out, "--only", "remote", "--remote", "60,12,1")
    results = json.loads(out.read_text())["remote"]
    assert (results["stream_n"], results["pings"], results["rounds"]) == (60, 12, 1)
    for mode in ("http1", "h2c", "ws"):
        for impl in ("runtime", "sdk"):
            got = results["modes"][mode][impl]
            assert "error" not in got, (mode, impl, got)
            assert got["chunks_per_s"] > 0 and got["round_trips_per_s"] > 0, (mode, impl, got)
            assert len(got["stream_seconds"]) == len(got["ping_seconds"]) == 1
            assert got["maxrss_kb"] > 0 and got["server_maxrss_kb"] > 0
            for side in ("client", "server"):
                for unit in ("round_trip", "chunk"):
                    assert got[f"{side}_cpu_us_per_{unit}"] >= 0, (mode, impl, side, unit)
            assert got["client_cpu_us_per_round_trip"] > 0, (mode, impl)
    assert "### Remote, one connection" in run.stdout
    assert "remote round trips, h2c, one connection, against the SDK 1.0.0rc3" in run.stdout


def test_the_mcp_section_runs_alone_and_times_each_way(tmp_path: Path) -> None:
    out = tmp_path / "results.json"
    run = _bench(out, "--only", "mcp", "--mcp", "20,1")
    results = json.loads(out.read_text())["mcp"]
    assert (results["calls"], results["rounds"]) == (20, 1)
    for way in ("caller_us", "client_us", "stdio_us"):
        got = results["ways"][way]
        assert "error" not in got, (way, got)
        assert got["us"] > 0 and len(got["runs"]) == 1, (way, got)
    assert "MCP tool call round trip (20 calls" in run.stdout
    assert "| mcp SDK 2.3.0 stdio transport, `mcp.Client` |" in run.stdout


def test_benchmarks_md_keeps_what_is_written_outside_the_markers(tmp_path: Path) -> None:
    path = tmp_path / "BENCHMARKS.md"
    path.write_text(
        f"# Benchmarks\n\nhand-written intro\n\n{report.BEGIN}\nold"
        f" table\n{report.END}\n\nhand-written notes\n"
    )
    results = {
        "meta": {
            "date": "today",
            "cpu": "cpu",
            "nproc": 2,
            "kernel": "k",
            "python": "3.11",
            "packages": {
                p: "1"
                for p in (
                    "msgspec",
                    "orjson",
                    "agent-client-protocol",
                    "pydantic",
                    "pydantic-core",
                    "datamodel-code-generator",
                    "jsonschema",
                )
            },
            "loadavg_start": [0.1],
            "loadavg_end": [0.2],
        },
        "elapsed_s": 1.0,
        "table": "| new table |",
        "targets": [],
    }
    report.write_benchmarks_md(path, results)
    text = path.read_text()
    assert "hand-written intro" in text and "hand-written notes" in text
    assert "| new table |" in text and "old table" not in text


def test_the_send_path_is_measured_per_update() -> None:
    """The `sendpath` section (issue 28: the cost of the strict check of what is sent)."""
    figures = send_path(QUICK)["ns_per_update"]
    assert set(figures) == {"struct", "wire", "helper"}
    assert all(t["median_ns"] > 0 and t["min_ns"] <= t["median_ns"] for t in figures.values())
