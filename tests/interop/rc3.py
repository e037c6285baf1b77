"""Where the official Python SDK 1.0.0rc3 runs: its own venv, .venv/acp-rc3 (the Makefile's
RC3_STAMP installs tests/interop/requirements-rc3.txt there), since the test extra's 0.12.1 has the
same import name `acp`. Its peers (rc3_agent.py, rc3_client.py) always run as processes of it."""

from __future__ import annotations

import sys
from pathlib import Path

from .scenario import HERE, require

PYTHON_RC3 = Path(sys.prefix) / "acp-rc3" / "bin" / "python"


def rc3_peer(script: str, *args: str) -> list[str]:
    """The command line running `script` (in tests/interop) under the rc3 SDK."""
    require(
        PYTHON_RC3.is_file() and (PYTHON_RC3.parents[1] / ".installed-stamp").is_file(),
        f"the official Python SDK 1.0.0rc3 in {PYTHON_RC3.parents[1]}",
    )
    return [str(PYTHON_RC3), str(HERE / script), *args]
