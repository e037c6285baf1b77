"""Packages generated from every schema fixture, once per test session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..support.packages import FIXTURES, SCHEMAS, generated_package, package_name

REPO = Path(__file__).resolve().parents[2]
__all__ = ["FIXTURES", "SCHEMAS", "REPO", "package_name", "load_schema"]


@pytest.fixture(scope="session")
def generated_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("generated")


@pytest.fixture(scope="session")
def generate(generated_root: Path) -> Any:
    """generate(schema_path) -> the imported package generated from it."""
    return lambda schema: generated_package(schema, generated_root)


def load_schema(schema: Path) -> dict[str, Any]:
    return json.loads(schema.read_text())
