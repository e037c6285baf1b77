"""An unknown value of an open set comes back exactly as it came: case, odd characters and length
kept, alone, inside an object (strict and lenient) and in a list, in every committed package."""

from __future__ import annotations

import inspect
import json
from types import ModuleType
from typing import Any

import pytest

import acp_schema
import acp_schema_v2

from ..support.tiny import document, package_from

UNKNOWN = [
    "Quantum-X",
    "QUANTUM",
    "mIxEd_CaSe.Value",
    "Ünïcödé-Straße",
    "ǅ-title-case",
    "emoji 🚀 value",
    'quote " and \\ backslash',
    "tab\tnew\nline",
    "nul\u0000and\u001fcontrols",
    "\u2028line separator\u2029",
    " padded ",
    "K" * 255,
    "Aa" * 4097,
    "Zz-" * 70000,
]


def _open_string_sets(pkg: ModuleType) -> list[Any]:
    return [
        t
        for t in (getattr(pkg.types, n) for n in pkg.types.__all__)
        if inspect.isclass(t) and issubclass(t, pkg._support.OpenStrEnum)
    ]


PACKAGES = [acp_schema, acp_schema_v2]


@pytest.mark.parametrize("pkg", PACKAGES, ids=lambda p: p.__name__)
def test_every_open_string_set_keeps_an_unknown_value_as_it_came(pkg: ModuleType) -> None:
    sets = _open_string_sets(pkg)
    assert sets, f"{pkg.__name__} has no open set of strings to check"
    for tp in sets:
        for value in UNKNOWN:
            data = json.dumps(value).encode()
            decoded = pkg.decode(data, tp)
            assert decoded.is_unknown, (tp.__name__, value[:40])
            assert decoded.value == value, f"{tp.__name__}: {value[:40]!r} decoded as {decoded!r}"
            assert json.loads(pkg.encode(decoded)) == value, f"{tp.__name__}: {value[:40]!r}"
            assert tp(value).value == value


TINY = document(
    {
        "Mode": {"anyOf": [{"const": "plan"}, {"const": "build"}, {"type": "string"}]},
        "Holder": {
            "type": "object",
            "properties": {
                "mode": {"$ref": "#/$defs/Mode"},
                "modes": {"type": "array", "items": {"$ref": "#/$defs/Mode"}},
            },
            "required": ["mode"],
        },
    }
)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    return package_from(TINY, tmp_path_factory.mktemp("open-enum"))


@pytest.mark.parametrize("lenient", [False, True])
@pytest.mark.parametrize("value", UNKNOWN, ids=lambda v: f"{v[:12]!r}x{len(v)}")
def test_an_unknown_value_inside_an_object_re_encodes_to_the_same_json(
    tiny: ModuleType, value: str, lenient: bool
) -> None:
    instance = {"mode": value, "modes": ["plan", value, "BUILD", "build"]}
    data = json.dumps(instance).encode()
    decoded = tiny.decode(data, tiny.types.Holder, lenient=lenient)
    assert decoded.mode.is_unknown and decoded.mode.value == value
    assert [m.is_unknown for m in decoded.modes] == [False, True, True, False]
    assert json.loads(tiny.encode(decoded)) == instance


def test_known_values_are_matched_exactly_not_by_case(tiny: ModuleType) -> None:
    Mode = tiny.types.Mode
    assert not Mode("plan").is_unknown
    for other in ("Plan", "PLAN", "plan ", "pLaN"):
        got = tiny.decode(json.dumps(other).encode(), Mode)
        assert got.is_unknown and got.value == other, f"{other!r} decoded as {got!r}"
