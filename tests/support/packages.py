"""Packages generated from the schema fixtures during the test run (once per session)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

from acpgen.pipeline import generate_files
from acpgen.write import write_package

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SCHEMAS = sorted((FIXTURES / "schemas").glob("*.json"))


def package_name(schema: Path) -> str:
    return "acp_" + schema.stem.replace("-", "_").replace(".", "_")


def generated_package(schema: Path, root: Path) -> ModuleType:
    """The package generated from `schema` into `root` (which is put on sys.path), imported."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    name = package_name(schema)
    if not (root / name).exists():
        write_package(
            root / name, generate_files(schema, name), check_import=False
        )  # imported below
    return importlib.import_module(name)
