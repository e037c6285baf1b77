"""The round-trip promise: one sentence, the same in README.md (generator and wire sections) and in
each generated package's README, and true of both default packages for every type.

Valid instances of every def of schema/schema.json and schema/v2/schema.json (acpgen.instances,
drawn from the schema, nobody's hand-written examples) must re-encode to themselves plus exactly
what the promise allows: each absent field with a schema `default` comes back with that default,
each tagged variant decoded as its own type comes back with its tag. Undeclared keys are dropped
by Structs and kept by what the schema lets keep them (maps, general forms, unknown variants).
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

import msgspec
import pytest

import acp_schema
import acp_schema_v2
from acpgen.instances import valid_instances_with_defaults
from tests.docs.claims import claim
from tests.docs.readme import ROOT, normalized, sentences
from tests.support.agreement import diff_paths, same_json

PACKAGES = {
    "acp_schema": (acp_schema, ROOT / "schema" / "schema.json"),
    "acp_schema_v2": (acp_schema_v2, ROOT / "schema" / "v2" / "schema.json"),
}
COUNT = 6
SEED = 26
UNDECLARED = "undeclaredByTheSchema"


def _one(heading: str, start: str) -> str:
    found = [s for s in sentences(heading) if s.startswith(start)]
    assert len(found) == 1, f"README '{heading}': {len(found)} sentences start {start!r}"
    return found[0]


def test_the_promise_is_one_sentence_the_same_in_every_readme() -> None:
    promise = _one("What the generated types do with the wire", "Round trips:")
    same_value = _one("What the generated types do with the wire", "The same JSON value means")
    assert _one("Using the generated codecs", "Round trips:") == promise
    for name in PACKAGES:
        text = normalized((ROOT / "generated" / name / "README.md").read_text("utf-8"))
        assert promise in text, f"generated/{name}/README.md lacks the README's round-trip promise"
        assert same_value in text, f"generated/{name}/README.md lacks what 'the same' means"


def _with_additions(instance: Any, decoded: Any, defaults: dict, path: tuple = ()) -> Any:
    """`instance` with what the promise lets come back: defaults and tags of absent fields."""
    if isinstance(instance, dict):
        out = {k: v for k, v in instance.items()}
        for k, default in defaults.get(path, {}).items():
            out.setdefault(k, default)
        if isinstance(decoded, msgspec.Struct):
            config = decoded.__struct_config__
            if config.tag_field is not None:
                out.setdefault(config.tag_field, config.tag)
            names = dict(
                zip(decoded.__struct_encode_fields__, decoded.__struct_fields__, strict=True)
            )
            return {
                k: (
                    _with_additions(v, getattr(decoded, names[k], None), defaults, path + (k,))
                    if k in names
                    else v
                )
                for k, v in out.items()
            }
        if isinstance(decoded, dict):
            return {
                k: _with_additions(v, decoded.get(k), defaults, path + (k,)) for k, v in out.items()
            }
        return out
    if (
        isinstance(instance, list)
        and isinstance(decoded, (list, tuple))
        and len(instance) == len(decoded)
    ):
        return [
            _with_additions(v, d, defaults, path + (i,))
            for i, (v, d) in enumerate(zip(instance, decoded, strict=True))
        ]
    return instance


def _types(name: str) -> list[str]:
    package, schema = PACKAGES[name]
    return [d for d in json.loads(schema.read_text("utf-8"))["$defs"] if hasattr(package.types, d)]


CASES = [(name, d) for name in PACKAGES for d in _types(name)]


def _instances(name: str, def_name: str) -> list[tuple[Any, dict]]:
    doc = json.loads(PACKAGES[name][1].read_text("utf-8"))
    return valid_instances_with_defaults(doc, def_name, count=COUNT, seed=SEED)


@claim("Round trips: for data the schema accepts, `encode(decode(data, T))` is the same JSON")
@pytest.mark.parametrize(("name", "def_name"), CASES, ids=[f"{n}.{d}" for n, d in CASES])
def test_every_type_of_both_default_packages_round_trips_as_promised(
    name: str, def_name: str
) -> None:
    package: ModuleType = PACKAGES[name][0]
    cls = getattr(package.types, def_name)
    failures = []
    for instance, defaults in _instances(name, def_name):
        data = json.dumps(instance, ensure_ascii=False).encode()
        decoded = package.decode(data, cls, strict=True)
        out = json.loads(package.encode(decoded))
        expected = _with_additions(instance, decoded, defaults)
        if not same_json(out, expected):
            failures.append(f"{diff_paths(expected, out)[:4]}\n  in:  {data[:300]!r}\n  out: {out}")
    assert not failures, "\n".join(failures)


def _keeps_undeclared(decoded: Any) -> bool:
    """Whether the promise keeps an undeclared key at the top of this decoded value: only a Struct
    (an object whose schema says nothing of other keys) drops it."""
    return not isinstance(decoded, msgspec.Struct)


@claim("a key an object does not declare is dropped, unless the object's `additionalProperties`")
@pytest.mark.parametrize("name", PACKAGES)
def test_undeclared_keys_are_dropped_by_structs_and_kept_where_the_schema_keeps_them(
    name: str,
) -> None:
    package: ModuleType = PACKAGES[name][0]
    kept, dropped, failures = 0, 0, []
    for _, def_name in [c for c in CASES if c[0] == name]:
        cls = getattr(package.types, def_name)
        for instance, _ in _instances(name, def_name)[:2]:
            if not isinstance(instance, dict):
                continue
            data = json.dumps({**instance, UNDECLARED: [1, {"k": None}]}).encode()
            decoded = package.decode(data, cls, strict=True)
            out = json.loads(package.encode(decoded))
            if _keeps_undeclared(decoded):
                kept += 1
                if out.get(UNDECLARED) != [1, {"k": None}]:
                    failures.append(f"{def_name}: the undeclared key was not kept: {out}")
            else:
                dropped += 1
                if UNDECLARED in out:
                    failures.append(f"{def_name}: the undeclared key came back: {out}")
    assert not failures, "\n".join(failures)
    assert kept and dropped, (kept, dropped)  # both cases are reached


@claim("refused where it says `additionalProperties: false`")
def test_keys_an_object_does_not_declare_dropped_refused_or_kept(tiny: ModuleType) -> None:
    data = b'{"a":"x","b":1}'
    assert tiny.encode(tiny.decode(data, tiny.types.Quiet)) == b'{"a":"x"}'
    with pytest.raises(msgspec.ValidationError, match="unknown field `b`"):
        tiny.decode(data, tiny.types.Closed)
    for keeping in (tiny.types.Keeping, tiny.types.KeepingAll):
        assert json.loads(tiny.encode(tiny.decode(data, keeping))) == {"a": "x", "b": 1}
    with pytest.raises(msgspec.ValidationError):  # `Keeping`'s other keys hold integers
        tiny.decode(b'{"a":"x","b":"not an integer"}', tiny.types.Keeping)


@claim("`_meta` is such an object: use it for extension data, which passes through untouched.")
def test_meta_passes_through_untouched() -> None:
    meta = {"z": [1, {"deep": None}], "a": "é", "n": 12345678901234567890123}
    data = json.dumps({"text": "hi", "type": "text", "_meta": meta}).encode()
    decoded = acp_schema.decode(data, acp_schema.ContentBlock)
    assert decoded.meta == meta
    assert json.loads(acp_schema.encode(decoded))["_meta"] == meta


@claim("The same JSON value means equal once parsed: key order, whitespace and string escapes")
def test_what_the_same_json_value_allows(tiny: ModuleType) -> None:
    # key order, whitespace, escapes: not kept (the declared order, no spaces, UTF-8)
    data = b'{ "text" : "\\u00e9" ,\n "type": "text" }'
    assert acp_schema.encode(acp_schema.decode(data, acp_schema.ContentBlock)) == (
        '{"type":"text","text":"é"}'.encode()
    )
    # of a repeated key the last one counts
    assert tiny.decode(b'{"a":"first","a":"last"}', tiny.types.Quiet).a == "last"
    # numbers: with a fraction or an exponent, or in a `number` field, a 64-bit float
    out = tiny.encode(
        tiny.decode(
            b'{"ratio":3,"extra":{"e":1e2,"big":123456789012345678901}}', tiny.types.Numbers
        )
    )
    assert b'"ratio":3.0' in out and b'"e":100.0' in out and b'"big":123456789012345678901' in out
    # an integer field takes integers written as such: 1.0 is refused, or forgiven to the default
    assert (
        tiny.encode(tiny.decode(b'{"count":1}', tiny.types.Numbers)) == b'{"count":1,"forgiven":7}'
    )
    with pytest.raises(msgspec.ValidationError, match=r"\$\.count"):
        tiny.decode(b'{"count":1.0}', tiny.types.Numbers)
    assert tiny.decode(b'{"forgiven":1.0}', tiny.types.Numbers).forgiven == 7
    with pytest.raises(msgspec.ValidationError, match=r"\$\.forgiven"):
        tiny.decode(b'{"forgiven":1.0}', tiny.types.Numbers, strict=True)


@claim("Absent and null stay apart: an optional field without a schema default is `msgspec.UNSET`")
def test_absent_null_and_default_stay_apart(tiny: ModuleType) -> None:
    absent = acp_schema.decode(b"{}", acp_schema.Annotations)
    assert absent.priority is msgspec.UNSET and acp_schema.encode(absent) == b"{}"
    null = acp_schema.decode(b'{"priority":null}', acp_schema.Annotations)
    assert null.priority is None and acp_schema.encode(null) == b'{"priority":null}'
    defaulted = tiny.decode(b"{}", tiny.types.Numbers)
    assert defaulted.forgiven == 7 and tiny.encode(defaulted) == b'{"forgiven":7}'
    # a value equal to the default is encoded like any other
    assert tiny.encode(tiny.decode(b'{"forgiven":7}', tiny.types.Numbers)) == b'{"forgiven":7}'
