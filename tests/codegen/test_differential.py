"""Differential test: `acp_schema` (strict msgspec decoding) against `jsonschema` (Draft 2020-12).

For every def of `schema/schema.json`, deterministic instances from `codegen/instances.py`:

- every valid instance (jsonschema accepts it) must decode strictly with
  `acp_schema.decode(..., getattr(acp_schema.types, def_name))`, and re-encoding the decoded value
  must give JSON that jsonschema accepts too (encode never produces invalid JSON) and that equals
  the input as a JSON value (tests/support/agreement.py's `same_json`: key order, whitespace and
  how a number is written aside), but for two exceptions: a property the input left out may come
  back with its schema `default` (`without_added_defaults`), and a def that is a variant of a
  tagged union (a content block of one kind), decoded on its own, comes back with the tag its
  union gives it (its Struct is the union's variant);
- the same holds once every value of an open set (an enum with a catch-all string branch) in a
  valid instance is replaced by an unknown one drawn to stress the encoder: mixed case, quotes,
  backslashes, control characters, non-BMP characters, and lengths from 0 to past 64 KiB;
- every mutated instance (jsonschema rejects it) must be rejected by strict decode
  (`acp_schema.codec.decoder(type)`: the package's decoder without the forgiving retry that the
  schema's `x-deserialize-default-on-error` / `-skip-invalid-items` marks ask receivers for, where
  a bad value is replaced or a bad item dropped on purpose; that retry is tested in
  test_codec_behaviour.py and test_constructs.py) with `msgspec.ValidationError`, or decode into an
  unknown form (an open enum's pseudo-member with
  `.is_unknown`, or an `UnknownVariant`) somewhere in the value. The schema is open there (an
  "other" string / catch-all branch) in a way jsonschema can still reject for a specific mutation,
  e.g. an unknown tag value whose object then misses a field of the catch-all branch; decoding it
  *without* an unknown form in it would be a real disagreement.

What JSON itself disagrees on is filtered, not tested:

- lone surrogates in strings: msgspec rejects them, jsonschema accepts them (the generator never
  makes them);
- integers written as floats (`1.0`): jsonschema calls them integers, msgspec does not (a JSON
  number with a fraction part is not an integer for it); the generator writes integers as ints;
- `format`: jsonschema ignores it (format assertion is off by default), while acp_schema reads
  the integer formats (int32, uint16, uint64, ...) as range constraints, which is stricter. An
  instance whose only disagreement is an integer outside its `format` range is skipped: it is
  detected with a validator that additionally asserts those ranges (see `FORMAT_VALIDATOR`).
  The generator keeps integers inside their format range, so this filter should rarely fire.

Defs that `acp_schema.types` does not have are the JSON-RPC envelopes (`x-docs-ignore: true`,
e.g. ClientRequest/AgentResponse), which are not generated as types by design; they are skipped,
and `test_skipped_defs_are_exactly_the_envelopes` checks that nothing else is.
"""

from __future__ import annotations

import enum
import json
from pathlib import Path
from typing import Any

import msgspec
import pytest
from jsonschema import Draft202012Validator, ValidationError, validators

import acp_schema
from acp_schema._support import UnknownVariant  # not re-exported by acp_schema (see report)
from acpgen.instances import (
    INT_RANGES,
    mutated_instances,
    valid_instances,
    valid_instances_with_defaults,
)
from tests.support.agreement import diff_paths, same_json, without_added_defaults
from tests.support.unknown_values import open_set_paths, replaced, substitutions

REPO = Path(__file__).resolve().parents[2]
SCHEMA: dict = json.loads((REPO / "schema" / "schema.json").read_text())
DEFS: dict = SCHEMA["$defs"]
ENVELOPES = sorted(name for name, node in DEFS.items() if node.get("x-docs-ignore") is True)
SKIPPED = sorted(name for name in DEFS if not hasattr(acp_schema.types, name))
TESTED = sorted(name for name in DEFS if hasattr(acp_schema.types, name))
COUNT = 6
SEED = 20251129


def _format_range(validator: Any, fmt: Any, instance: Any, schema: dict):
    """`format` as msgspec reads it: an integer format is a range."""
    if (
        isinstance(fmt, str)
        and fmt in INT_RANGES
        and isinstance(instance, int)
        and not isinstance(instance, bool)
    ):
        lo, hi = INT_RANGES[fmt]
        if not lo <= instance <= hi:
            yield ValidationError(f"{instance} is outside {fmt}")


FormatRangeValidator = validators.extend(Draft202012Validator, {"format": _format_range})
VALIDATOR = Draft202012Validator(SCHEMA)


def _for_def(cls: Any, def_name: str) -> Any:
    return cls({"$ref": f"#/$defs/{def_name}", "$defs": DEFS})


def _unknown_forms(value: Any) -> list[Any]:
    """Every unknown enum pseudo-member / UnknownVariant found anywhere in a decoded value."""
    found: list[Any] = []
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, UnknownVariant):
            found.append(v)
        elif isinstance(v, enum.Enum):
            if getattr(v, "is_unknown", False):
                found.append(v)
        elif isinstance(v, msgspec.Struct):
            stack.extend(getattr(v, f) for f in v.__struct_fields__)
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, (list, tuple)):
            stack.extend(v)
    return found


def test_skipped_defs_are_exactly_the_envelopes() -> None:
    assert ENVELOPES, "the schema should still have its x-docs-ignore JSON-RPC envelopes"
    assert SKIPPED == ENVELOPES


