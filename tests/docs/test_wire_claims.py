"""README, "What the generated types do with the wire": a test per sentence (the round-trip ones
are in test_round_trip.py). Examples are found by their shape in both default packages (a union
with a tag, an enum that takes unknown values, ...), not picked by name where a scan can find them.
"""

from __future__ import annotations

import ast
import enum
import gc
import json
import re
import typing
import weakref
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest

import acp_schema
import acp_schema_v2
from tests.docs.claims import claim
from tests.docs.readme import ROOT

PACKAGES = {"acp_schema": acp_schema, "acp_schema_v2": acp_schema_v2}
SCHEMAS = {
    "acp_schema": ROOT / "schema" / "schema.json",
    "acp_schema_v2": ROOT / "schema" / "v2" / "schema.json",
}


def _defs(name: str) -> dict[str, Any]:
    return json.loads(SCHEMAS[name].read_text("utf-8"))["$defs"]  # type: ignore[no-any-return]


def _types(pkg: ModuleType) -> dict[str, Any]:
    return {n: getattr(pkg.types, n) for n in pkg.types.__all__}


def _hook_unions(pkg: ModuleType) -> dict[str, Any]:
    return {n: t for n, t in _types(pkg).items() if hasattr(t, "__acp_untagged__")}


@claim("Field names are snake_case in Python and exact on the wire")
@pytest.mark.parametrize("name", PACKAGES)
def test_field_names_are_snake_case_in_python_and_exact_on_the_wire(name: str) -> None:
    defs, checked = _defs(name), 0
    for def_name, cls in _types(PACKAGES[name]).items():
        if not (isinstance(cls, type) and issubclass(cls, msgspec.Struct)):
            continue
        for attr in cls.__struct_fields__:
            assert re.fullmatch(r"[a-z][a-z0-9_]*", attr), f"{def_name}.{attr}"
        wire = set(cls.__struct_encode_fields__)
        if def_name in defs and isinstance(defs[def_name].get("properties"), dict):
            assert set(defs[def_name]["properties"]) <= wire, def_name
            checked += 1
    assert checked > 100
    assert acp_schema.TextContent.__struct_encode_fields__[
        acp_schema.TextContent.__struct_fields__.index("meta")
    ] == ("_meta")


@claim("Unions tagged by a `const` property are native msgspec tagged unions")
def test_const_tagged_unions_are_native() -> None:
    native = [
        t
        for pkg in PACKAGES.values()
        for t in _types(pkg).values()
        if typing.get_args(t)
        and all(
            isinstance(a, type)
            and issubclass(a, msgspec.Struct)
            and a.__struct_config__.tag_field is not None
            for a in typing.get_args(t)
        )
    ]
    assert acp_schema.types.SessionUpdate in native
    for t in native:
        tag_field = typing.get_args(t)[0].__struct_config__.tag_field
        # a plain msgspec decoder, without any hook, takes the union as a tagged one
        decoder = msgspec.json.Decoder(t)
        with pytest.raises(msgspec.ValidationError, match=re.escape(f"`$.{tag_field}`")):
            decoder.decode(json.dumps({tag_field: "no-such-tag-anywhere"}))
    update = b'{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x"}}'
    assert isinstance(
        msgspec.json.Decoder(acp_schema.SessionUpdate).decode(update),
        acp_schema.types.SessionUpdateAgentMessageChunk,
    )


@claim("Unions msgspec cannot take as they stand (partially tagged like `McpServer`")
def test_other_unions_are_picked_by_tag_then_required_keys_then_by_trying() -> None:
    acp = acp_schema
    assert not typing.get_args(acp.types.McpServer)  # not a Union msgspec takes: a hook's marker
    by_tag = acp.decode(b'{"type":"http","name":"n","url":"u","headers":[]}', acp.McpServer)
    assert isinstance(by_tag, acp.McpServerHttp)
    untagged = acp.decode(b'{"name":"n","command":"c","args":[],"env":[]}', acp.McpServer)
    assert isinstance(untagged, acp.McpServerStdio)
    text = acp.decode(b'{"uri":"u","text":"t"}', acp.types.EmbeddedResourceResource)
    blob = acp.decode(b'{"uri":"u","blob":"YQ=="}', acp.types.EmbeddedResourceResource)
    assert isinstance(text, acp.TextResourceContents)
    assert isinstance(blob, acp.BlobResourceContents)
    # list[A] | list[B]: told apart by the items' required keys
    options = acp.decode(b'[{"value":"v","name":"n"}]', acp.types.SessionConfigSelectOptions)
    groups = acp.decode(
        b'[{"group":"g","name":"n","options":[]}]', acp.types.SessionConfigSelectOptions
    )
    assert isinstance(options[0], acp.types.SessionConfigSelectOption)
    assert isinstance(groups[0], acp.types.SessionConfigSelectGroup)


