"""Measurements that need whole processes: import time, generation time, connections over a real
OS pipe, and peak memory.
"""

from __future__ import annotations

import json
import os
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


def child_env(workdir: Path) -> dict[str, str]:
    """The environment of every process the bench starts: bytecode cached under `workdir`.

    A fresh checkout (or PYTHONDONTWRITEBYTECODE, or a regenerated package) has no .pyc files, and
    compiling acp_schema from source costs more than importing it. Real installs have bytecode, so
    each timed command runs once untimed first, filling this private cache (for every module alike,
    stdlib included); nothing is written into the repository.
    """
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(workdir / "pycache")
    return env


IMPORTS = {
    "bare interpreter": "pass",
    "msgspec": "import msgspec",
    "acp_schema": "import acp_schema",
    "acp_schema + acp_runtime": "import acp_schema, acp_runtime",
    "acp (official SDK)": "import acp",
}


# ------------------------------------------------------------------------------------- imports


def import_times(repeats: int, env: dict[str, str]) -> dict[str, Any]:
    """Wall time of `python -c "import X"` in fresh processes (round-robin, median), in ns."""
    commands = {name: [PY, "-c", code] for name, code in IMPORTS.items()}
    timings = time_commands(commands, repeats, warmup=1, cwd=tempfile.gettempdir(), env=env)
    out: dict[str, Any] = {name: t.as_dict() for name, t in timings.items()}
    own = timings["acp_schema"].median_ns - timings["msgspec"].median_ns
    out["acp_schema own share"] = {"median_ns": own}
    out["own import"] = {
        name: _own_import(preloaded, module, repeats, env)
        for name, (preloaded, module) in OWN_IMPORTS.items()
    }
    out["importtime_top"] = _importtime_top("msgspec, acp_schema", env)
    return out


OWN_IMPORTS = {
    # what importing the package itself costs once its dependencies are loaded: msgspec for the
    # generated package; msgspec, asyncio and logging (which any asyncio program has) for the
    # runtime. Stdlib modules only the package pulls in are counted as its own.
    "acp_schema": ("msgspec", "acp_schema"),
    "acp_runtime": ("msgspec, asyncio, logging", "acp_runtime"),
}


def _own_import(preloaded: str, module: str, repeats: int, env: dict[str, str]) -> dict[str, Any]:
    """The cumulative `-X importtime` figure of `module` imported after `preloaded`, in fresh
    processes: median and min of `repeats` runs, in ns. Unlike the difference of two wall-clock
    medians, it leaves out interpreter start-up and its noise."""
    samples = [
        row["cumulative_us"] * 1000
        for _ in range(repeats)
        for row in _importtime(f"{preloaded}; import {module}", env)
        if row["module"] == module
    ]
    if len(samples) != repeats:
        raise RuntimeError(f"-X importtime did not report {module}: {samples}")
    return {
        "median_ns": statistics.median(samples),
        "min_ns": min(samples),
        "repeats": repeats,
        "after": preloaded,
    }


def _importtime_top(modules: str, env: dict[str, str], top: int = 8) -> list[dict[str, Any]]:
    """The modules with the largest self time under `python -X importtime -c "import modules"`."""
    return sorted(_importtime(modules, env), key=lambda r: -r["self_us"])[:top]


def _importtime(modules: str, env: dict[str, str]) -> list[dict[str, Any]]:
    """Each module's row of `python -X importtime -c "import modules"` in a fresh process."""
    argv = [PY, "-X", "importtime", "-c", f"import {modules}"]
    run = subprocess.run(
        argv, capture_output=True, text=True, env=env, cwd=tempfile.gettempdir(), check=True
    )
    rows: list[dict[str, Any]] = []
    for line in run.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cumulative_us, name = (
            part.strip() for part in line[len("import time:") :].split("|")
        )
        rows.append(
            {"module": name.strip(), "self_us": int(self_us), "cumulative_us": int(cumulative_us)}
        )
    return rows


# ---------------------------------------------------------------------------------- generation


