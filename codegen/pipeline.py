"""The generator's pipeline in one place: load -> IR -> render -> format.

`read` is the one way a schema file becomes IR; `diff` reads schemas through the same `build`.
"""

from __future__ import annotations

from pathlib import Path

from .build import build
from .errors import SchemaError
from .fmt import format_files
from .ir import ObjectDef, Package
from .render import field_sources, render_templates
from .schema import load
from .shadow import names_in, rename_defs, rename_fields


def read(schema_path: str | Path) -> Package:
    """The IR of a schema file; SchemaError naming what is wrong when it is not one."""
    try:
        return build(load(schema_path))
    except RecursionError:
        raise SchemaError(
            "", "the schema nests or refers to itself more deeply than the generator can follow"
        ) from None


def render(pkg: Package, package_name: str) -> dict[str, str]:
    """Every file of the package, by relative path, as unformatted text; no name of the schema
    shadows one the generated code uses (see `shadow.py`)."""
    pkg = rename_defs(pkg)
    sources = field_sources(pkg)

    def referenced(d: ObjectDef) -> set[str]:
        return set().union(*(names_in(text) for text in sources(d)))

    return render_templates(rename_fields(pkg, referenced), package_name)


def files_of(package: Package, name: str) -> dict[str, str]:
    """Every file of the generated package, by relative path, ready to write."""
    return format_files(render(package, name))


def generate_files(schema_path: str | Path, package: str) -> dict[str, str]:
    """Every file of the package for a schema, by relative path, ready to write."""
    return files_of(read(schema_path), package)
