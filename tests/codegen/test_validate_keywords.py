"""The codec's validator (`_validate`, for constructs without a typed form) agrees with jsonschema
keyword by keyword, on the values at each bound and one past it."""

from __future__ import annotations

from typing import Any

import pytest
from jsonschema import Draft202012Validator

from acp_schema._validate import Invalid, SchemaValidator

STR, INT, NUM = {"type": "string"}, {"type": "integer"}, {"type": "number"}

CASES: list[tuple[str, dict[str, Any], list[Any]]] = [
    ("minLength", {"minLength": 2}, ["", "a", "ab", "abc", "éé", "😀"]),
    ("maxLength", {"maxLength": 2}, ["", "a", "ab", "abc", "😀😀", "😀😀😀"]),
    ("minimum", {"minimum": 2}, [1, 1.5, 2, 2.0, 3]),
    ("maximum", {"maximum": 2}, [1, 2, 2.5, 3]),
    ("exclusiveMinimum", {"exclusiveMinimum": 2}, [1, 2, 2.0, 2.001, 3]),
    ("exclusiveMaximum", {"exclusiveMaximum": 2}, [1, 1.999, 2, 2.0, 3]),
    ("multipleOf", {"multipleOf": 0.5}, [0, 0.5, 1, 1.25, 7.5, -1]),
    ("pattern", {"pattern": "^a+b?$"}, ["a", "aab", "b", "abb", "xa"]),
    ("const", {"const": {"a": [1, True]}}, [{"a": [1, True]}, {"a": [1.0, True]}, {"a": [1, 1]}]),
    ("enum", {"enum": [1, "1", None]}, [1, 1.0, "1", None, True, 2]),
    ("type", {"type": ["integer", "null"]}, [1, 1.0, 1.5, None, True, "1"]),
    ("oneOf", {"oneOf": [{"minimum": 0}, {"maximum": 10}]}, [-5, 5, 15]),
    ("anyOf", {"anyOf": [{"minimum": 10}, {"maximum": 0}]}, [-5, 5, 15]),
    ("allOf", {"allOf": [{"minimum": 0}, {"maximum": 10}]}, [-1, 0, 10, 11]),
    ("not", {"not": {"type": "string"}}, ["s", 1, None]),
    (
        "if/then/else",
        {"if": {"type": "integer"}, "then": {"minimum": 5}, "else": {"type": "string"}},
        [4, 5, "s", 1.5, None],
    ),
    ("required", {"required": ["a", "b"]}, [{}, {"a": 1}, {"a": 1, "b": 2}, []]),
    ("minProperties", {"minProperties": 1}, [{}, {"a": 1}]),
    ("maxProperties", {"maxProperties": 1}, [{"a": 1}, {"a": 1, "b": 2}]),
    (
        "additionalProperties",
        {"properties": {"a": INT}, "additionalProperties": False},
        [{"a": 1}, {"a": "x"}, {"a": 1, "b": 2}, {}],
    ),
    (
        "patternProperties",
        {"patternProperties": {"^x-": STR}, "additionalProperties": INT},
        [{"x-a": "s"}, {"x-a": 1}, {"b": 1}, {"b": "s"}],
    ),
    ("dependentRequired", {"dependentRequired": {"a": ["b"]}}, [{"a": 1}, {"a": 1, "b": 2}, {}]),
    ("propertyNames", {"propertyNames": {"maxLength": 2}}, [{"ab": 1}, {"abc": 1}]),
    ("minItems", {"minItems": 2}, [[], [1], [1, 2]]),
    ("maxItems", {"maxItems": 2}, [[1, 2], [1, 2, 3]]),
    ("uniqueItems", {"uniqueItems": True}, [[1, 2], [1, 1], [1, 1.0], [{"a": 1}, {"a": 1}]]),
    ("items", {"prefixItems": [STR], "items": INT}, [["a", 1], ["a", "b"], [1], []]),
    ("contains", {"contains": STR, "minContains": 2}, [["a"], ["a", "b"], [1, "a", "b"]]),
    ("maxContains", {"contains": STR, "maxContains": 1}, [["a"], ["a", "b"], [1, 2]]),
    ("nested path", {"properties": {"a": {"items": NUM}}}, [{"a": [1, 2.5]}, {"a": [1, "x"]}]),
]


@pytest.mark.parametrize(("keyword", "schema", "values"), CASES, ids=[c[0] for c in CASES])
def test_the_validator_agrees_with_jsonschema_at_each_bound(
    keyword: str, schema: dict[str, Any], values: list[Any]
) -> None:
    ours = SchemaValidator({})
    reference = Draft202012Validator(schema)
    for value in values:
        expected = reference.is_valid(value)
        assert (
            ours.is_valid(schema, value) == expected
        ), f"{keyword}: jsonschema says {'valid' if expected else 'invalid'} for {value!r}"


def test_a_refusal_names_the_place_and_the_keyword() -> None:
    schema = {"properties": {"a": {"items": {"maxLength": 1}}}}
    with pytest.raises(Invalid) as raised:
        SchemaValidator({}).validate(schema, {"a": ["x", "yy"]})
    assert raised.value.path == "$.a[1]" and "length <= 1" in raised.value.message
