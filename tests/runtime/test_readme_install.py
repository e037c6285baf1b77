"""The README's install lines work as printed: from a clone, and from the wheel they build."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]
SKIP = {
    ".git",
    ".venv",
    "dist",
    "build",
    ".generated",
    "__pycache__",
    ".mypy_cache",
    ".pytest_cache",
}


def install_blocks() -> list[list[str]]:
    text = (ROOT / "README.md").read_text()
    section = re.search(r"^## Install\n(.*?)^## ", text, re.S | re.M)
    assert section is not None, "README.md has no '## Install' section"
    blocks = re.findall(r"```sh\n(.*?)```", section.group(1), re.S)
    return [[line for line in block.splitlines() if line.strip()] for block in blocks]


def run(line: str, cwd: Path, env: dict[str, str] | None = None) -> None:
    result = subprocess.run(
        line, shell=True, cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode == 0, f"{line!r} failed:\n{result.stdout}\n{result.stderr}"


def test_the_install_lines_work_from_a_clone_and_from_the_built_wheel(tmp_path: Path) -> None:
    clone = tmp_path / "acpgen"
    shutil.copytree(
        ROOT,
        clone,
        ignore=lambda d, names: [n for n in names if n in SKIP or n.endswith(".egg-info")],
    )
    from_clone, from_wheel = install_blocks()
    for line in from_clone:
        run(line, clone)
    version = subprocess.run(
        [clone / ".venv/bin/acpgen", "--version"], capture_output=True, text=True
    )
    assert version.returncode == 0 and version.stdout.startswith("acpgen "), version
    project = tmp_path / "project"
    subprocess.run([sys.executable, "-m", "venv", project], check=True)
    env = {**os.environ, "PATH": f"{project / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONPATH", None)
    run(from_wheel[0], clone)
    for line in from_wheel[1:]:
        run(line, clone, env)  # `pip` is the other project's
    check = (
        "import acp_runtime, acp_schema, importlib.metadata as m; print(acp_runtime.__file__); "
        "print(m.metadata('acpgen').get_all('Provides-Extra'))"
    )
    where = subprocess.run(
        [project / "bin/python", "-c", check], cwd=tmp_path, capture_output=True, text=True
    )
    assert where.returncode == 0 and str(project) in where.stdout, where
    assert "'codegen'" in where.stdout  # the extra the README names for the generator
