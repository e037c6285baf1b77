"""The generator's pipeline in one place: load -> IR -> render -> format.

`read` is the one way a schema file becomes IR; `diff` reads schemas through the same `build`.
"""

from __future__ import annotations

from pathlib import Path

from .build import build
from .errors import SchemaError
from .fmt import format_files
from .ir import Package
from .render import render
from .schema import load


def read(schema_path: str | Path) -> Package:
    """The IR of a schema file; SchemaError naming what is wrong when it is not one."""
    try:
        return build(load(schema_path))
    except RecursionError:
        raise SchemaError(
            "", "the schema nests or refers to itself more deeply than the generator can follow"
        ) from None


def files_of(package: Package, name: str) -> dict[str, str]:
    """Every file of the generated package, by relative path, ready to write."""
    return format_files(render(package, name))


def generate_files(schema_path: str | Path, package: str) -> dict[str, str]:
    """Every file of the package for a schema, by relative path, ready to write."""
    return files_of(read(schema_path), package)
