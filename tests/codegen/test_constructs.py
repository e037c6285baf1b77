"""One tiny schema per construct: the typed form it gets, and jsonschema agreeing with the package.

Each schema is valid JSON Schema 2020-12 (checked); for each, the package must accept exactly the
instances jsonschema accepts and re-encode what it accepts unchanged (`agrees`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
import pytest

from ..support.tiny import accepts, agrees, document, package_from

OBJ = {"type": "object"}


def obj(properties: dict[str, Any], required: list[str] = (), **more: Any) -> dict[str, Any]:  # type: ignore[assignment]
    return {"type": "object", "properties": properties, "required": list(required), **more}


STR = {"type": "string"}
NUM = {"type": "number"}
INT = {"type": "integer"}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tiny")


# ---------------------------------------------------------------- 1. shared properties + variants


SHARED = document(
    {
        "Shape": {
            "type": "object",
            "properties": {"kind": STR, "name": STR},
            "required": ["kind"],
            "oneOf": [
                obj({"kind": {"const": "circle"}, "radius": NUM}, ["radius"]),
                obj({"kind": {"const": "square"}, "side": NUM}, ["side"]),
            ],
        }
    }
)


def test_shared_properties_belong_to_every_tagged_variant(root: Path) -> None:
    pkg = package_from(SHARED, root)
    circle = pkg.decode(b'{"kind":"circle","name":"c","radius":1.5}', pkg.Shape)
    assert type(circle).__name__ == "ShapeCircle"
    assert circle.name == "c" and circle.radius == 1.5
    assert "kind" not in circle.__struct_fields__  # the tag is a tag, never also a declared field
    assert pkg.encode(pkg.types.ShapeSquare(side=2.0)) == b'{"kind":"square","side":2.0}'


@pytest.mark.parametrize(
    "instance",
    [
        {"kind": "circle", "radius": 1.0},
        {"kind": "circle", "radius": 1.0, "name": "n"},
        {"kind": "square", "side": 2.0},
        {"kind": "square", "radius": 1.0},
        {"kind": "triangle", "side": 1.0},
        {"radius": 1.0},
        {"kind": "circle", "radius": "big"},
        {"kind": "circle", "radius": 1.0, "name": 5},
        "circle",
    ],
)
def test_shared_properties_union_agrees_with_jsonschema(root: Path, instance: Any) -> None:
    agrees(package_from(SHARED, root), SHARED, "Shape", instance)


# ---------------------------------------------------------------- 2. open untagged union

OPEN_UNTAGGED = document(
    {
        "Text": obj({"text": STR}, ["text"]),
        "Image": obj({"data": STR, "mimeType": STR}, ["data", "mimeType"]),
        "Content": {
            "anyOf": [
                {"allOf": [{"$ref": "#/$defs/Text"}]},
                {"allOf": [{"$ref": "#/$defs/Image"}]},
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


def test_unknown_payload_of_an_open_untagged_union_is_kept_raw(root: Path) -> None:
    pkg = package_from(OPEN_UNTAGGED, root)
    value = pkg.decode(b'{"type":"video","url":"u","frames":[1,2]}', pkg.Content)
    assert isinstance(value, pkg._support.UnknownVariant)
    assert pkg.encode(value) == b'{"type":"video","url":"u","frames":[1,2]}'
    assert type(pkg.decode(b'{"text":"hi"}', pkg.Content)).__name__ == "Text"


@pytest.mark.parametrize(
    "instance",
    [
        {"text": "t"},
        {"data": "d", "mimeType": "m"},
        {"type": "x", "more": [1]},
        {"type": 5},
        {"other": 1},
        [],
        "t",
    ],
)
def test_open_untagged_union_agrees_with_jsonschema(root: Path, instance: Any) -> None:
    agrees(package_from(OPEN_UNTAGGED, root), OPEN_UNTAGGED, "Content", instance)


# ---------------------------------------------------------------- 3. null branch among objects

NULL_BRANCH = document(
    {
        "A": obj({"type": {"const": "a"}, "x": INT}, ["type"]),
        "B": obj({"type": {"const": "b"}, "y": STR}, ["type"]),
        "Either": {"anyOf": [{"$ref": "#/$defs/A"}, {"$ref": "#/$defs/B"}, {"type": "null"}]},
        "Holder": obj({"value": {"$ref": "#/$defs/Either"}}, ["value"]),
    }
)


@pytest.mark.parametrize(
    "instance", [None, {"type": "a", "x": 1}, {"type": "b"}, {"type": "c"}, {}, 3]
)
def test_null_branch_in_a_union_of_objects(root: Path, instance: Any) -> None:
    agrees(package_from(NULL_BRANCH, root), NULL_BRANCH, "Either", instance)


def test_a_nullable_union_field_keeps_an_explicit_null(root: Path) -> None:
    pkg = package_from(NULL_BRANCH, root)
    assert pkg.encode(pkg.decode(b'{"value":null}', pkg.Holder)) == b'{"value":null}'


def _rpc(methods: dict[str, Any], response_result: dict[str, Any] | None = None) -> dict[str, Any]:
    """A JSON-RPC schema in ACP's spelling: method defs plus request/response envelopes."""
    defs = dict(methods)
    requests = [n for n, d in methods.items() if n.endswith("Request")]
    responses = [n for n, d in methods.items() if n.endswith("Response")]
    defs["RequestId"] = {"anyOf": [{"type": "null"}, {"type": "integer"}, {"type": "string"}]}
    defs["AgentRequest"] = {
        "type": "object",
        "properties": {
            "id": {"$ref": "#/$defs/RequestId"},
            "method": STR,
            "params": {"anyOf": [{"$ref": f"#/$defs/{n}"} for n in requests]},
        },
        "required": ["id", "method"],
    }
    result = response_result or {"anyOf": [{"$ref": f"#/$defs/{n}"} for n in responses]}
    defs["AgentResponse"] = {
        "type": "object",
        "properties": {"id": {"$ref": "#/$defs/RequestId"}, "result": result},
        "required": ["id", "result"],
    }
    return document(defs)