def _partially_tagged() -> list[tuple[ModuleType, Any]]:
    return [
        (pkg, t)
        for pkg in PACKAGES.values()
        for t in _hook_unions(pkg).values()
        if t.__acp_tag__ is not None and t.__acp_untagged__
    ]


@claim("In a partially tagged union a missing tag means the untagged (default) variant")
def test_a_partially_tagged_union_reads_a_missing_tag_as_its_default_variant() -> None:
    found = _partially_tagged()
    assert {t.__acp_open__ for _, t in found} == {True, False}  # both kinds are reached
    for pkg, t in found:
        default = t.__acp_untagged__[0]
        required = {k: [] for k in default.required}
        minimal = msgspec.json.encode(required)
        try:
            value = pkg.decode(minimal, t)
        except msgspec.ValidationError:
            continue  # its required keys need more than empty lists: covered by the next case
        assert isinstance(value, default.type)
        named = pkg.decode(msgspec.json.encode({**required, t.__acp_tag__: default.implied}), t)
        assert isinstance(named, default.type)
        other = msgspec.json.encode({**required, t.__acp_tag__: "no-such-variant"})
        if t.__acp_open__:
            assert isinstance(pkg.decode(other, t), pkg._support.UnknownVariant)
        else:
            with pytest.raises(msgspec.ValidationError):
                pkg.decode(other, t)
    # the README's own example: an auth method without a type is the agent one
    assert isinstance(
        acp_schema.decode(b'{"id":"a","name":"n","type":"agent"}', acp_schema.AuthMethod),
        acp_schema.types.AuthMethodAgent,
    )
    assert isinstance(
        acp_schema.decode(b'{"id":"a","name":"n"}', acp_schema.AuthMethod),
        acp_schema.types.AuthMethodAgent,
    )


def _string_enums(pkg: ModuleType) -> list[type[enum.Enum]]:
    return [
        t
        for t in _types(pkg).values()
        if isinstance(t, type) and issubclass(t, enum.Enum) and issubclass(t, str)
    ]


def _is_open(pkg: ModuleType, t: Any) -> bool:
    try:
        pkg.decode(b'"no-such-value"', t)
    except msgspec.ValidationError:
        return False
    return True


@claim('Open sets (the schema lists an "other" value) keep unknown values')
def test_open_sets_keep_unknown_values() -> None:
    pkg = acp_schema_v2
    open_enums = [t for t in _string_enums(pkg) if _is_open(pkg, t)]
    assert open_enums
    for t in open_enums:
        value = pkg.decode(b'"Quantum \\"x\\" \\u00e9"', t)
        assert value.is_unknown and value.value == 'Quantum "x" é'
        assert value not in list(t) and all(value != member for member in t)
        assert json.loads(pkg.encode(value)) == 'Quantum "x" é'
    raw = {"type": "hologram", "frames": [1, 2.5, None], "_meta": {"k": "v"}}
    block = pkg.decode(json.dumps(raw).encode(), pkg.ContentBlock)
    assert isinstance(block, pkg._support.UnknownVariant) and block.raw == raw
    assert not isinstance(block, typing.get_args(pkg.types.ContentBlock) or ())
    assert json.loads(pkg.encode(block)) == raw


@claim("Closed sets reject unknown values in strict mode; `decode(..., lenient=True)`")
def test_closed_sets_reject_unknown_values_unless_lenient() -> None:
    pkg = acp_schema
    closed = [t for t in _string_enums(pkg) if not _is_open(pkg, t)]
    assert closed
    for t in closed:
        with pytest.raises(msgspec.ValidationError):
            pkg.decode(b'"no-such-value"', t, strict=True)
        lenient = pkg.decode(b'"no-such-value"', t, lenient=True)
        assert lenient.is_unknown and pkg.encode(lenient) == b'"no-such-value"'
    raw = b'{"type":"hologram","x":1}'
    with pytest.raises(msgspec.ValidationError):
        pkg.decode(raw, pkg.ContentBlock)
    unknown = pkg.decode(raw, pkg.ContentBlock, lenient=True)
    assert isinstance(unknown, pkg._support.UnknownVariant)
    assert pkg.encode(unknown) == raw


BAD_CAPABILITIES = b'{"protocolVersion":1,"agentCapabilities":"not an object"}'
BAD_ITEM = b'{"audience":["user",7,"assistant"]}'


