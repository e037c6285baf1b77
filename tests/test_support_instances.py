"""Tests of codegen/instances.py, the schema-driven instance generator.

Over every def of every schema in tests/fixtures/schemas/: valid instances exist and are valid,
mutated ones exist and are rejected. Validity is checked with a stricter validator than the
generator's own: an "integer" must be a Python int (jsonschema also takes 1.0 and True).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator, validators

from acpgen.instances import ATTEMPTS, mutated_instances, valid_instances

ROOT = Path(__file__).resolve().parent.parent
SCHEMAS = sorted((ROOT / "tests/fixtures/schemas").glob("*.json"))
COUNT = 4

# Defs that accept every JSON value, so no mutation can be rejected. Checked below.
_ANY = "schema with no constraint: any JSON value"
_ANY_UNION = "anyOf whose ExtMethod/ExtNotification branch is `{}`: any JSON value"
_ANY_OTHER = "anyOf with an `Other` branch that has no constraint: any JSON value"
ACCEPTS_ANYTHING = {
    "v1-stable-2025-10-28.json": {
        "AgentNotification": _ANY_UNION,
        "AgentRequest": _ANY_UNION,
        "AgentResponse": _ANY_UNION,
        "ClientNotification": _ANY_UNION,
        "ClientRequest": _ANY_UNION,
        "ClientResponse": _ANY_UNION,
    },
    **{
        name: {"ExtNotification": _ANY, "ExtRequest": _ANY, "ExtResponse": _ANY}
        for name in [
            "v1-stable-2026-01-15.json",
            "v1-stable-2026-04-23.json",
            "v1-stable-2026-08-20.json",
            "v1-unstable-2026-01-15.json",
            "v1-unstable-2026-04-23.json",
            "v2-stable-2026-08-20.json",
        ]
    },
    **{
        name: {
            "ExtNotification": _ANY,
            "ExtRequest": _ANY,
            "ExtResponse": _ANY,
            "MessageMcpResponse": _ANY,
        }
        for name in ["v1-preview-pr-2026-08-21.json", "v2-unstable-2026-08-21.json"]
    },
    "ts-sdk-2.4.0-v1-stable.json": {
        "ExtNotification": _ANY,
        "ExtRequest": _ANY,
        "ExtResponse": _ANY,
    },
    "ts-sdk-2.4.0-v1-unstable.json": {
        "ExtNotification": _ANY,
        "ExtRequest": _ANY,
        "ExtResponse": _ANY,
        "ProxySuccessorResponse": _ANY,  # the wrapped request's result, forwarded unchanged
    },
    **{
        name: {
            "ExtNotification": _ANY,
            "ExtRequest": _ANY,
            "ExtResponse": _ANY,
            "ErrorData": _ANY_OTHER,
            "ElicitationContentValue": _ANY_OTHER,
            **extra,
        }
        for name, extra in [
            ("ts-sdk-2.4.0-v2-stable.json", {}),
            ("ts-sdk-2.4.0-v2-unstable.json", {"ProxySuccessorResponse": _ANY}),
        ]
    },
}
# Defs for which no valid instance can be made: none so far. Name one here with the reason.
NO_VALID_INSTANCE: dict[str, dict[str, str]] = {}

_strict_types = Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda _checker, v: isinstance(v, int) and not isinstance(v, bool)
)
StrictValidator = validators.extend(Draft202012Validator, type_checker=_strict_types)


def strict(schema: dict, def_name: str) -> Draft202012Validator:
    return StrictValidator({"$ref": f"#/$defs/{def_name}", "$defs": schema["$defs"]})


def assert_plain_json(value: Any) -> None:
    """Round-trips through JSON unchanged; finite floats; no lone surrogates."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False)
    text.encode("utf-8")  # raises on a lone surrogate
    assert json.loads(text) == value