def test_a_method_whose_result_is_null(root: Path) -> None:
    schema = _rpc(
        {
            "PingRequest": {**obj({"n": INT}, ["n"]), "x-method": "ping", "x-side": "agent"},
            "PingResponse": {"type": "null", "x-method": "ping", "x-side": "agent"},
            "OtherRequest": {**obj({}), "x-method": "other", "x-side": "agent"},
            "OtherResponse": {
                **obj({"ok": {"type": "boolean"}}),
                "x-method": "other",
                "x-side": "agent",
            },
        }
    )
    pkg = package_from(schema, root)
    info = pkg.REQUESTS["ping"]
    assert pkg.decode(b"null", info.result) is None
    with pytest.raises(msgspec.ValidationError):
        pkg.decode(b"{}", info.result)
    msg = pkg.decode_message(b'{"jsonrpc":"2.0","id":1,"result":null}', "client", {1: info.result})
    assert isinstance(msg, pkg.Response) and msg.result is None


# ---------------------------------------------------------------- 4. request without a response def


def test_a_request_without_a_response_def_has_an_any_result(root: Path) -> None:
    schema = _rpc(
        {"FireRequest": {**obj({"n": INT}, ["n"]), "x-method": "fire", "x-side": "client"}},
        {"type": "object"},
    )
    warnings: list[str] = []
    pkg = package_from(schema, root, warnings)
    info = pkg.REQUESTS["fire"]
    assert info.kind == "request" and info.side == "client"
    assert pkg.decode(b'{"anything":[1]}', info.result) == {"anything": [1]}
    assert any("has no response def" in w for w in warnings)
    assert "fire" in pkg.ClientHandler.__dict__ and "fire" in pkg.ClientProxy.__dict__
    msg = pkg.decode_message(b'{"jsonrpc":"2.0","id":3,"method":"fire","params":{"n":2}}', "client")
    assert isinstance(msg, pkg.Request) and msg.params.n == 2


# ---------------------------------------------------------------- 5. branches with more keywords

RICH_BRANCHES = document(
    {
        "Base": obj({"id": STR}, ["id"]),
        "Extra": obj({"note": STR}),
        "Thing": {
            "oneOf": [
                {
                    "title": "Closed",
                    "description": "A closed variant.",
                    "type": "object",
                    "properties": {"kind": {"const": "closed"}, "id": STR},
                    "required": ["kind", "id"],
                    "additionalProperties": False,
                },
                {
                    "title": "Merged",
                    "properties": {"kind": {"const": "merged"}},
                    "required": ["kind"],
                    "allOf": [{"$ref": "#/$defs/Base"}, {"$ref": "#/$defs/Extra"}],
                },
                {"$ref": "#/$defs/Described", "title": "described", "description": "beside a $ref"},
            ]
        },
        "Described": obj({"kind": {"const": "described"}, "size": INT}, ["kind"]),
    }
)


