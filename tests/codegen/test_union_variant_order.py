"""Which variant of an untagged union a value decodes to: the one that declares the most of its
keys, and among equals the first branch the schema lists. A value that fits two variants never
loses a field to the other one."""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import pytest

from ..support.tiny import document, package_from

STR = {"type": "string"}


def _doc(order: list[str], key: str) -> dict[str, Any]:
    return document(
        {
            "Sized": {
                "type": "object",
                "properties": {"name": STR, "size": {"type": "integer"}},
                "required": ["name"],
            },
            "Coloured": {
                "type": "object",
                "properties": {"name": STR, "colour": STR, "shade": STR},
                "required": ["name"],
            },
            "Thing": {key: [{"$ref": f"#/$defs/{name}"} for name in order]},
            "Box": {
                "type": "object",
                "properties": {"thing": {"$ref": "#/$defs/Thing"}},
                "required": ["thing"],
            },
        }
    )


@pytest.fixture(scope="module")
def packages(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, ...], ModuleType]:
    root = tmp_path_factory.mktemp("union-order")
    return {
        (key, *order): package_from(_doc(order, key), root)
        for key in ("anyOf",)
        for order in (["Sized", "Coloured"], ["Coloured", "Sized"])
    }


CASES = [
    ({"name": "n", "size": 3}, "Sized"),
    ({"name": "n", "colour": "red"}, "Coloured"),
    ({"name": "n", "colour": "red", "shade": "dark"}, "Coloured"),
]


@pytest.mark.parametrize("order", [("Sized", "Coloured"), ("Coloured", "Sized")])
@pytest.mark.parametrize(("instance", "variant"), CASES)
def test_the_variant_declaring_most_of_the_keys_wins_and_keeps_them(
    packages: dict[tuple[str, ...], ModuleType],
    order: tuple[str, ...],
    instance: dict[str, Any],
    variant: str,
) -> None:
    pkg = packages[("anyOf", *order)]
    box = pkg.decode(json.dumps({"thing": instance}).encode(), pkg.types.Box)
    assert type(box.thing).__name__ == variant, f"{instance} decoded as {box.thing!r}"
    assert json.loads(pkg.encode(box)) == {"thing": instance}, "a field of the message was dropped"


@pytest.mark.parametrize("order", [("Sized", "Coloured"), ("Coloured", "Sized")])
def test_a_value_both_variants_take_equally_decodes_to_the_first_listed(
    packages: dict[tuple[str, ...], ModuleType], order: tuple[str, ...]
) -> None:
    pkg = packages[("anyOf", *order)]
    for lenient in (False, True):
        thing = pkg.decode(b'{"name": "n"}', pkg.types.Thing, lenient=lenient)
        assert type(thing).__name__ == order[0], f"the schema lists {order}, got {thing!r}"