def test_accepts_anything_list_is_true() -> None:
    samples = [None, True, 0, -1.5, "x", [], [1, "a"], {}, {"k": {"n": None}}]
    for path in SCHEMAS:
        schema = json.loads(path.read_text())
        for name in ACCEPTS_ANYTHING.get(path.name, {}):
            assert all(strict(schema, name).is_valid(s) for s in samples), (path.name, name)


@pytest.mark.parametrize("path", SCHEMAS, ids=[p.name for p in SCHEMAS])
def test_every_def(path: Path) -> None:
    schema = json.loads(path.read_text())
    problems = []
    for name in schema["$defs"]:
        validator = strict(schema, name)
        stats: dict = {}
        valid = valid_instances(schema, name, count=COUNT, seed=11, stats=stats)
        if name in NO_VALID_INSTANCE.get(path.name, {}):
            assert not valid, name
            continue
        if len(valid) != COUNT:
            problems.append(f"{name}: {len(valid)} valid instances, {stats['dropped']} dropped")
        for v in valid:
            assert_plain_json(v)
            if not validator.is_valid(v):
                problems.append(f"{name}: invalid instance {v!r:.200}")
        mutated = mutated_instances(schema, name, count=COUNT, seed=11)
        if name in ACCEPTS_ANYTHING.get(path.name, {}):
            assert not mutated, name
            continue
        if not mutated:
            problems.append(f"{name}: no mutated instance")
        for m, desc in mutated:
            assert_plain_json(m)
            assert isinstance(desc, str) and desc
            if validator.is_valid(m):
                problems.append(f"{name}: mutation accepted: {desc}")
    assert not problems, "\n".join(problems)


def test_deterministic_for_a_seed_and_varies_with_it() -> None:
    schema = json.loads((ROOT / "tests/fixtures/schemas/v1-stable-2026-08-20.json").read_text())
    a = valid_instances(schema, "SessionNotification", count=5, seed=3)
    assert a == valid_instances(schema, "SessionNotification", count=5, seed=3)
    assert a != valid_instances(schema, "SessionNotification", count=5, seed=4)
    m = mutated_instances(schema, "SessionNotification", count=5, seed=3)
    assert m == mutated_instances(schema, "SessionNotification", count=5, seed=3)


def test_deterministic_across_hash_seeds() -> None:
    """No set or hash order leaks into the output: two interpreters, two PYTHONHASHSEEDs."""
    code = (
        "import json; from acpgen.instances import mutated_instances, valid_instances\n"
        "s = json.load(open('tests/fixtures/schemas/v2-unstable-2026-08-21.json'))\n"
        "print(json.dumps([valid_instances(s, 'SessionUpdate', count=5, seed=1),"
        " mutated_instances(s, 'SessionUpdate', count=5, seed=1)]))"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "PYTHONHASHSEED": seed},
        ).stdout
        for seed in ("1", "2")
    }
    assert len(outs) == 1


def defs(**named: Any) -> dict:
    return {"$defs": named}


def test_integer_formats_and_bounds() -> None:
    schema = defs(
        I32={"type": "integer", "format": "int32"},
        U16={"type": "integer", "format": "uint16", "minimum": 0, "maximum": 65535},
        U64={"type": ["integer", "null"], "format": "uint64", "minimum": 0},
        Small={"type": "integer", "format": "int64", "minimum": 3, "maximum": 5},
    )
    ranges = {
        "I32": (-(2**31), 2**31 - 1),
        "U16": (0, 65535),
        "U64": (0, 2**64 - 1),
        "Small": (3, 5),
    }
    for name, (lo, hi) in ranges.items():
        values = [v for v in valid_instances(schema, name, count=60, seed=1) if v is not None]
        assert values and all(type(v) is int and lo <= v <= hi for v in values), name
        assert lo in values and hi in values, name  # the edges are tried
    descs = [d for _, d in mutated_instances(schema, "U16", count=10, seed=1)]
    assert any(d.startswith("out-of-range integer") for d in descs)
    assert any(d.startswith("wrong JSON type (number") for d in descs)