@pytest.mark.parametrize(
    "instance",
    [
        {"kind": "closed", "id": "1"},
        {"kind": "closed", "id": "1", "more": True},
        {"kind": "merged", "id": "2", "note": "n"},
        {"kind": "merged", "note": "n"},
        {"kind": "described", "size": 3},
        {"kind": "described", "size": "big"},
        {"kind": "unknown"},
    ],
)
def test_branches_with_more_keywords_are_read_for_what_they_mean(root: Path, instance: Any) -> None:
    agrees(package_from(RICH_BRANCHES, root), RICH_BRANCHES, "Thing", instance)


def test_not_outside_an_open_union_takes_the_general_form_with_a_notice(root: Path) -> None:
    schema = document(
        {
            "NotEmpty": {"type": "string", "not": {"const": ""}},
            "Holder": obj({"s": {"$ref": "#/$defs/NotEmpty"}}, ["s"]),
        }
    )
    warnings: list[str] = []
    pkg = package_from(schema, root, warnings)
    assert warnings == [
        "/$defs/NotEmpty/not: 'not' outside an open union has no typed form: NotEmpty is any JSON"
        " value, checked against the schema"
    ]
    for instance in ({"s": "x"}, {"s": ""}, {"s": 1}, {}):
        agrees(pkg, schema, "Holder", instance)


# ---------------------------------------------------------------- general forms


GENERAL = document(
    {
        "Conditional": {
            "type": "object",
            "properties": {"kind": STR, "size": INT},
            "if": {"properties": {"kind": {"const": "big"}}},
            "then": {"properties": {"size": {"minimum": 100}}},
        },
        "Patterned": {
            "type": "object",
            "patternProperties": {"^x-": INT},
            "additionalProperties": False,
        },
        "Pair": {"type": "array", "prefixItems": [STR, INT], "items": False},
        "Json": {
            "anyOf": [
                STR,
                NUM,
                {"type": "boolean"},
                {"type": "null"},
                {"type": "array", "items": {"$ref": "#/$defs/Json"}},
                {"type": "object", "additionalProperties": {"$ref": "#/$defs/Json"}},
            ]
        },
        "Holder": obj(
            {
                "c": {"$ref": "#/$defs/Conditional"},
                "p": {"$ref": "#/$defs/Patterned"},
                "pair": {"$ref": "#/$defs/Pair"},
                "j": {"$ref": "#/$defs/Json"},
            }
        ),
    }
)


@pytest.mark.parametrize(
    ("name", "instance"),
    [
        ("Conditional", {"kind": "big", "size": 200}),
        ("Conditional", {"kind": "big", "size": 5}),
        ("Conditional", {"kind": "small", "size": 5}),
        ("Patterned", {"x-a": 1}),
        ("Patterned", {"x-a": "1"}),
        ("Patterned", {"y": 1}),
        ("Pair", ["a", 1]),
        ("Pair", ["a", 1, 2]),
        ("Pair", [1, "a"]),
        ("Json", {"a": [1, "x", None, {"b": True}]}),
        ("Holder", {"c": {"kind": "big", "size": 1}}),
        (
            "Holder",
            {"c": {"kind": "big", "size": 100}, "p": {"x-y": 2}, "pair": ["q", 3], "j": [[{}]]},
        ),
    ],
)
def test_constructs_without_a_typed_form_validate_and_round_trip(
    root: Path, name: str, instance: Any
) -> None:
    agrees(package_from(GENERAL, root), GENERAL, name, instance)


def test_every_general_form_is_announced_once_with_its_pointer(root: Path) -> None:
    warnings: list[str] = []
    package_from(GENERAL, root, warnings)
    assert sorted(w.split(":")[0] for w in warnings) == [
        "/$defs/Conditional/if",
        "/$defs/Json",
        "/$defs/Pair/prefixItems",
        "/$defs/Patterned/patternProperties",
    ]


# ---------------------------------------------------------------- found by generated instances

