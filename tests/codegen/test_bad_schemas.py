"""Bad input always gets a clear error: random damage to a real schema never crashes the generator.

Each case deletes or replaces a few nodes of a real schema (deterministically, from a seed); the
generator must either generate or raise a SchemaError naming a JSON pointer, never anything else.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from acpgen.build import build
from acpgen.errors import SchemaError
from acpgen.pipeline import render
from acpgen.schema import parse

from .conftest import SCHEMAS

SCHEMA = next(s for s in SCHEMAS if s.stem == "v1-stable-2025-10-28")
LARGE = next(s for s in SCHEMAS if s.stem == "v2-unstable-2026-08-21")
REPLACEMENTS: list[Any] = [
    None,
    1,
    "x",
    [],
    {},
    True,
    {"type": "object"},
    {"$ref": "#/$defs/Nowhere"},
    [1, 2],
]


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, path + (key,))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, path + (i,))
    return out


def _damaged(schema: Any, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    document = json.loads(schema.read_text())
    for _ in range(rng.randint(1, 3)):
        paths = _paths(document["$defs"])[1:]
        path = ("$defs",) + rng.choice(paths)
        parent = document
        for key in path[:-1]:
            parent = parent[key]
        if rng.random() < 0.5:
            del parent[path[-1]]
        else:
            parent[path[-1]] = rng.choice(REPLACEMENTS)
    return document


CASES = [(SCHEMA, seed) for seed in range(300)] + [(LARGE, seed) for seed in range(40)]


@pytest.mark.parametrize(("schema", "seed"), CASES, ids=[f"{s.stem}-{n}" for s, n in CASES])
def test_a_damaged_schema_generates_or_gets_a_schema_error(schema: Any, seed: int) -> None:
    document = _damaged(schema, seed)
    try:
        render(build(parse(json.dumps(document).encode(), schema.name)), "pkg")
    except SchemaError as exc:
        assert exc.pointer.startswith("/") or exc.pointer == "", exc


@pytest.mark.parametrize("name", ["class", "None", "Foo-Bar", "_Private"])
def test_a_def_name_that_cannot_be_a_class_name_is_a_clear_error(name: str) -> None:
    document = json.loads(SCHEMA.read_text())
    document["$defs"][name] = {"type": "string"}
    with pytest.raises(SchemaError, match="cannot be a Python class name"):
        build(parse(json.dumps(document).encode(), SCHEMA.name))
