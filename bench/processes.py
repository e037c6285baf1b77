"""Measurements that need whole processes: import time, generation time, connections over a real
OS pipe, and peak memory.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .corpus import ROOT, SCHEMA_PATH, huge_prompt
from .harness import time_commands

PEERS = Path(__file__).resolve().parent / "peers"
PY = sys.executable

IMPORTS = {
    "bare interpreter": "pass",
    "msgspec": "import msgspec",
    "acp_schema": "import acp_schema",
    "acp_schema + acp_runtime": "import acp_schema, acp_runtime",
    "acp (official SDK)": "import acp",
}


# ------------------------------------------------------------------------------------- imports


def import_times(repeats: int) -> dict[str, Any]:
    """Wall time of `python -c "import X"` in fresh processes (round-robin, median), in ns."""
    commands = {name: [PY, "-c", code] for name, code in IMPORTS.items()}
    timings = time_commands(commands, repeats, warmup=1, cwd=tempfile.gettempdir())
    out: dict[str, Any] = {name: t.as_dict() for name, t in timings.items()}
    own = timings["acp_schema"].median_ns - timings["msgspec"].median_ns
    out["acp_schema own share"] = {"median_ns": own}
    out["importtime_top"] = _importtime_top("acp_schema")
    return out


def _importtime_top(module: str, top: int = 8) -> list[dict[str, Any]]:
    """The modules with the largest self time under `python -X importtime -c "import module"`."""
    run = subprocess.run([PY, "-X", "importtime", "-c", f"import {module}"], capture_output=True, text=True)
    rows = []
    for line in run.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative_us, name = (part.strip() for part in line[len("import time:") :].split("|"))
        rows.append({"module": name.strip(), "self_us": int(self_us), "cumulative_us": int(cumulative_us)})
    return sorted(rows, key=lambda r: -r["self_us"])[:top]


# ---------------------------------------------------------------------------------- generation


def generation_times(repeats: int, workdir: Path) -> tuple[dict[str, Any], Path]:
    """Wall time of `acpgen generate` and of datamodel-codegen on schema/schema.json (median), and
    the path of the datamodel-codegen output (for the codec benchmark)."""
    acpgen = Path(PY).with_name("acpgen")
    dcg = Path(PY).with_name("datamodel-codegen")
    from .codecs import DCG_ARGS

    dcg_out = workdir / "dcg_models.py"
    samples: dict[str, list[float]] = {"acpgen generate": [], "datamodel-codegen": []}
    for i in range(repeats):
        out = workdir / f"acpgen-{i}"
        argv = [str(acpgen), "generate", str(SCHEMA_PATH), "--out", str(out), "--package", "acp_schema"]
        samples["acpgen generate"].append(_wall(argv))
        argv = [str(dcg), "--input", str(SCHEMA_PATH), *DCG_ARGS, "--output", str(dcg_out)]
        samples["datamodel-codegen"].append(_wall(argv))
    result = {name: {"median_s": statistics.median(s), "samples_s": s} for name, s in samples.items()}
    return result, dcg_out


def _wall(argv: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, cwd=ROOT)
    return time.perf_counter() - start


# ---------------------------------------------------------------------------------------- pipe

CLIENTS = {
    "acpgen": "runtime_client.py",
    "sdk": "sdk_client.py",
    "floor": "raw_client.py",
}


def runtime_ready() -> str | None:
    """None when acp_runtime can serve the pipe benchmark, else why not."""
    for path in ("runtime/connection.py", "examples/echo_agent.py"):
        if not (ROOT / path).exists():
            return f"{path} does not exist"
    check = subprocess.run(
        [PY, "-c", "from acp_runtime import spawn_agent, run_agent, AgentSideConnection, ClientSideConnection"],
        capture_output=True,
        text=True,
    )
    if check.returncode != 0:
        return f"acp_runtime does not import: {check.stderr.strip().splitlines()[-1:]}"
    return None


def pipe_throughput(stream_n: int, pings: int, repeats: int, timeout: float) -> dict[str, Any]:
    """Each client process spawns its agent and reports; throughput is the median over its runs."""
    out: dict[str, Any] = {}
    not_ready = runtime_ready()
    for name, script in CLIENTS.items():
        if name == "acpgen" and not_ready:
            out[name] = {"error": f"not measured: runtime not ready ({not_ready})"}
            continue
        argv = [PY, str(PEERS / script), str(stream_n), str(pings), str(repeats)]
        try:
            run = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=tempfile.gettempdir())
        except subprocess.TimeoutExpired:
            out[name] = {"error": f"timed out after {timeout:.0f} s"}
            continue
        if run.returncode != 0 or not run.stdout.strip():
            tail = (run.stderr.strip().splitlines() or ["no output"])[-1]
            reason = f"failed (exit {run.returncode}): {tail}"
            out[name] = {"error": f"not measured: runtime not ready ({reason})" if name == "acpgen" else reason}
            continue
        report = json.loads(run.stdout.strip().splitlines()[-1])
        stream_s = statistics.median(report["stream_seconds"])
        ping_s = statistics.median(report["ping_seconds"])
        report["notifications_per_s"] = report["stream_n"] / stream_s
        report["round_trips_per_s"] = report["pings"] / ping_s
        out[name] = report
    return out


# -------------------------------------------------------------------------------------- memory

DECODE_MEMORY = ("acpgen", "sdk", "msgspec", "orjson")


def decode_memory(size: int, workdir: Path, timeout: float) -> dict[str, Any]:
    """Peak RSS of decoding one `size`-byte session/prompt line, one fresh process per decoder."""
    path = workdir / "huge_line.json"
    data = huge_prompt(size)
    path.write_bytes(data)
    out: dict[str, Any] = {"bytes": len(data)}
    for name in DECODE_MEMORY:
        argv = [PY, str(PEERS / "decode_memory.py"), name, str(path)]
        try:
            run = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            out[name] = {"error": f"timed out after {timeout:.0f} s"}
            continue
        if run.returncode != 0:
            out[name] = {"error": (run.stderr.strip().splitlines() or ["failed"])[-1]}
            continue
        report = json.loads(run.stdout)
        report["peak_increase_kb"] = report["maxrss_kb_after"] - report["maxrss_kb_before"]
        out[name] = report
    path.unlink()
    return out
