"""The IR each construct builds (schema -> IR alone: no rendering, no import)."""

from __future__ import annotations

import json
from typing import Any

from acpgen.build import build
from acpgen.ir import (
    ANY,
    NULL,
    AliasDef,
    Checked,
    Const,
    EnumDef,
    ListOf,
    MapOf,
    ObjectDef,
    Package,
    Prim,
    Ref,
    Tag,
    UnionDef,
    UnionOf,
)
from acpgen.schema import parse

STR = {"type": "string"}


def ir(defs: dict[str, Any]) -> Package:
    return build(parse(json.dumps({"$defs": defs}).encode(), "t.json"))


def obj(props: dict[str, Any], required: tuple[str, ...] = (), **more: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required), **more}


def test_an_object_is_a_struct_with_its_fields() -> None:
    d = ir({"A": obj({"a": STR, "b": {"type": ["integer", "null"]}}, ("a",))}).get("A")
    assert isinstance(d, ObjectDef) and not d.closed
    assert [(f.wire, f.name, f.type, f.required) for f in d.fields] == [
        ("a", "a", Prim("str"), True),
        ("b", "b", UnionOf((Prim("int"), NULL)), False),
    ]


def test_additional_properties_false_closes_the_struct() -> None:
    d = ir({"A": obj({"a": STR}, additionalProperties=False)}).get("A")
    assert isinstance(d, ObjectDef) and d.closed


def test_an_object_without_properties_is_a_map() -> None:
    assert ir({"A": {"type": "object", "properties": {}, "additionalProperties": True}}).get(
        "A"
    ) == AliasDef("A", MapOf(ANY), pointer="/$defs/A")


def test_consts_make_an_enum_and_a_plain_branch_opens_it() -> None:
    d = ir({"K": {"anyOf": [{"const": "a"}, {"const": "b"}, STR]}}).get("K")
    assert isinstance(d, EnumDef) and d.open and [m.value for m in d.members] == ["a", "b"]


def test_shared_properties_go_to_every_variant_and_the_tag_is_never_a_field() -> None:
    pkg = ir(
        {
            "S": {
                "type": "object",
                "properties": {"kind": STR, "name": STR},
                "required": ["kind"],
                "oneOf": [
                    obj({"kind": {"const": "c"}, "r": STR}, ("r",)),
                    obj({"kind": {"const": "q"}}),
                ],
            }
        }
    )
    union = pkg.get("S")
    assert isinstance(union, UnionDef) and union.native and union.tag_field == "kind"
    for v in union.variants:
        variant = pkg.get(v.type)
        assert isinstance(variant, ObjectDef) and variant.tag == v.tag
        assert "kind" not in [f.wire for f in variant.fields] and "name" in [
            f.wire for f in variant.fields
        ]
    assert [v.tag for v in union.variants] == [Tag("kind", "c"), Tag("kind", "q")]


def test_a_null_branch_makes_the_union_nullable() -> None:
    union = ir(
        {
            "A": obj({"t": {"const": "a"}}, ("t",)),
            "B": obj({"t": {"const": "b"}}, ("t",)),
            "U": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}, {"type": "null"}]},
        }
    ).get("U")
    assert (
        isinstance(union, UnionDef)
        and union.nullable
        and [v.type for v in union.variants] == ["A", "B"]
    )


def test_a_catch_all_that_keeps_extra_keys_opens_an_untagged_union() -> None:
    pkg = ir(
        {
            "T": obj({"text": STR}, ("text",)),
            "U": {
                "anyOf": [
                    {"allOf": [{"$ref": "#/$defs/T"}]},
                    {
                        "type": "object",
                        "required": ["type"],
                        "properties": {"type": STR},
                        "additionalProperties": True,
                    },
                ]
            },
        }
    )
    union = pkg.get("U")
    assert (
        isinstance(union, UnionDef)
        and union.open
        and not union.native
        and [v.type for v in union.variants] == ["T"]
    )
    assert dict(pkg.checked)["/$defs/U"]["anyOf"][1]["additionalProperties"] is True


def test_a_single_tagged_variant_goes_through_the_hook_so_the_tag_is_required() -> None:
    union = ir({"U": {"oneOf": [obj({"t": {"const": "a"}}, ("t",))]}}).get("U")
    assert isinstance(union, UnionDef) and not union.native


def test_a_request_without_a_response_def_has_no_result_def() -> None:
    pkg = ir(
        {
            "PingRequest": {**obj({}), "x-method": "ping", "x-side": "agent"},
            "AgentRequest": obj(
                {
                    "id": {"type": "integer"},
                    "method": STR,
                    "params": {"anyOf": [{"$ref": "#/$defs/PingRequest"}]},
                },
                ("id", "method"),
            ),
        }
    )
    (method,) = pkg.methods
    assert (method.wire, method.kind, method.result) == ("ping", "request", None)
    assert [n.message for n in pkg.notices] == [
        "request 'ping' has no response def: its result is any JSON value"
    ]


def test_a_construct_without_a_typed_form_is_checked_with_a_notice() -> None:
    pkg = ir({"A": obj({"p": {"type": "array", "prefixItems": [STR]}})})
    field = pkg.get("A").fields[0]  # type: ignore[union-attr]
    assert field.type == Ref("AP")
    assert pkg.get("AP") == AliasDef(
        "AP", Checked("/$defs/A/properties/p"), pointer="/$defs/A/properties/p"
    )
    assert [n.pointer for n in pkg.notices] == ["/$defs/A/properties/p/prefixItems"]


def test_a_recursive_alias_is_checked() -> None:
    pkg = ir({"J": {"anyOf": [STR, {"type": "array", "items": {"$ref": "#/$defs/J"}}]}})
    assert pkg.get("J").type == Checked("/$defs/J")  # type: ignore[union-attr]


def test_unique_items_on_a_property_stay_typed() -> None:
    a = ir({"A": obj({"tags": {"type": "array", "items": STR, "uniqueItems": True}})}).get("A")
    field = a.fields[0]  # type: ignore[union-attr]
    assert field.type == ListOf(Prim("str"), unique=True)


def test_a_default_that_is_not_a_value_of_its_type_is_not_applied() -> None:
    pkg = ir(
        {
            "A": obj(
                {
                    "n": {"type": "integer", "default": "three"},
                    "ok": {"type": "boolean", "default": False},
                }
            )
        }
    )
    fields = {f.wire: f for f in pkg.get("A").fields}  # type: ignore[union-attr]
    assert fields["ok"].default is False and fields["n"].default != "three"
    assert [n.pointer for n in pkg.notices] == ["/$defs/A/properties/n/default"]


def test_consts_of_every_kind_keep_their_json_type() -> None:
    alias = ir({"K": {"enum": ["a", 1, None]}}).get("K")
    assert isinstance(alias, AliasDef) and alias.type == UnionOf((Const("a"), Const(1), NULL))
