"""Fixtures for the diff tests (the helpers are in helpers.py)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.diff.helpers import case


@pytest.fixture
def write_case(tmp_path: Path) -> Callable[[str], tuple[Path, Path]]:
    """Write a case's two schemas to files; returns (old path, new path)."""

    def write(name: str) -> tuple[Path, Path]:
        body = case(name)
        old, new = tmp_path / "old.json", tmp_path / "new.json"
        old.write_text(json.dumps(body["old"]))
        new.write_text(json.dumps(body["new"]))
        return old, new

    return write
