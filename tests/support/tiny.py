"""Tiny schemas for one construct each: generate, import, and compare with jsonschema.

package_from(defs, tmp_path, **doc) -> module     generate and import a package for inline defs
agrees(pkg, document, def_name, instance)          jsonschema and the package agree on one value
"""

from __future__ import annotations

import importlib
import itertools
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
from jsonschema import Draft202012Validator

from acpgen.build import build
from acpgen.pipeline import render
from acpgen.schema import parse
from acpgen.write import write_package

_counter = itertools.count()


def document(defs: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **top, "$defs": defs}


_made: dict[str, tuple[ModuleType, list[str]]] = {}


def package_from(doc: dict[str, Any], root: Path, warnings: list[str] | None = None) -> ModuleType:
    """The package generated from a schema document, imported under a fresh name (once per
    document and test session; black is left out, importing proves the text is Python)."""
    key = json.dumps(doc, sort_keys=True)
    if key not in _made:
        Draft202012Validator.check_schema(doc)
        name = f"tiny_{next(_counter)}"
        package = build(parse(key.encode(), f"{name}.json"))
        write_package(
            root / name, render(package, name), check_import=False
        )  # imported right below
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))
        importlib.invalidate_caches()
        _made[key] = importlib.import_module(name), [str(n) for n in package.notices]
    module, notices = _made[key]
    if warnings is not None:
        warnings.extend(notices)
    return module


def accepts(pkg: ModuleType, def_name: str, instance: Any) -> tuple[bool, Any]:
    try:
        return True, pkg.decode(json.dumps(instance).encode(), getattr(pkg.types, def_name))
    except msgspec.ValidationError as exc:
        return False, exc


def agrees(pkg: ModuleType, doc: dict[str, Any], def_name: str, instance: Any) -> None:
    """The package accepts exactly what jsonschema accepts, and re-encodes it unchanged."""
    validator = Draft202012Validator({**doc, "$ref": f"#/$defs/{def_name}"})
    valid = validator.is_valid(instance)
    ok, value = accepts(pkg, def_name, instance)
    assert ok == valid, (
        f"jsonschema says {'valid' if valid else 'invalid'}, the package"
        f" {'accepted' if ok else 'rejected'} {instance!r}: {value!r}"
    )
    if ok:
        again = json.loads(pkg.encode(value))
        assert again == instance, f"{instance!r} re-encodes as {again!r}"
