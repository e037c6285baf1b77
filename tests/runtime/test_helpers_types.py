"""The examples, the README's agent and client, and the session and helper modules type-check
under mypy --strict."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from .test_readme import section_code

ROOT = Path(__file__).parents[2]


def test_the_examples_the_readme_code_and_the_session_and_helper_modules_type_check_strictly(
    tmp_path: Path,
) -> None:
    (tmp_path / "acp_schema").symlink_to(ROOT / "generated" / "acp_schema")
    (tmp_path / "acp_runtime").symlink_to(ROOT / "runtime")
    examples = sorted(p.name for p in (ROOT / "examples").glob("*.py"))
    for name in examples:
        shutil.copy(ROOT / "examples" / name, tmp_path / name)
    (tmp_path / "readme_agent.py").write_text(section_code("Write an agent"))
    (tmp_path / "readme_client.py").write_text(section_code("Write a client"))
    examples += ["readme_agent.py", "readme_client.py"]
    command = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--follow-imports=silent",  # other runtime modules have their own checks
        "--no-incremental",
        "--cache-dir",
        str(tmp_path / ".mypy"),
    ]
    files = ["acp_runtime/session.py", "acp_runtime/helpers.py", *examples]
    result = subprocess.run([*command, *files], cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-4000:]