def test_every_def_is_exercised() -> None:
    """The generator gives valid instances for every generated def (else the test proves little)."""
    empty = [name for name in TESTED if not valid_instances(SCHEMA, name, count=1, seed=SEED)]
    assert empty == []


def _tags(decoded: Any, path: tuple = ()) -> list[tuple[tuple, str, Any]]:
    """(path, tag field, tag) of every tagged struct in a decoded value."""
    if isinstance(decoded, msgspec.Struct):
        config = decoded.__struct_config__
        own = [(path, config.tag_field, config.tag)] if config.tag_field is not None else []
        return own + [
            t
            for name, wire in zip(
                decoded.__struct_fields__, decoded.__struct_encode_fields__, strict=True
            )
            for t in _tags(getattr(decoded, name), path + (wire,))
        ]
    if isinstance(decoded, dict):
        return [t for k, v in decoded.items() for t in _tags(v, path + (k,))]
    if isinstance(decoded, (list, tuple)):
        return [t for i, v in enumerate(decoded) for t in _tags(v, path + (i,))]
    return []


def _at(value: Any, path: tuple) -> Any:
    for step in path:
        value = value[step]
    return value


def _round_trip_problem(cls: Any, instance: Any, defaults: Any, plain: Any) -> str | None:
    """Why `instance` does not decode and re-encode to itself (None: it does)."""
    data = json.dumps(instance, ensure_ascii=False).encode()
    try:
        decoded = acp_schema.decode(data, cls)
    except msgspec.ValidationError as exc:
        return f"valid instance rejected: {exc}\n  {data[:400]!r}"
    out = acp_schema.encode(decoded)
    again = json.loads(out)
    errors = [
        f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
        for e in plain.iter_errors(again)
    ]
    if errors:
        return (
            f"re-encoded value is invalid: {errors[:3]}\n  in:  {data[:400]!r}\n  out:"
            f" {out[:400]!r}"
        )
    for path, field, tag in _tags(decoded):
        sent, got = _at(instance, path), _at(again, path)
        if field not in sent and got.get(field) == tag:
            del got[field]  # the second exception (see the module's docstring)
    if not same_json(without_added_defaults(again, instance, defaults), instance):
        return (
            f"re-encoded value differs at {diff_paths(instance, again)[:5]}\n  in:  {data[:400]!r}"
            f"\n  out: {out[:400]!r}"
        )
    return None


@pytest.mark.parametrize("def_name", TESTED)
def test_valid_instances_decode_and_reencode_to_the_same_json(def_name: str) -> None:
    cls = getattr(acp_schema.types, def_name)
    plain = _for_def(Draft202012Validator, def_name)
    with_formats = _for_def(FormatRangeValidator, def_name)
    failures = []
    for instance, defaults in valid_instances_with_defaults(
        SCHEMA, def_name, count=COUNT, seed=SEED
    ):
        if not with_formats.is_valid(instance):
            continue  # only an integer outside its format range: msgspec's stricter reading
        problem = _round_trip_problem(cls, instance, defaults, plain)
        if problem:
            failures.append(problem)
    assert not failures, "\n".join(failures)


OPEN_SET_DEFS = [
    name
    for name in TESTED
    if any(
        open_set_paths(acp_schema.decode(json.dumps(x).encode(), getattr(acp_schema.types, name)))
        for x in valid_instances(SCHEMA, name, count=COUNT, seed=SEED)
        if _for_def(FormatRangeValidator, name).is_valid(x)
    )
]


def test_open_sets_are_reached_by_the_valid_instances() -> None:
    assert OPEN_SET_DEFS, "no valid instance holds a value of an open set: nothing is stressed"


@pytest.mark.parametrize("def_name", OPEN_SET_DEFS)
def test_unknown_values_of_open_sets_re_encode_to_the_same_json(def_name: str) -> None:
    cls = getattr(acp_schema.types, def_name)
    plain = _for_def(Draft202012Validator, def_name)
    with_formats = _for_def(FormatRangeValidator, def_name)
    failures, tried = [], 0
    for n, (instance, defaults) in enumerate(
        valid_instances_with_defaults(SCHEMA, def_name, count=COUNT, seed=SEED)
    ):
        if not with_formats.is_valid(instance):
            continue
        decoded = acp_schema.decode(json.dumps(instance).encode(), cls)
        for path, unknown in substitutions(open_set_paths(decoded), n):
            changed = replaced(instance, path, unknown)
            if not plain.is_valid(changed):
                failures.append(f"{path}: the schema does not take any string there")
                continue
            tried += 1
            problem = _round_trip_problem(cls, changed, defaults, plain)
            if problem:
                failures.append(f"{unknown[:20]!r} (length {len(unknown)}) at {path}: {problem}")
    assert tried, "no open-set value was replaced"
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("def_name", TESTED)
def test_mutated_instances_are_rejected(def_name: str) -> None:
    cls = getattr(acp_schema.types, def_name)
    failures = []
    for instance, description in mutated_instances(SCHEMA, def_name, count=COUNT, seed=SEED):
        data = json.dumps(instance, ensure_ascii=False).encode()
        try:
            decoded = acp_schema.codec.decoder(cls).decode(data)
        except msgspec.ValidationError:
            continue
        if not _unknown_forms(decoded):
            failures.append(f"{description}: accepted as {decoded!r:.300}\n  {data[:400]!r}")
    assert not failures, "\n".join(failures)
