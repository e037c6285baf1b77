"""Every module of `codegen/`, `runtime/` and `examples/` says what it holds in a module docstring
that starts on its first line. Whether the words match the module is for review (issue 26 went
through every first line); that each module has them is checked here."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.docs.readme import ROOT

MODULES = sorted(
    path
    for folder in ("codegen", "runtime", "examples")
    for path in (ROOT / folder).rglob("*.py")
    if "__pycache__" not in path.parts
)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_says_what_it_holds(path: Path) -> None:
    doc = ast.get_docstring(ast.parse(path.read_text("utf-8")), clean=False)
    assert doc, f"{path.relative_to(ROOT)} has no module docstring"
    assert doc.splitlines()[0].strip(), f"{path.relative_to(ROOT)}: its docstring starts empty"
