"""Differential test: `acp_schema` (strict msgspec decoding) against `jsonschema` (Draft 2020-12).

For every def of `schema/schema.json`, deterministic instances from `codegen/instances.py`:

- every valid instance (jsonschema accepts it) must decode strictly with
  `acp_schema.decode(..., getattr(acp_schema.types, def_name))`, and re-encoding the decoded value
  must give JSON that jsonschema accepts too (encode never produces invalid JSON);
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
from acpgen.instances import INT_RANGES, mutated_instances, valid_instances

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


@pytest.mark.parametrize("def_name", TESTED)
def test_valid_instances_decode_and_reencode(def_name: str) -> None:
    cls = getattr(acp_schema.types, def_name)
    plain = _for_def(Draft202012Validator, def_name)
    with_formats = _for_def(FormatRangeValidator, def_name)
    failures = []
    for instance in valid_instances(SCHEMA, def_name, count=COUNT, seed=SEED):
        if not with_formats.is_valid(instance):
            continue  # only an integer outside its format range: msgspec's stricter reading
        data = json.dumps(instance, ensure_ascii=False).encode()
        try:
            decoded = acp_schema.decode(data, cls)
        except msgspec.ValidationError as exc:
            failures.append(f"valid instance rejected: {exc}\n  {data[:400]!r}")
            continue
        out = acp_schema.encode(decoded)
        errors = [
            f"{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
            for e in plain.iter_errors(json.loads(out))
        ]
        if errors:
            failures.append(
                f"re-encoded value is invalid: {errors[:3]}\n  in:  {data[:400]!r}\n  out:"
                f" {out[:400]!r}"
            )
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