def test_numbers_are_finite_floats() -> None:
    schema = defs(P={"type": ["number", "null"], "format": "double", "minimum": 0, "maximum": 1})
    values = [v for v in valid_instances(schema, "P", count=40, seed=2) if v is not None]
    assert values and all(type(v) is float and 0 <= v <= 1 for v in values)


def test_one_of_needs_exactly_one_branch() -> None:
    # An integral value matches both branches: only non-integral floats (or strings) may come out.
    schema = defs(X={"oneOf": [{"type": "integer"}, {"type": ["number", "string"]}]})
    values = valid_instances(schema, "X", count=30, seed=5)
    assert len(values) == 30
    for v in values:
        assert isinstance(v, str) or (isinstance(v, float) and not v.is_integer())


def test_not_and_open_union() -> None:
    schema = defs(
        Tagged={
            "anyOf": [
                {
                    "type": "object",
                    "properties": {"type": {"const": "a"}, "n": {"type": "integer"}},
                    "required": ["type", "n"],
                },
                {
                    "type": "object",
                    "properties": {"type": {"type": "string"}},
                    "required": ["type"],
                    "not": {"properties": {"type": {"const": "a"}}, "required": ["type"]},
                },
            ]
        }
    )
    values = valid_instances(schema, "Tagged", count=30, seed=1)
    assert any(v["type"] == "a" for v in values) and any(v["type"] != "a" for v in values)
    assert all("n" in v for v in values if v["type"] == "a")
    # A wrong tag is accepted by the catch-all variant, so it is never offered as a mutation.
    mutated = mutated_instances(schema, "Tagged", count=10, seed=1)
    assert mutated and not any("tag" in desc for _, desc in mutated)
    for m, desc in mutated:
        assert not Draft202012Validator({"$ref": "#/$defs/Tagged", **schema}).is_valid(m), desc


def test_recursive_defs_terminate() -> None:
    schema = defs(
        Tree={
            "type": "object",
            "required": ["children", "label"],
            "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Tree"}},
                "parent": {"anyOf": [{"$ref": "#/$defs/Tree"}, {"type": "null"}]},
            },
        }
    )
    values = valid_instances(schema, "Tree", count=20, seed=9)
    assert len(values) == 20

    def depth(t: Any) -> int:
        subs = t["children"] + ([t["parent"]] if t.get("parent") else [])
        return 1 + max(map(depth, subs), default=0)

    assert max(map(depth, values)) >= 3  # it does recurse, and it stops


def test_every_mutation_kind_is_made() -> None:
    schema = defs(
        O={
            "type": "object",
            "required": ["kind", "level", "tags", "n", "code", "cur"],
            "properties": {
                "kind": {"const": "k"},
                "level": {"enum": ["low", "high"]},
                "tags": {"type": "array", "items": {"type": "string"}},
                "n": {"type": "integer", "minimum": 0, "maximum": 9},
                "code": {"type": "string", "minLength": 1},
                "cur": {"type": "string", "pattern": "^[A-Z]{3}$"},
            },
        }
    )
    kinds = {
        d.split(" (")[0].split(" at ")[0].split(" instead")[0]
        for _, d in mutated_instances(schema, "O", count=200, seed=1)
    }
    assert kinds >= {
        "drop required field",
        "wrong JSON type",
        "null where not nullable",
        "unknown const/tag value",
        "value outside the enum",
        "out-of-range integer",
        "array item of wrong type",
        "string shorter than minLength",
        "string not matching '^[A-Z]{3}$'",
    }


def test_impossible_def_gives_nothing_and_counts_drops() -> None:
    schema = defs(
        Never={"allOf": [{"type": "string"}, {"type": "integer"}]},
        TooShort={"type": "string", "minLength": 2, "maxLength": 1},
    )
    stats: dict = {}
    assert valid_instances(schema, "Never", count=3, seed=0, stats=stats) == []
    assert stats["dropped"] == 3 * ATTEMPTS
    stats = {}
    assert valid_instances(schema, "TooShort", count=3, seed=0, stats=stats) == []
    assert stats["dropped"] == 3 * ATTEMPTS  # made, then rejected by the validator
