"""Tests of the property test's helpers: tests/support/agreement.py and what it needs from
codegen/instances.py (uniqueItems, closed objects, leniency marks, defaults)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from jsonschema import Draft202012Validator

from acpgen.instances import (
    Mutation,
    mutations,
    valid_instances,
    valid_instances_with_defaults,
)
from tests.support.agreement import (
    _Checker,
    diff_paths,
    disagreements,
    methods_of,
    repair_problem,
    same_json,
    without_added_defaults,
)
from tests.support.schema_grammar import MethodDraw, envelopes, messages

DRAFT = "https://json-schema.org/draft/2020-12/schema"


def _doc(defs: dict) -> dict:
    return {"$schema": DRAFT, "$defs": defs}


def test_a_schema_the_generator_handles_has_no_disagreements(tmp_path: Path) -> None:
    doc = _doc(
        {
            "Kind": {
                "oneOf": [
                    {"type": "string", "const": "a", "description": "A."},
                    {"type": "string", "const": "b", "description": "B."},
                ]
            },
            "Thing": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string"},
                    "n": {"type": ["integer", "null"], "format": "uint32", "minimum": 0},
                    "kinds": {"type": "array", "items": {"$ref": "#/$defs/Kind"}},
                },
            },
            "Shape": {
                "oneOf": [
                    {
                        "type": "object",
                        "properties": {
                            "type": {"type": "string", "const": "circle"},
                            "r": {"type": "number"},
                        },
                        "required": ["type", "r"],
                    },
                    {
                        "type": "object",
                        "properties": {
                            "type": {"type": "string", "const": "square"},
                            "side": {"type": "number"},
                        },
                        "required": ["type", "side"],
                    },
                ]
            },
        }
    )
    assert disagreements(doc, tmp_path, count=6, seed=1) == []


@pytest.mark.parametrize("bare", [False, True], ids=["json-rpc envelopes", "bare envelopes"])
def test_methods_the_generator_handles_have_no_disagreements(tmp_path: Path, bare: bool) -> None:
    obj = {
        "type": "object",
        "required": ["sessionId"],
        "properties": {
            "sessionId": {"type": "string"},
            "n": {"type": "integer", "format": "uint16"},
        },
    }
    defs = {
        "PingRequest": {**obj, "x-method": "ping", "x-side": "agent"},
        "PingResponse": {**obj, "x-method": "ping", "x-side": "agent"},
        "PongRequest": {**obj, "x-method": "pong", "x-side": "client"},
        "PongResponse": {
            "type": "object",
            "properties": {},
            "x-method": "pong",
            "x-side": "client",
        },
        "ByeNotification": {**obj, "x-method": "bye", "x-side": "client"},
        "CancelRequestNotification": {**obj, "x-method": "$/cancel_request", "x-side": "protocol"},
    }
    drawn = [
        MethodDraw("ping", "agent", "request", "PingRequest", "PingResponse", False),
        MethodDraw("pong", "client", "request", "PongRequest", "PongResponse", False),
        MethodDraw("bye", "client", "notification", "ByeNotification", None, False),
        MethodDraw(
            "$/cancel_request", "protocol", "notification", "CancelRequestNotification", None, False
        ),
    ]
    doc = _doc({**defs, **envelopes(drawn, bare)})
    if not bare:
        doc["anyOf"] = messages(doc["$defs"], ["CancelRequestNotification"])
    assert disagreements(doc, tmp_path, count=4, seed=1) == []


def _fake_package(decode, encode) -> SimpleNamespace:
    return SimpleNamespace(types=SimpleNamespace(A=object), decode=decode, encode=encode)


def test_a_package_that_accepts_anything_disagrees_on_invalid_instances() -> None:
    doc = _doc(
        {"A": {"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}}
    )
    checker = _Checker(doc, _fake_package(lambda data, tp: json.loads(data), json.dumps), 4, 1)
    checker.check_def("A")
    assert {d.kind for d in checker.found} == {"invalid accepted"}


def test_a_package_that_drops_a_field_disagrees_on_round_trips() -> None:
    doc = _doc(
        {
            "A": {
                "type": "object",
                "properties": {"x": {"type": "string"}, "y": {"type": "integer"}},
                "required": ["x"],
            }
        }
    )
    lossy = _fake_package(
        lambda data, tp: json.loads(data),
        lambda v: json.dumps({k: x for k, x in v.items() if k != "y"}),
    )
    checker = _Checker(doc, lossy, 4, 1)
    checker.check_def("A")
    assert "round trip" in {d.kind for d in checker.found}


def test_same_json_tells_booleans_from_numbers_but_not_ints_from_floats() -> None:
    assert same_json({"a": [1, 2.5]}, {"a": [1.0, 2.5]})
    assert not same_json(True, 1)
    assert not same_json({"a": None}, {})


def test_diff_paths_names_missing_keys_and_resized_lists() -> None:
    assert diff_paths({"a": 1, "b": [1, 2]}, {"b": [1]}) == [("a",), ("b",)]
    assert diff_paths({"b": [1, {"c": 2}]}, {"b": [1, {"c": 3}]}) == [("b", 1, "c")]


def test_a_property_left_out_may_come_back_with_its_default_only() -> None:
    defaults = {(): {"type": "object"}}
    assert without_added_defaults({"type": "object"}, {}, defaults) == {}
    assert without_added_defaults({"type": "array"}, {}, defaults) == {"type": "array"}
    assert (
        without_added_defaults({}, {"type": "object"}, defaults) == {}
    )  # dropping is never undone


def test_a_repair_must_stay_under_the_mark_that_holds_the_mutation() -> None:
    marked = ((("opt",), "x-deserialize-default-on-error"),)
    bad = Mutation({"opt": 5, "keep": 1}, "wrong JSON type at $.opt", ("opt",), marked)
    assert repair_problem(bad, {"keep": 1}, valid=True) is None
    assert "outside the marked places" in repair_problem(bad, {}, valid=True)
    assert "invalid" in repair_problem(bad, {"opt": 5, "keep": 1}, valid=False)
    unmarked = Mutation({"tag": "zz"}, "unknown tag at $.tag", ("tag",), marked)
    assert (
        repair_problem(unmarked, {"tag": "zz"}, valid=True)
        == "no x-deserialize mark holds the mutation"
    )


def test_a_repair_may_write_the_defaults_the_sender_left_out() -> None:
    marked = ((("opt",), "x-deserialize-default-on-error"),)
    bad = Mutation({"opt": 5}, "wrong JSON type at $.opt", ("opt",), marked, {(): {"name": ""}})
    assert repair_problem(bad, {"name": ""}, valid=True) is None
    assert "outside the marked places" in repair_problem(bad, {"name": "x"}, valid=True)


def test_unique_items_arrays_are_generated_without_duplicates() -> None:
    doc = _doc({"A": {"type": "array", "items": {"enum": ["a", "b"]}, "uniqueItems": True}})
    values = valid_instances(doc, "A", count=8, seed=3)
    assert values and all(len(v) == len(set(v)) for v in values)
    assert any("duplicate item" in m.description for m in mutations(doc, "A", count=8, seed=3))


def test_closed_objects_get_an_unknown_key_mutation() -> None:
    doc = _doc(
        {
            "A": {
                "type": "object",
                "properties": {"x": {"type": "string"}},
                "additionalProperties": False,
            }
        }
    )
    found = [
        m for m in mutations(doc, "A", count=8, seed=3) if "additionalProperties" in m.description
    ]
    assert found and not Draft202012Validator(doc | {"$ref": "#/$defs/A"}).is_valid(
        found[0].instance
    )


def test_mutations_carry_the_paths_of_lenient_values() -> None:
    doc = _doc(
        {
            "A": {
                "type": "object",
                "required": ["opt"],
                "properties": {"opt": {"type": "string", "x-deserialize-default-on-error": True}},
            }
        }
    )
    found = mutations(doc, "A", count=4, seed=3)
    assert found and all(((("opt",), "x-deserialize-default-on-error") in m.marked) for m in found)


def test_valid_instances_come_with_the_defaults_of_their_properties() -> None:
    doc = _doc(
        {"A": {"type": "object", "properties": {"t": {"const": "object", "default": "object"}}}}
    )
    pairs = valid_instances_with_defaults(doc, "A", count=3, seed=3)
    assert [v for v, _ in pairs] == valid_instances(doc, "A", count=3, seed=3)
    assert all(d == {(): {"t": "object"}} for _, d in pairs)


def test_methods_are_read_back_with_their_kind_and_response() -> None:
    doc = _doc(
        {
            "PingRequest": {"x-method": "ping", "x-side": "agent"},
            "PingResponse": {"x-method": "ping", "x-side": "agent"},
            "ByeNotification": {"x-method": "bye", "x-side": "client"},
        }
    )
    assert [(m.wire, m.kind, m.result) for m in methods_of(doc)] == [
        ("ping", "request", "PingResponse"),
        ("bye", "notification", None),
    ]
