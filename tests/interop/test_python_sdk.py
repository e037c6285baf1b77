"""Interop with the official Python SDK (PyPI agent-client-protocol, pinned), both directions,
over real pipes. That SDK has no `$/cancel_request`, so its runs skip that step."""

from __future__ import annotations

import importlib.util
import json
import subprocess

from .scenario import HERE, PYTHON, expected, require, run_scenario


def python_sdk() -> None:
    require(importlib.util.find_spec("acp") is not None, "PyPI package agent-client-protocol")


async def test_our_client_drives_the_python_sdk_agent(tmp_path) -> None:
    python_sdk()
    path = str(tmp_path / "file.txt")
    report = await run_scenario([PYTHON, str(HERE / "py_sdk_agent.py")], path, cancel_request=False)
    assert report == expected("python-sdk-interop-agent", path, cancel_request=False)


def test_the_python_sdk_client_drives_our_agent(tmp_path) -> None:
    python_sdk()
    path = str(tmp_path / "file.txt")
    command = [PYTHON, str(HERE / "py_sdk_client.py"), path, PYTHON, str(HERE / "runtime_agent.py")]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == expected(
        "acp-runtime-interop-agent", path, cancel_request=False
    )


async def test_our_client_drives_our_agent(tmp_path) -> None:
    path = str(tmp_path / "file.txt")
    report = await run_scenario([PYTHON, str(HERE / "runtime_agent.py")], path)
    assert report == expected("acp-runtime-interop-agent", path)
