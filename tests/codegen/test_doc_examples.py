"""The JSON-RPC examples of the protocol's v1 docs decode with their method's types and round-trip.

The examples come from `tests/fixtures/doc_examples.json` (extracted from the v1 docs, which
describe v1-stable-2026-08-20). Four of them fail their own def: they are listed as invalid and must
be rejected by the strict decoder, not forced through.
"""

from __future__ import annotations

import json
from typing import Any

import msgspec
import pytest

from .conftest import FIXTURES

SCHEMA = FIXTURES / "schemas" / "v1-stable-2026-08-20.json"
EXAMPLES = json.loads((FIXTURES / "doc_examples.json").read_text())
VALID = [e for e in EXAMPLES if e["valid"]]
INVALID = [e for e in EXAMPLES if not e["valid"]]


def _id(e: dict[str, Any]) -> str:
    return f"{e['file']}#{e['index']}-{e['kind']}-{e['method']}"


@pytest.fixture(scope="module")
def pkg(generate: Any) -> Any:
    return generate(SCHEMA)


def _decode(pkg: Any, e: dict[str, Any], data: bytes) -> Any:
    info = pkg.METHODS.get(e["method"])
    return pkg.decode_message(data, e["receiver"], lambda id: info.result if info else None)


def _lost(original: Any, again: Any, path: str = "$") -> list[str]:
    """Declared fields of the input that are missing after a round trip.

    Allowed to go: an explicit null (absence means the same) and a value equal to its default
    (the encoder omits defaults): false, empty lists and objects, and the schema's own defaults.
    """
    if isinstance(original, dict) and isinstance(again, dict):
        lost = []
        for key, value in original.items():
            if key in again:
                lost += _lost(value, again[key], f"{path}.{key}")
            elif value is not None and value not in (False, [], {}) and not _is_default(value):
                lost.append(f"{path}.{key}")
        return lost
    if isinstance(original, list) and isinstance(again, list) and len(original) == len(again):
        return [
            p
            for i, (a, b) in enumerate(zip(original, again, strict=True))
            for p in _lost(a, b, f"{path}[{i}]")
        ]
    return [] if original == again else [path]


def _schema_defaults(node: Any) -> list[Any]:
    found = []
    if isinstance(node, dict):
        if (
            "default" in node
            and not isinstance(node.get("properties"), dict)
            or "type" in node
            and "default" in node
        ):
            found.append(node.get("default"))
        for value in node.values():
            found += _schema_defaults(value)
    elif isinstance(node, list):
        for value in node:
            found += _schema_defaults(value)
    return found


DEFAULTS = _schema_defaults(json.loads(SCHEMA.read_text()))


def _is_default(value: Any) -> bool:
    if value in DEFAULTS:
        return True
    return isinstance(value, dict) and all(
        v in (False, [], {}, None) or _is_default(v) for v in value.values()
    )


def test_the_corpus_has_the_documented_examples() -> None:
    assert len(EXAMPLES) == 77
    assert len(INVALID) == 4


@pytest.mark.parametrize("example", VALID, ids=_id)
def test_doc_example_decodes_with_its_methods_types(pkg: Any, example: dict[str, Any]) -> None:
    msg = _decode(pkg, example, json.dumps(example["message"]).encode())
    kind = {
        "request": pkg.Request,
        "notification": pkg.Notification,
        "response": pkg.Response,
        "error": pkg.ErrorResponse,
    }
    assert isinstance(msg, kind[example["kind"]])
    info = pkg.METHODS.get(example["method"])
    if info is not None and example["kind"] in ("request", "notification"):
        assert isinstance(msg.params, _runtime_type(info.params))


def _runtime_type(tp: Any) -> Any:
    args = getattr(tp, "__args__", None)
    return tuple(a for a in args if isinstance(a, type)) if args else tp


@pytest.mark.parametrize("example", VALID, ids=_id)
def test_doc_example_round_trips_without_losing_fields(pkg: Any, example: dict[str, Any]) -> None:
    data = json.dumps(example["message"]).encode()
    first = _decode(pkg, example, data)
    encoded = pkg.encode_message(first)
    second = _decode(pkg, example, encoded)
    assert second == first
    assert pkg.encode_message(second) == encoded
    assert _lost(_declared(example), msgspec.json.decode(encoded)) == []


def _declared(example: dict[str, Any]) -> Any:
    """The message without the fields the extractor found undeclared (the decoder drops those)."""
    note = example.get("note") or ""
    marker = "does not declare (the schema allows them): "
    undeclared = note.split(marker, 1)[1].split(", ") if marker in note else []
    message = json.loads(json.dumps(example["message"]))
    for key in undeclared:
        for part in ("params", "result"):
            if isinstance(message.get(part), dict):
                message[part].pop(key, None)
    return message


@pytest.mark.parametrize("example", INVALID, ids=_id)
def test_invalid_doc_example_is_rejected_not_forced_through(
    pkg: Any, example: dict[str, Any]
) -> None:
    """Strict decoding rejects it, or repairs it only as the schema's x-deserialize marks allow:
    whatever it decodes to must then be valid against the def."""
    import jsonschema

    document = json.loads(SCHEMA.read_text())
    info = pkg.METHODS[example["method"]]
    part = "params" if "params" in example["message"] else "result"
    tp = info.params if part == "params" else info.result
    body = json.dumps(example["message"][part]).encode()
    try:
        value = pkg.decode(body, tp)
    except msgspec.ValidationError:
        return
    def_name = next(n for n in document["$defs"] if getattr(pkg.types, n, None) is tp)
    validator = jsonschema.Draft202012Validator(
        {"$ref": f"#/$defs/{def_name}", "$defs": document["$defs"]}
    )
    validator.validate(msgspec.json.decode(pkg.encode(value)))