def generation_times(
    repeats: int, workdir: Path, env: dict[str, str]
) -> tuple[dict[str, Any], Path]:
    """Wall time of `acpgen generate` and of datamodel-codegen on schema/schema.json (median, after
    one untimed run of each), and the path of the datamodel-codegen output (for the codecs)."""
    acpgen = Path(PY).with_name("acpgen")
    dcg = Path(PY).with_name("datamodel-codegen")
    from .codecs import DCG_ARGS

    dcg_out = workdir / "dcg_models.py"
    samples: dict[str, list[float]] = {"acpgen generate": [], "datamodel-codegen": []}
    for i in range(repeats + 1):
        out = workdir / f"acpgen-{i}"
        argv = [
            str(acpgen),
            "generate",
            str(SCHEMA_PATH),
            "--out",
            str(out),
            "--package",
            "acp_schema",
        ]
        ours = _wall(argv, env)
        argv = [str(dcg), "--input", str(SCHEMA_PATH), *DCG_ARGS, "--output", str(dcg_out)]
        theirs = _wall(argv, env)
        if i:  # the first run of each fills the bytecode cache
            samples["acpgen generate"].append(ours)
            samples["datamodel-codegen"].append(theirs)
    result = {
        name: {"median_s": statistics.median(s), "samples_s": s} for name, s in samples.items()
    }
    return result, dcg_out


def _wall(argv: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, cwd=ROOT, env=env)
    return time.perf_counter() - start


# ---------------------------------------------------------------------------------------- pipe

CLIENTS = {
    "acpgen": "runtime_client.py",
    "acpgen+session": "runtime_client.py",
    "acpgen (uvloop)": "runtime_client.py",
    "sdk": "sdk_client.py",
    "floor": "raw_client.py",
    "floor (asyncio)": "asyncio_client.py",
    "floor (uvloop)": "asyncio_client.py",
}
"""The pipe contenders. The three acpgen ones run the same client and agent: on asyncio's event
loop; with the client's `Session` fold attached (on asyncio's loop too); on uvloop (when it is
installed: the `fast` extra, which the `bench` extra includes). The floors: blocking pipes and
untyped msgspec (`floor`, the raw pipe), and the same with no framework on asyncio's loop and on
uvloop (what any peer on that loop reaches at best: a loop turn and a task per request)."""

CLIENT_ENV = {
    "acpgen": {"ACP_RUNTIME_LOOP": "asyncio"},
    "acpgen+session": {"ACP_RUNTIME_LOOP": "asyncio", "BENCH_SESSION": "1"},
    "acpgen (uvloop)": {"ACP_RUNTIME_LOOP": "uvloop"},
    "floor (asyncio)": {"BENCH_LOOP": "asyncio"},
    "floor (uvloop)": {"BENCH_LOOP": "uvloop"},
}
MEMORY_CLIENTS = ("acpgen", "sdk", "floor")
"""The clients of the huge-line memory measure."""


def runtime_ready(env: dict[str, str]) -> str | None:
    """None when acp_runtime can serve the pipe benchmark, else why not."""
    for path in ("runtime/protocol/connection.py", "examples/echo_agent.py"):
        if not (ROOT / path).exists():
            return f"{path} does not exist"
    check = subprocess.run(
        [
            PY,
            "-c",
            (
                "from acp_runtime import spawn_agent, run_agent, AgentSideConnection,"
                " ClientSideConnection"
            ),
        ],
        capture_output=True,
        text=True,
        env=env,
    )
    if check.returncode != 0:
        return f"acp_runtime does not import: {check.stderr.strip().splitlines()[-1:]}"
    return None


def uvloop_ready(env: dict[str, str]) -> bool:
    """Whether uvloop imports in the bench's interpreter."""
    check = subprocess.run([PY, "-c", "import uvloop"], capture_output=True, env=env)
    return check.returncode == 0


def placements(pin: bool) -> list[str]:
    """The CPU placements the pipe benchmark runs under: pinned (when two CPUs allow it) and not."""
    can_pin = hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2
    return ["pinned", "unpinned"] if pin and can_pin else ["unpinned"]


def _pin_env(base: dict[str, str], pin: bool) -> dict[str, str]:
    """Client on CPU 0, agent on CPU 1 (when there are two), for every contender alike."""
    env = dict(base)
    env.pop("BENCH_PIN", None)
    if pin and hasattr(os, "sched_setaffinity") and len(os.sched_getaffinity(0)) >= 2:
        cpus = sorted(os.sched_getaffinity(0))
        env["BENCH_PIN"] = f"{cpus[0]},{cpus[1]}"
    return env


