"""Cross-check of `acp_schema` against an independent generator, datamodel-code-generator.

`datamodel-codegen` (0.89.0) runs once per module on `schema/schema.json` with
`--output-model-type msgspec.Struct`: the msgspec output works on this schema (it only warns that
some of *its own* unions are not decodable by msgspec without tagged unions, which does not matter
here: we only read its classes' fields, never decode with them), and it is directly comparable
with acp_schema's Structs through `msgspec.structs.fields` (`.required`, `.encode_name`), with no
pydantic alias/required translation in between.

Compared: the object defs of the schema (defs with `properties`, minus the `x-docs-ignore`
JSON-RPC envelopes), by the def's own name only (datamodel's extra, numbered classes for union
variants such as `CreateElicitationRequest13` are ignored). A def is compared field by field when
it is a plain Struct in both outputs; defs that are unions with their own properties (a
`properties` + `oneOf`/`anyOf` def) are aliases / union markers in both, and that is asserted too.
A def acp_schema gives its general form (a construct with no typed form, told on stderr when it is
generated, such as an object that keeps the keys it does not declare) is a `Checked` marker, never
a Struct: datamodel makes it a class, and that is the one difference allowed.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest

import acp_schema
from acp_schema._support import Checked

REPO = Path(__file__).resolve().parents[2]
SCHEMA_PATH = REPO / "schema" / "schema.json"
DEFS: dict = json.loads(SCHEMA_PATH.read_text())["$defs"]
OBJECT_DEFS = sorted(
    name
    for name, node in DEFS.items()
    if "properties" in node and node.get("x-docs-ignore") is not True
)

pytest.importorskip("datamodel_code_generator")


def _codegen_command() -> list[str]:
    exe = Path(sys.executable).with_name("datamodel-codegen")
    if exe.exists():
        return [str(exe)]
    found = shutil.which("datamodel-codegen")
    if found is None:
        pytest.skip("datamodel-codegen is not installed")
    return [found]


@pytest.fixture(scope="module")
def dm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    out = tmp_path_factory.mktemp("datamodel") / "dm.py"
    subprocess.run(
        [
            *_codegen_command(),
            "--input",
            str(SCHEMA_PATH),
            "--input-file-type",
            "jsonschema",
            "--output-model-type",
            "msgspec.Struct",
            "--output",
            str(out),
        ],
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
    )
    name = "_datamodel_acp_crosscheck"
    spec = importlib.util.spec_from_file_location(name, out)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # msgspec resolves the postponed annotations through sys.modules
    try:
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop(name, None)


def _is_struct(obj: Any) -> bool:
    return isinstance(obj, type) and issubclass(obj, msgspec.Struct)


def _required(cls: type) -> set[str]:
    return {f.encode_name for f in msgspec.structs.fields(cls) if f.required}


def _structs(module: Any) -> set[str]:
    return {name for name in OBJECT_DEFS if _is_struct(getattr(module, name, None))}


def _general(module: Any) -> set[str]:
    """The object defs `module` gives the general form (any JSON, checked against the schema)."""
    found = (getattr(module, name, None) for name in OBJECT_DEFS)
    return {t.__acp_name__ for t in found if isinstance(t, type) and issubclass(t, Checked)}


def test_same_object_defs_are_structs(dm: ModuleType) -> None:
    theirs, ours = _structs(dm) - _general(acp_schema.types), _structs(acp_schema.types)
    assert {"only datamodel": sorted(theirs - ours), "only acp_schema": sorted(ours - theirs)} == {
        "only datamodel": [],
        "only acp_schema": [],
    }
    assert len(ours) > 150  # the comparison below covers most of the schema


def test_object_defs_that_are_not_structs_are_unions_in_both(dm: ModuleType) -> None:
    """A def with properties that is no Struct is a union (oneOf/anyOf next to its properties)."""
    general = _general(acp_schema.types)
    for name in sorted(set(OBJECT_DEFS) - _structs(acp_schema.types) - general):
        node = DEFS[name]
        assert (
            "oneOf" in node or "anyOf" in node
        ), f"{name} has properties, no union, and is no Struct"
        assert hasattr(acp_schema.types, name) and hasattr(dm, name), name


def test_required_fields_agree(dm: ModuleType) -> None:
    common = sorted(_structs(dm) & _structs(acp_schema.types))
    disagreements = {}
    for name in common:
        ours, theirs = _required(getattr(acp_schema.types, name)), _required(getattr(dm, name))
        if ours != theirs:
            disagreements[name] = {
                "only acp_schema": sorted(ours - theirs),
                "only datamodel": sorted(theirs - ours),
            }
    assert disagreements == {}
