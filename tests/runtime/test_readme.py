"""The README's "Write an agent" and "Write a client" run exactly as shown."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).parents[2]


def section_code(heading: str) -> str:
    text = (ROOT / "README.md").read_text()
    match = re.search(rf"^## {heading}\n.*?```python\n(.*?)```", text, re.S | re.M)
    if match is None:
        raise AssertionError(f"README.md has no '## {heading}' section with a python block")
    return match.group(1)


def test_the_readme_agent_and_client_run_as_shown(tmp_path) -> None:
    (tmp_path / "agent.py").write_text(section_code("Write an agent"))
    (tmp_path / "client.py").write_text(section_code("Write a client"))
    result = subprocess.run(
        [sys.executable, "client.py"], cwd=tmp_path, capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == "HELLO\nend_turn\n"
