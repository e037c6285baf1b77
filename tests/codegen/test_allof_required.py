"""A property declared by two members of an allOf is required when either member requires it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..support.tiny import accepts, agrees, document, package_from

STR = {"type": "string"}
DOC = document(
    {
        "Base": {"type": "object", "properties": {"name": STR, "note": STR}},
        "Named": {
            "allOf": [
                {"$ref": "#/$defs/Base"},
                {"type": "object", "properties": {"name": STR}, "required": ["name"]},
            ]
        },
        "RequiredOnly": {"allOf": [{"$ref": "#/$defs/Base"}, {"required": ["name"]}]},
        "NamedFirst": {
            "allOf": [
                {"type": "object", "properties": {"name": STR}, "required": ["name"]},
                {"$ref": "#/$defs/Base"},
            ]
        },
    }
)


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("allof-required")


@pytest.mark.parametrize("def_name", ["Named", "RequiredOnly", "NamedFirst"])
def test_a_property_required_by_one_allof_member_is_required(root: Path, def_name: str) -> None:
    pkg = package_from(DOC, root)
    ok, error = accepts(pkg, def_name, {"note": "n"})
    assert not ok, f"{def_name} accepted a value without its required `name`: {error!r}"
    assert "name" in str(error)


@pytest.mark.parametrize("def_name", ["Named", "RequiredOnly", "NamedFirst"])
@pytest.mark.parametrize(
    "instance", [{"name": "a"}, {"name": "a", "note": "b"}, {"note": "b"}, {}, {"name": 1}]
)
def test_allof_required_agrees_with_jsonschema(root: Path, def_name: str, instance: Any) -> None:
    agrees(package_from(DOC, root), DOC, def_name, instance)