NESTED_OPEN = document(
    {
        "State": {"anyOf": [{"const": "idle"}, {"const": "running"}, STR]},
        "Update": {
            "oneOf": [
                obj(
                    {"kind": {"const": "state"}, "state": {"$ref": "#/$defs/State"}},
                    ["kind", "state"],
                ),
                obj({"kind": {"const": "text"}, "text": STR}, ["kind", "text"]),
            ]
        },
    }
)


@pytest.mark.parametrize(
    "instance",
    [
        {"kind": "state", "state": "paused"},
        {"kind": "state", "state": 3},
        {"kind": "text", "text": "t"},
    ],
)
def test_an_unknown_value_of_an_open_set_in_a_tagged_variant_is_accepted(
    root: Path, instance: Any
) -> None:
    agrees(package_from(NESTED_OPEN, root), NESTED_OPEN, "Update", instance)


PARTIAL = document(
    {
        "U": {
            "anyOf": [
                obj({"type": {"const": "a"}, "x": INT}, ["type", "x"]),
                obj({"type": STR, "y": INT}, ["type", "y"]),
            ]
        }
    }
)


@pytest.mark.parametrize(
    "instance",
    [{"type": "a", "x": 1}, {"y": 1}, {"type": "b", "y": 1}, {"x": 1}, {"type": "a", "y": 1}],
)
def test_a_union_of_a_tagged_and_an_untagged_variant_insists_on_required_keys(
    root: Path, instance: Any
) -> None:
    agrees(package_from(PARTIAL, root), PARTIAL, "U", instance)


OPEN_WITH_BASE = document(
    {
        "Option": {
            "type": "object",
            "properties": {"id": STR, "name": STR},
            "required": ["id", "name"],
            "anyOf": [
                obj({"type": {"const": "select"}, "value": STR}, ["type", "value"]),
                {
                    "type": "object",
                    "properties": {"type": STR},
                    "required": ["type"],
                    "not": {"properties": {"type": {"const": "select"}}, "required": ["type"]},
                },
            ],
        }
    }
)


@pytest.mark.parametrize(
    "instance",
    [
        {"type": "select", "id": "i", "name": "n", "value": "v"},
        {"type": "future", "id": "i", "name": "n", "extra": [1]},
        {"type": "future", "id": "i"},
        {"type": "future", "name": 1, "id": "i"},
        {"type": "select", "id": "i", "name": "n"},
    ],
)
def test_an_unknown_variant_still_has_the_fields_every_variant_requires(
    root: Path, instance: Any
) -> None:
    agrees(package_from(OPEN_WITH_BASE, root), OPEN_WITH_BASE, "Option", instance)


LENIENCY = document(
    {
        "Kind": {"oneOf": [{"const": "a"}, {"const": "b"}]},
        "Forgiving": obj(
            {"kind": {"$ref": "#/$defs/Kind", "x-deserialize-default-on-error": True}}
        ),
        "Strict": {
            "oneOf": [
                obj({"t": {"const": "x"}, "v": INT}, ["t"]),
                obj({"t": {"const": "y"}}, ["t"]),
            ]
        },
        "Holder": obj({"strict": {"$ref": "#/$defs/Strict"}}, ["strict"]),
    }
)


def test_leniency_stays_where_the_mark_is(root: Path) -> None:
    pkg = package_from(LENIENCY, root)
    assert (
        pkg.decode(b'{"kind":"zzz"}', pkg.Forgiving).kind is msgspec.UNSET
    )  # forgiven where marked
    for instance in (
        {"strict": {"t": "z"}},
        {"strict": {"t": "x", "v": "no"}},
        {"strict": {"t": "y"}},
    ):
        agrees(pkg, LENIENCY, "Holder", instance)


CLOSED = document(
    {
        "Closed": obj({"a": INT}, ["a"], additionalProperties=False),
        "Tags": obj({"tags": {"type": "array", "items": STR, "uniqueItems": True}}),
    }
)


@pytest.mark.parametrize(
    ("name", "instance"),
    [
        ("Closed", {"a": 1}),
        ("Closed", {"a": 1, "b": 2}),
        ("Tags", {"tags": ["a", "b"]}),
        ("Tags", {"tags": ["a", "a"]}),
    ],
)
def test_closed_objects_and_unique_items_are_enforced(root: Path, name: str, instance: Any) -> None:
    agrees(package_from(CLOSED, root), CLOSED, name, instance)


