"""The generator's pipeline in one place: load -> IR -> render -> format."""

from __future__ import annotations

from pathlib import Path

from .build import build
from .errors import SchemaError
from .fmt import format_files
from .render import render
from .schema import load


def generate_files(schema_path: Path, package: str) -> dict[str, str]:
    """Every file of the package for a schema, by relative path, ready to write."""
    try:
        return format_files(render(build(load(schema_path)), package))
    except RecursionError:
        raise SchemaError("", "the schema nests or refers to itself more deeply than the generator can follow") from None
