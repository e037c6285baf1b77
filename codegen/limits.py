"""The bounds of what the generator reads, and the JSON values it cannot turn into Python.

Every bound here is a refusal (SchemaError, exit 2) naming the JSON pointer of the value, checked
once over the parsed document before anything is built, in one pass that needs no recursion.
README.md's Security section lists them with these defaults.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .errors import SchemaError

MAX_SCHEMA_BYTES = 64 * 1024 * 1024
"""A schema file larger than this is refused before it is parsed."""
MAX_DEPTH = 200
"""How deeply objects and arrays may nest in the schema document."""
MAX_STRING = 1024 * 1024
"""The longest string (description, name, pattern, ...) the schema may hold, in characters."""
MAX_INT_DIGITS = 40
"""The most digits an integer of the schema may have (a 64-bit bound needs 20)."""
MAX_ENUM = 10_000
"""The most members an `enum` may list."""


class _Unreadable:
    """A number JSON spells but Python source cannot hold: NaN, an infinity, a huge integer."""

    def __init__(self, text: str, why: str) -> None:
        self.text = text
        self.why = why


def _number(text: str) -> Any:
    value = float(text)
    if not math.isfinite(value):
        return _Unreadable(text, "is out of range of a 64-bit float")
    return value


def _integer(text: str) -> Any:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        return _Unreadable(text[:20] + "...", f"has more than {MAX_INT_DIGITS} digits")
    return int(text)


def _constant(text: str) -> Any:
    return _Unreadable(text, "is not a JSON number (RFC 8259 has no NaN or Infinity)")


def read_json(raw: bytes, name: str) -> Any:
    """The JSON document in `raw`, every value checked against the bounds above."""
    if len(raw) > MAX_SCHEMA_BYTES:
        raise SchemaError("", f"{name} is larger than {MAX_SCHEMA_BYTES} bytes")
    try:
        document = json.loads(
            raw, parse_float=_number, parse_int=_integer, parse_constant=_constant
        )
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SchemaError("", f"{name} is not JSON: {exc}") from None
    except RecursionError:
        raise SchemaError("", f"{name} nests more deeply than {MAX_DEPTH} levels") from None
    check_values(document)
    return document


def check_values(document: Any) -> None:
    """SchemaError at the first value the generator cannot write as Python, or over a bound."""
    from .schema import escape  # schema imports this module

    stack: list[tuple[Any, str, int]] = [(document, "", 0)]
    while stack:
        node, pointer, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise SchemaError(pointer, f"the schema nests more deeply than {MAX_DEPTH} levels")
        if isinstance(node, _Unreadable):
            raise SchemaError(pointer, f"the number {node.text} {node.why}")
        if isinstance(node, str):
            _check_string(node, pointer)
        elif isinstance(node, dict):
            if isinstance(node.get("enum"), list) and len(node["enum"]) > MAX_ENUM:
                raise SchemaError(
                    pointer + "/enum", f"an enum of more than {MAX_ENUM} members is refused"
                )
            for key, value in node.items():
                child = f"{pointer}/{escape(key)}"
                _check_string(key, child)
                stack.append((value, child, depth + 1))
        elif isinstance(node, list):
            stack.extend((value, f"{pointer}/{i}", depth + 1) for i, value in enumerate(node))


def _check_string(text: str, pointer: str) -> None:
    if len(text) > MAX_STRING:
        raise SchemaError(pointer, f"a string longer than {MAX_STRING} characters is refused")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise SchemaError(
            pointer, "the string holds a lone surrogate (\\ud800-\\udfff), which is not text"
        ) from None


def check_key(wire: str, pointer: str) -> None:
    """SchemaError for a property name msgspec cannot encode or decode by: it writes an object's
    keys into JSON as they are, so a key may hold no `\\`, no `"` and no control character."""
    bad = [ch for ch in wire if ch in '\\"' or ord(ch) < 0x20]
    if bad:
        raise SchemaError(
            pointer,
            f"the property name {wire!r} holds {bad[0]!r}: msgspec takes no backslash, quote or"
            " control character (below U+0020) in a property name",
        )
