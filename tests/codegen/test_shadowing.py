"""Issue 40 item 3: no generated name shadows a name the generated code uses.

A def named `str` used to become every string field's type (`{"text": "hello"}` was refused); a
field named `int` made the package fail to import (exit 3). Now such a def or field takes a
trailing `_`, and `acpgen diff` flags the def.
"""

from __future__ import annotations

import builtins
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from acpgen.cli import main
from acpgen.diff.cli import main as diff_main
from acpgen.shadow import def_name, used

NAMES = ("str", "int", "float", "bool", "list", "dict", "annotations", "Exception")
SCHEMA: dict[str, Any] = {
    "$defs": {
        **{name: {"type": "string", "enum": [f"only-{name}"]} for name in NAMES},
        "Thing": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "flag": {"type": "boolean"},
                "items": {"type": "array", "items": {"type": "string"}},
                "table": {"type": "object", "additionalProperties": {"type": "integer"}},
                "kind": {"$ref": "#/$defs/str"},
                **{name: {"type": "string"} for name in ("int", "str", "list", "float", "bool")},
            },
            "required": ["text", "count"],
        },
    }
}


def _generate(tmp_path: Path, schema: dict[str, Any], package: str) -> Any:
    path = tmp_path / "schema.json"
    path.write_text(json.dumps(schema))
    assert main(["generate", str(path), "--out", str(tmp_path), "--package", package]) == 0
    sys.path.insert(0, str(tmp_path))
    try:
        return importlib.import_module(package)
    finally:
        sys.path.remove(str(tmp_path))


def test_defs_and_fields_named_like_builtins_change_no_other_type(tmp_path: Path) -> None:
    pkg = _generate(tmp_path, SCHEMA, "shadowing_pkg")
    data = {
        "text": "hello",
        "count": 3,
        "ratio": 0.5,
        "flag": True,
        "items": ["a"],
        "table": {"k": 1},
        "kind": "only-str",
        "int": "i",
        "str": "s",
        "list": "l",
        "float": "f",
        "bool": "b",
    }
    thing = pkg.decode(json.dumps(data), pkg.types.Thing)
    assert (thing.text, thing.count, thing.int_, thing.float_) == ("hello", 3, "i", "f")
    assert thing.str__ == "s"  # `str_` is the def `str`, which the field `kind` refers to
    assert thing.list == "l"  # nothing in the Struct's annotations says `list`: it stays
    assert json.loads(pkg.encode(thing)) == data
    assert thing.kind is pkg.types.str_.ONLY_STR
    for name in NAMES:
        assert def_name(name) == name + "_"
        assert getattr(pkg.types, name + "_").__name__ == name + "_"
        assert name not in pkg.types.__all__


def test_the_names_kept_free_are_read_from_the_generated_modules() -> None:
    assert set(dir(builtins)) <= used("types.py")
    assert {"_t", "_m", "_s"} <= used("types.py")  # typing, msgspec and the helpers, as imported
    assert "RpcError" in used("errors.py")
    assert def_name("Thing") == "Thing" and def_name("Any") == "Any"  # types.py says _t.Any


def test_diff_flags_a_def_that_would_shadow(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"$defs": {"Thing": SCHEMA["$defs"]["Thing"] | {"properties": {}}}}))
    new = tmp_path / "new.json"
    new.write_text(json.dumps(SCHEMA))
    diff_main([str(old), str(new), "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    flagged = {c["subject"] for c in report["changes"] if c["rule"] == "type-shadows"}
    assert flagged == set(NAMES)