@claim("`x-deserialize-default-on-error` and `x-deserialize-skip-invalid-items` are honoured")
def test_leniency_marks_are_honoured_when_receiving(monkeypatch: pytest.MonkeyPatch) -> None:
    acp = acp_schema
    repaired = acp.decode(BAD_CAPABILITIES, acp.InitializeResponse)
    assert (
        repaired.agent_capabilities == acp.InitializeResponse(protocol_version=1).agent_capabilities
    )
    assert acp.decode(BAD_ITEM, acp.Annotations).audience == [acp.Role.USER, acp.Role.ASSISTANT]
    # the fast decode (the package's native decoder) refuses both: the repair is a second path ...
    for data, tp in ((BAD_CAPABILITIES, acp.InitializeResponse), (BAD_ITEM, acp.Annotations)):
        with pytest.raises(msgspec.ValidationError):
            acp.codec.decoder(tp).decode(data)

    # ... taken only when the fast decode fails: a valid message never reaches it
    def never(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the slow path was taken for a valid message")

    monkeypatch.setattr(acp.codec, "repair", never)
    monkeypatch.setattr(acp.codec, "convert", never)
    assert acp.decode(b'{"audience":["user"]}', acp.Annotations).audience == [acp.Role.USER]


@claim("They never apply to what is sent: `decode(..., strict=True)` forgives nothing")
def test_strict_decoding_forgives_nothing() -> None:
    acp = acp_schema
    with pytest.raises(msgspec.ValidationError, match=r"agentCapabilities"):
        acp.decode(BAD_CAPABILITIES, acp.InitializeResponse, strict=True)
    with pytest.raises(msgspec.ValidationError, match=r"audience\[1\]"):
        acp.decode(BAD_ITEM, acp.Annotations, strict=True)
    # the runtime's send-side check of every outgoing value: tests/runtime/test_send_strict.py
    # (test_broken_where_a_receiver_would_forgive_is_refused_too), named in ELSEWHERE of
    # test_every_claim_is_tested.py


def _names(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        return [node.target.id]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    if isinstance(node, ast.If):  # `if TYPE_CHECKING: X: TypeAlias = ... else: X = hook_union(...)`
        return [n for child in node.body + node.orelse for n in _names(child)]
    return []


def _docstrings(pkg: ModuleType) -> dict[str, str]:
    """Each name of the types module with its docstring: a class's own, or the string that follows
    an alias (where editors and `help` look for it)."""
    body = ast.parse(Path(pkg.types.__file__).read_text("utf-8")).body
    out: dict[str, str] = {}
    for node, after in zip(body, body[1:] + [None], strict=True):
        if isinstance(node, ast.ClassDef):
            out[node.name] = ast.get_docstring(node) or ""
        elif (
            isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            out.update(dict.fromkeys(_names(node), after.value.value))
    return out


@claim("Types and methods the schema marks **UNSTABLE** say so in their docstrings")
@pytest.mark.parametrize("name", PACKAGES)
def test_unstable_types_and_methods_say_so(name: str) -> None:
    pkg, defs = PACKAGES[name], _defs(name)
    marked = {n for n, d in defs.items() if "**UNSTABLE**" in (d.get("description") or "")}
    types = _types(pkg)
    assert marked & set(types) <= set(pkg.UNSTABLE)
    assert marked & set(types), "no unstable type to check"
    docs = _docstrings(pkg)
    for n in marked & set(types):
        assert "UNSTABLE" in docs.get(n, ""), n
    methods = {d["x-method"]: n in marked for n, d in defs.items() if "x-method" in d}
    assert any(methods.values())
    for method, info in pkg.METHODS.items():
        if method in methods and info.kind == "request" and methods[method]:
            assert info.unstable, method
    assert {m for m, i in pkg.METHODS.items() if i.unstable} <= {m for m, u in methods.items() if u}


@claim("not tracked by Python's cycle collector")
@pytest.mark.parametrize("name", PACKAGES)
def test_decoded_values_are_not_tracked_by_the_cycle_collector(name: str) -> None:
    pkg, structs = PACKAGES[name], 0
    for def_name, cls in _types(pkg).items():
        if isinstance(cls, type) and issubclass(cls, msgspec.Struct):
            assert cls.__struct_config__.gc is False, def_name
            structs += 1
    assert structs > 100
    # what that buys: a kept value with a container inside (`meta`) adds no tracked object of its
    # own, so keeping many decoded blocks sets off no collection and makes none slower
    block = b'{"type": "text", "text": "hello", "_meta": {"k": [1]}}'
    kept = [pkg.decode(block, pkg.TextContent) for _ in range(2_000)]
    assert not any(gc.is_tracked(value) for value in kept)
    assert all(gc.is_tracked(value.meta) for value in kept)  # its own containers still are


@claim("Do not build a reference cycle through a value")
def test_a_cycle_through_a_value_is_never_freed() -> None:
    class Witness:
        pass

    witness = Witness()
    seen = weakref.ref(witness)
    value = acp_schema.TextContent(text="hello")
    value.meta = {"self": value, "witness": witness}
    del value, witness
    gc.collect()
    assert seen() is not None  # the collector cannot see the cycle: the witness is kept for good
