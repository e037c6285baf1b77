"""The stubs' checker-only carriers: every proxy names, for type checkers, every type of its package
(`_schema_types: SchemaTypes`) and every enum's wire values (`_schema_values: SchemaValues`), which
is how the runtime's friendly layer is typed by the package a connection speaks. They are written
for every def whatever its name (no def is special), exist for checkers only, and hold nothing at
run time."""

from __future__ import annotations

import ast
import enum
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ..support.tiny import document, package_from
from .conftest import SCHEMAS, package_name


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    found = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name]
    assert found, f"stubs.py has no class {name}"
    return found[0]


def _checker_only(cls: ast.ClassDef) -> dict[str, ast.expr]:
    """The annotations of the class's `if TYPE_CHECKING:` block, by name (nothing else in it)."""
    blocks = [
        n
        for n in cls.body
        if isinstance(n, ast.If) and isinstance(n.test, ast.Name) and n.test.id == "TYPE_CHECKING"
    ]
    assert len(blocks) == 1, f"{cls.name} has no single `if TYPE_CHECKING:` block"
    return {
        n.target.id: n.annotation
        for n in blocks[0].body
        if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name)
    }


def _literal_values(annotation: ast.expr) -> list[Any]:
    """The values of `list[_t.Literal[a, b, ...]]`."""
    assert isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) == "list"
    literal = annotation.slice
    assert isinstance(literal, ast.Subscript) and ast.unparse(literal.value) == "_t.Literal"
    items = literal.slice.elts if isinstance(literal.slice, ast.Tuple) else [literal.slice]
    return [ast.literal_eval(item) for item in items]


def _check_carriers(pkg: ModuleType) -> None:
    tree = ast.parse(Path(pkg.stubs.__file__).read_text(encoding="utf-8"))
    types = _checker_only(_class(tree, "SchemaTypes"))
    exported = set(pkg.types.__all__)
    assert set(types) == exported
    assert all(ast.unparse(types[name]) == f"t.{name}" for name in exported)
    enums = {
        name: getattr(pkg.types, name)
        for name in exported
        if isinstance(getattr(pkg.types, name), type)
        and issubclass(getattr(pkg.types, name), enum.Enum)
    }
    values = _checker_only(_class(tree, "SchemaValues"))
    assert set(values) == set(enums)
    for name, cls in enums.items():
        assert _literal_values(values[name]) == [m.value for m in cls], name
    for side in pkg.SIDES:
        proxy = _class(tree, f"{side.capitalize()}Proxy")
        carried = {k: ast.unparse(v) for k, v in _checker_only(proxy).items()}
        assert carried == {"_schema_types": "SchemaTypes", "_schema_values": "SchemaValues"}
        assert not hasattr(getattr(pkg, f"{side.capitalize()}Proxy"), "_schema_types")
    assert not hasattr(pkg.stubs.SchemaTypes, "SessionUpdate")  # checkers only: no value


@pytest.mark.parametrize("schema", SCHEMAS, ids=package_name)
def test_every_type_and_every_enum_is_carried_by_the_proxies(generate: Any, schema: Path) -> None:
    _check_carriers(generate(schema))


def test_defs_named_like_typing_names_are_carried_too(tmp_path: Path) -> None:
    """A def may be named `Literal` or `T`: the carriers spell typing's names (`_t.Literal`) and the
    package's types (`t.X`) by names no def name can take."""
    doc = document(
        {
            "Literal": {"type": "string", "enum": ["a", "b"]},
            "T": {"type": "object", "properties": {"kind": {"$ref": "#/$defs/Literal"}}},
        }
    )
    pkg = package_from(doc, tmp_path)
    _check_carriers(pkg)
    assert "Literal" in pkg.types.__all__