def test_an_inline_tagged_union_in_a_new_field(root: Path) -> None:
    schema = document(
        {
            "Holder": obj(
                {
                    "pick": {
                        "oneOf": [
                            obj({"kind": {"const": "one"}, "a": INT}, ["kind"]),
                            obj({"kind": {"const": "two"}, "b": STR}, ["kind"]),
                        ]
                    }
                },
                ["pick"],
            )
        }
    )
    pkg = package_from(schema, root)
    assert (
        type(pkg.decode(b'{"pick":{"kind":"two","b":"x"}}', pkg.Holder).pick).__name__
        == "HolderPickTwo"
    )
    for instance in (
        {"pick": {"kind": "one", "a": 1}},
        {"pick": {"kind": "three"}},
        {"pick": {"a": 1}},
    ):
        agrees(pkg, schema, "Holder", instance)


@pytest.mark.parametrize(
    "name",
    [
        "Meta",
        "Any",
        "Annotated",
        "Literal",
        "TypeAlias",
        "UNSET",
        "UnsetType",
        "msgspec",
        "Request",
        "UnknownVariant",
        "UNSTABLE",
        "t",
        "types",
    ],
)
def test_a_def_named_like_what_generated_code_uses_never_shadows_it(root: Path, name: str) -> None:
    schema = document(
        {
            name: obj({"x": INT}, ["x"]),
            "Holder": obj(
                {
                    "it": {"$ref": f"#/$defs/{name}"},
                    "n": {"type": ["integer", "null"], "minimum": 0},
                },
                ["it"],
            ),
        }
    )
    pkg = package_from(schema, root)
    holder = pkg.decode(b'{"it":{"x":1},"n":null}', pkg.types.Holder)
    assert holder.it.x == 1 and holder.n is None
    assert pkg.encode(holder) == b'{"it":{"x":1},"n":null}'
    assert callable(pkg.decode_message) and pkg.types.__dict__[name].__name__ == name


# ---------------------------------------------------------------- round trips keep what was sent


def test_a_field_equal_to_its_default_is_never_dropped(root: Path) -> None:
    schema = document(
        {
            "Caps": obj(
                {
                    "read": {"type": "boolean", "default": False},
                    "kind": {"type": "string", "default": "object"},
                }
            ),
            "Patch": obj({"title": {"type": ["string", "null"]}}),
        }
    )
    pkg = package_from(schema, root)
    for data in (b'{"read":false}', b'{"kind":"object"}', b'{"read":false,"kind":"object"}'):
        assert (
            msgspec.json.decode(pkg.encode(pkg.decode(data, pkg.Caps))).items()
            >= msgspec.json.decode(data).items()
        )
    # absent, null and a value stay three different things
    assert pkg.encode(pkg.decode(b"{}", pkg.Patch)) == b"{}"
    assert pkg.encode(pkg.decode(b'{"title":null}', pkg.Patch)) == b'{"title":null}'
    assert pkg.encode(pkg.decode(b'{"title":"t"}', pkg.Patch)) == b'{"title":"t"}'


def test_bad_instance_is_rejected_with_its_path(root: Path) -> None:
    pkg = package_from(SHARED, root)
    ok, err = accepts(pkg, "Shape", {"kind": "circle", "radius": "x"})
    assert not ok and "radius" in str(err)


CONSTS_ON_DIFFERENT_PROPERTIES = document(
    {
        "U": {
            "anyOf": [
                obj({"c": {"type": "string", "const": "1"}}, ["c"]),
                obj({"d": {"type": "string", "const": "1"}}, ["d"]),
            ]
        },
        "A": obj(
            {
                "f": {
                    "oneOf": [
                        obj(
                            {
                                "t": {"type": "string", "const": "image"},
                                "c": {"type": "string", "const": "end_turn"},
                            },
                            ["t", "c"],
                        )
                    ]
                }
            }
        ),
        "O": {
            "anyOf": [
                obj({"a": {}, "n": {"oneOf": [{"type": "string", "const": "image"}]}}),
                obj({"b": {"type": ["string", "null"]}}),
            ]
        },
    }
)