def run_json(argv: list[str], timeout: float, env: dict[str, str]) -> dict[str, Any]:
    """Run a peer to its end; its last stdout line as JSON, or {"error": why}."""
    try:
        run = subprocess.run(
            argv,
            capture_output=True,
            text=True,
            timeout=timeout,
            cwd=tempfile.gettempdir(),
            env=env,
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if run.returncode != 0 or not run.stdout.strip():
        tail = (run.stderr.strip().splitlines() or ["no output"])[-1]
        return {"error": f"failed (exit {run.returncode}): {tail[:300]}"}
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def _run_client(name: str, args: list[int], timeout: float, env: dict[str, str]) -> dict[str, Any]:
    argv = [PY, str(PEERS / CLIENTS[name]), *map(str, args)]
    return run_json(argv, timeout, {**env, **CLIENT_ENV.get(name, {})})


def pipe_throughput(
    stream_n: int,
    pings: int,
    rounds: int,
    timeout: float,
    base_env: dict[str, str],
    pin: bool = True,
) -> dict[str, Any]:
    """Streaming and round-trip throughput of each client against its agent over real pipes.

    Each round starts every client once (round-robin, so a passing load hits all alike); each
    client warms up, then times one stream of `stream_n` notifications and `pings` round trips.
    The figures are medians over the rounds.
    """
    env = _pin_env(base_env, pin)
    not_ready = runtime_ready(env)
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in CLIENTS}
    errors: dict[str, str] = {}
    if not_ready:
        for name in CLIENTS:
            if name.startswith("acpgen"):
                errors[name] = f"not measured: runtime not ready ({not_ready})"
    if not uvloop_ready(env):
        errors["acpgen (uvloop)"] = errors["floor (uvloop)"] = (
            "not measured: uvloop is not installed"
        )
    for _ in range(rounds):
        for name in CLIENTS:
            if name in errors:
                continue
            report = _run_client(name, [stream_n, pings, 1], timeout, env)
            if "error" in report:
                errors[name] = report["error"]
                if name.startswith("acpgen"):
                    errors[name] = f"not measured: runtime not ready ({report['error']})"
            else:
                runs[name].append(report)
    out: dict[str, Any] = {"pinned_cpus": env.get("BENCH_PIN")}
    for name in CLIENTS:
        if name in errors:
            out[name] = {"error": errors[name]}
            continue
        stream_s = [r["stream_seconds"][0] for r in runs[name]]
        ping_s = [r["ping_seconds"][0] for r in runs[name]]
        out[name] = {
            "stream_n": stream_n,
            "pings": pings,
            "stream_seconds": stream_s,
            "ping_seconds": ping_s,
            "notifications_per_s": stream_n / statistics.median(stream_s),
            "round_trips_per_s": pings / statistics.median(ping_s),
            "maxrss_kb_before_stream": max(r["maxrss_kb_before_stream"] for r in runs[name]),
            "maxrss_kb_after_stream": max(r["maxrss_kb_after_stream"] for r in runs[name]),
        }
    return out


def huge_line_over_pipe(
    size: int, timeout: float, base_env: dict[str, str], pin: bool = True
) -> dict[str, Any]:
    """Peak RSS increase of each client receiving one agent_message_chunk of `size` characters."""
    env = _pin_env(base_env, pin)
    out: dict[str, Any] = {"chars": size}
    for name in MEMORY_CLIENTS:
        report = _run_client(name, [0, 0, 0, size], timeout, env)
        if "error" in report and name == "acpgen":
            report = {"error": f"not measured: runtime not ready ({report['error']})"}
        if "error" not in report:
            report["peak_increase_kb"] = report["maxrss_kb_after"] - report["maxrss_kb_before"]
        out[name] = report
    return out


# -------------------------------------------------------------------------------------- memory

DECODE_MEMORY = ("acpgen", "sdk", "msgspec", "orjson")


def decode_memory(size: int, workdir: Path, timeout: float, env: dict[str, str]) -> dict[str, Any]:
    """Peak RSS of decoding one `size`-byte session/prompt line, one fresh process per decoder."""
    path = workdir / "huge_line.json"
    data = huge_prompt(size)
    path.write_bytes(data)
    out: dict[str, Any] = {"bytes": len(data)}
    for name in DECODE_MEMORY:
        argv = [PY, str(PEERS / "decode_memory.py"), name, str(path)]
        try:
            run = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=env)
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
