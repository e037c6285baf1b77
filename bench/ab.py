"""Streaming A/B of commits: the pipe bench's acpgen agent (`peers/runtime_agent.py`, on asyncio's
loop) run from each commit's own tree against one client (`peers/cpu_client.py`, of this tree, on
the commit's `acp_runtime`), in turn, round after round, so a load passing on a shared machine hits
every contender alike. Medians and spread of the rate, and of the CPU time per update each process
spent (what a load does not change: the figure to trust on a busy machine).

    python -m bench.ab ROUNDS STREAM_N NAME=COMMIT [NAME=COMMIT ...]

COMMIT is anything `git archive` takes, or `WORKTREE` for the files of the working tree as they
are. Each tree is unpacked under $TMPDIR/acpgen-ab/NAME (runtime/, generated/, bench/) and imported
from there (`acp_runtime`, `acp_schema` linked in, ahead of the installed ones); both processes
run pinned to one CPU (`taskset -c CPU`, the last one this process may use), where the rate is
the sum of both sides' work per update. Each run times STREAM_N notifications three times and
keeps the medians; the first NAME is the baseline of the percentages.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TREES = Path(tempfile.gettempdir()) / "acpgen-ab"
LINKS = {
    "acp_runtime": "runtime",
    "acp_schema": "generated/acp_schema",
    "acp_schema_v2": "generated/acp_schema_v2",
}
PARTS = ("runtime", "generated", "bench")


def unpack(name: str, commit: str) -> Path:
    """The tree of `commit` (or of the working tree) under TREES/name, with its import links."""
    root = TREES / name
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    if commit == "WORKTREE":
        files = subprocess.run(
            ["git", "ls-files", "-co", "--exclude-standard", *PARTS],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        for file in files:
            if (ROOT / file).is_file():
                (root / file).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / file, root / file)
    else:
        archive = subprocess.run(
            ["git", "archive", commit, *PARTS], cwd=ROOT, capture_output=True, check=True
        ).stdout
        subprocess.run(["tar", "x", "-C", str(root)], input=archive, check=True)
    links = root / "pkgs"
    links.mkdir()
    for link, target in LINKS.items():
        (links / link).symlink_to(root / target)
    return root


FIGURES = ("rate", "agent_us", "client_us", "both_us")
"""Per run: notifications/s; CPU µs per update of the agent, of the client, of both."""


def stream_run(root: Path, stream_n: int, cpu: int) -> dict[str, float]:
    """One client run against the agent of `root`: `FIGURES` (medians of its three streams)."""
    env = {k: v for k, v in os.environ.items() if k not in ("BENCH_PIN", "PYTHONPATH")}
    env.update(PYTHONPATH=str(root / "pkgs"), ACP_RUNTIME_LOOP="asyncio")
    agent = root / "bench" / "peers" / "runtime_agent.py"
    client = ROOT / "bench" / "peers" / "cpu_client.py"
    argv = [sys.executable, str(client), str(agent), str(stream_n), "3"]
    run = subprocess.run(
        ["taskset", "-c", str(cpu), *argv],
        capture_output=True,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
        timeout=600,
    )
    if run.returncode != 0:
        raise SystemExit(f"{root.name}: the client failed: {run.stderr.strip()[-2000:]}")
    runs = json.loads(run.stdout.strip().splitlines()[-1])["runs"]

    def median_us(key: str) -> float:
        return statistics.median(r[key] for r in runs) / stream_n * 1e6

    return {
        "rate": stream_n / statistics.median(r["wall_s"] for r in runs),
        "agent_us": median_us("agent_cpu_s"),
        "client_us": median_us("client_cpu_s"),
        "both_us": statistics.median(r["agent_cpu_s"] + r["client_cpu_s"] for r in runs)
        / stream_n
        * 1e6,
    }


def imported_from(root: Path) -> str:
    """Where the tree's `acp_runtime` is imported from (it must be the tree's own)."""
    env = {**os.environ, "PYTHONPATH": str(root / "pkgs")}
    code = "import acp_runtime, acp_schema; print(acp_runtime.__file__)"
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    )
    return run.stdout.strip()


def main(argv: list[str]) -> None:
    if len(argv) < 3 or not all("=" in a for a in argv[2:]):
        raise SystemExit(__doc__)
    rounds, stream_n = int(argv[0]), int(argv[1])
    cpu = max(os.sched_getaffinity(0))
    trees: dict[str, Path] = {}
    for arg in argv[2:]:
        name, commit = arg.split("=", 1)
        trees[name] = unpack(name, commit)
        where = imported_from(trees[name])
        if not where.startswith(str(trees[name])):
            raise SystemExit(f"{name}: acp_runtime comes from {where}, not from its tree")
        print(f"{name} = {commit}", flush=True)
    found: dict[str, dict[str, list[float]]] = {n: {f: [] for f in FIGURES} for n in trees}
    for i in range(rounds):
        order = list(trees) if i % 2 == 0 else list(reversed(trees))  # no one always goes first
        for name in order:
            for figure, value in stream_run(trees[name], stream_n, cpu).items():
                found[name][figure].append(value)
        print(
            f"round {i + 1}: "
            + ", ".join(
                f"{n} {f['rate'][-1]:,.0f}/s {f['both_us'][-1]:.2f} µs" for n, f in found.items()
            ),
            flush=True,
        )
    print(
        f"load average {os.getloadavg()[0]:.2f}; {rounds} rounds of {stream_n} updates, CPU {cpu}"
    )
    base = {f: statistics.median(v) for f, v in next(iter(found.values())).items()}
    for figure, unit in zip(FIGURES, ("notifications/s", *["CPU µs per update"] * 3), strict=True):
        print(f"{figure} ({unit}):")
        for name, figures in found.items():
            values = figures[figure]
            median = statistics.median(values)
            print(
                f"  {name}: median {median:,.2f} ({(median / base[figure] - 1) * 100:+.1f}%), "
                f"min {min(values):,.2f}, max {max(values):,.2f}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
