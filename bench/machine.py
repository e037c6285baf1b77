"""What the figures were measured on: CPU, cores, load, Python and library versions."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from importlib import metadata
from typing import Any

PACKAGES = (
    "acpgen",
    "msgspec",
    "orjson",
    "agent-client-protocol",
    "pydantic",
    "pydantic-core",
    "datamodel-code-generator",
    "jsonschema",
)


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def nproc() -> int:
    try:
        return int(subprocess.run(["nproc"], capture_output=True, text=True, check=True).stdout)
    except (OSError, ValueError, subprocess.CalledProcessError):
        return os.cpu_count() or 0


def loadavg() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def versions() -> dict[str, str]:
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def git_state(root: str) -> dict[str, Any]:
    """The commit measured, and the tracked files (outside the bench's own) that differ from it."""

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, check=True
        ).stdout

    try:
        commit = git("rev-parse", "--short", "HEAD").strip()
        changed = [
            line[3:]
            for line in git("status", "--porcelain").splitlines()
            if not line.startswith("??")
        ]
    except (OSError, subprocess.CalledProcessError):
        return {}
    own = ("bench/", "BENCHMARKS.md", "tests/test_bench_smoke.py")
    return {"commit": commit, "uncommitted": [p for p in changed if not p.startswith(own)]}


def describe() -> dict[str, Any]:
    return {
        "cpu": cpu_model(),
        "nproc": nproc(),
        "kernel": platform.release(),
        "python": sys.version.split()[0],
        "python_implementation": platform.python_implementation(),
        "packages": versions(),
        "loadavg_start": loadavg(),
    }


def summary_line(info: dict[str, Any]) -> str:
    p = info["packages"]
    return (
        f"{info['cpu']}, nproc {info['nproc']}, Linux {info['kernel']}; Python {info['python']};"
        f" msgspec {p['msgspec']}, orjson {p['orjson']}, agent-client-protocol"
        f" {p['agent-client-protocol']} (pydantic {p['pydantic']}, pydantic-core"
        f" {p['pydantic-core']}), datamodel-code-generator {p['datamodel-code-generator']},"
        f" jsonschema {p['jsonschema']}"
    )
