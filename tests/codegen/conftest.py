"""Packages generated from every schema fixture, once per test session."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from acpgen.pipeline import generate_files
from acpgen.write import write_package

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SCHEMAS = sorted((FIXTURES / "schemas").glob("*.json"))
REPO = Path(__file__).resolve().parents[2]


def package_name(schema: Path) -> str:
    return "acp_" + schema.stem.replace("-", "_")


@pytest.fixture(scope="session")
def generated_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("generated")
    sys.path.insert(0, str(root))
    return root


def _generate(root: Path, schema: Path) -> ModuleType:
    name = package_name(schema)
    if not (root / name).exists():
        write_package(root / name, generate_files(schema, name))
    return importlib.import_module(name)


@pytest.fixture(scope="session")
def generate(generated_root: Path) -> Any:
    """generate(schema_path) -> the imported package generated from it."""
    return lambda schema: _generate(generated_root, schema)


def load_schema(schema: Path) -> dict[str, Any]:
    return json.loads(schema.read_text())