@pytest.mark.parametrize(
    ("name", "instance"),
    [
        ("U", {"c": "1"}),
        ("U", {"d": "1"}),
        ("U", {"c": "2"}),
        ("A", {"f": {"t": "image", "c": "end_turn"}}),
        ("A", {"f": {"t": "image"}}),
        ("O", {"b": None}),
        ("O", {"a": 1, "n": "image"}),
    ],
)
def test_consts_that_tell_no_common_tag_and_overlapping_untagged_branches(
    root: Path, name: str, instance: Any
) -> None:
    """Found by the property test: branches pinning different properties are untagged variants;
    of the untagged variants a value fits, the one declaring its keys takes it (nothing dropped)."""
    agrees(
        package_from(CONSTS_ON_DIFFERENT_PROPERTIES, root),
        CONSTS_ON_DIFFERENT_PROPERTIES,
        name,
        instance,
    )


def tagged(field: str, value: str, ref: str) -> dict[str, Any]:
    """A union branch pinning `field` to `value`, its payload the def `ref`."""
    return {
        "type": "object",
        "properties": {field: {"type": "string", "const": value}},
        "required": [field],
        "allOf": [{"$ref": f"#/$defs/{ref}"}],
    }


THREE_LEVELS = document(
    {
        "Outer": {"anyOf": [tagged("kind", "state", "Middle"), tagged("kind", "note", "Note")]},
        "Middle": {"anyOf": [tagged("state", "idle", "Inner"), tagged("state", "busy", "Note")]},
        "Inner": {"anyOf": [tagged("reason", "done", "Note"), tagged("reason", "stopped", "Note")]},
        "Note": obj({"text": STR}),
    }
)


def test_variants_of_a_union_nested_two_deep_are_named_by_every_tag(root: Path) -> None:
    """A union's branch whose payload is a union whose branch is a union again: each flattened
    variant is named after the tags that pick it, never `...Variant_` for ones sharing a tag."""
    pkg = package_from(THREE_LEVELS, root)
    stopped = pkg.decode(b'{"kind":"state","state":"idle","reason":"stopped"}', pkg.Outer)
    assert type(stopped).__name__ == "OuterStateIdleStopped"
    done = pkg.decode(b'{"kind":"state","state":"idle","reason":"done"}', pkg.Outer)
    assert type(done).__name__ == "OuterStateIdleDone"
    assert not [name for name in vars(pkg.types) if name.endswith(("Variant", "Variant_"))]
    for instance in (
        {"kind": "state", "state": "idle", "reason": "done", "text": "t"},
        {"kind": "state", "state": "busy"},
        {"kind": "state", "state": "idle", "reason": "other"},
        {"kind": "note", "text": "t"},
    ):
        agrees(pkg, THREE_LEVELS, "Outer", instance)


# ------------------------------------------------ a union of arrays whose items tell them apart

LISTS = document(
    {
        "Item": obj({"value": STR}, ["value"]),
        "Group": obj({"group": STR, "items": {"type": "array", "items": STR}}, ["group", "items"]),
        "Holder": obj(
            {
                "choices": {
                    "anyOf": [
                        {"type": "array", "items": {"$ref": "#/$defs/Item"}, "minItems": 1},
                        {"type": "array", "items": {"$ref": "#/$defs/Group"}, "minItems": 1},
                    ]
                }
            },
            ["choices"],
        ),
    }
)


def test_a_union_of_constrained_arrays_decodes_each_branch(root: Path) -> None:
    pkg = package_from(LISTS, root)
    items = pkg.decode(b'{"choices":[{"value":"a"},{"value":"b"}]}', pkg.Holder)
    assert [type(i).__name__ for i in items.choices] == ["Item", "Item"]
    groups = pkg.decode(b'{"choices":[{"group":"g","items":["x"]}]}', pkg.Holder)
    assert [type(g).__name__ for g in groups.choices] == ["Group"]


@pytest.mark.parametrize(
    "instance",
    [
        {"choices": [{"value": "a"}]},
        {"choices": [{"group": "g", "items": []}]},
        {"choices": []},
        {"choices": [{"value": 1}]},
        {"choices": [{"value": "a"}, {"group": "g", "items": []}]},
        {"choices": "a"},
    ],
)
def test_a_union_of_constrained_arrays_agrees_with_jsonschema(root: Path, instance: Any) -> None:
    agrees(package_from(LISTS, root), LISTS, "Holder", instance)
