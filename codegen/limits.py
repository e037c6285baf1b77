"""The bounds of what the generator reads, and the JSON values it cannot turn into Python.

Every bound here is a refusal (SchemaError, exit 2) naming the JSON pointer of the value, checked
once over the parsed document before anything is built, in one pass that needs no recursion.
README.md's Security section lists them with these defaults.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from .errors import SchemaError
from .ir import Notice
from .pointer import escape

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
INT64 = (-(2**63), 2**63 - 1)
"""The integers msgspec takes as enum values, consts and exclusive bounds of an integer."""
_NAME_MAPS = ("$defs", "definitions", "properties", "patternProperties", "dependentSchemas")
_VALUES = ("const", "enum", "default", "examples")  # JSON values, not schemas
_LENGTHS = ("minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties")


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


def read_json(raw: bytes, name: str) -> tuple[Any, tuple[Notice, ...]]:
    """The JSON document in `raw`, every value checked against the bounds above, and the warnings
    its values give (a `pattern` that may backtrack catastrophically)."""
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
    return document, tuple(check_values(document))


def check_values(document: Any) -> list[Notice]:
    """SchemaError at the first value the generator cannot write as Python, or over a bound; the
    warnings of the others."""
    warnings: list[Notice] = []
    # (node, pointer, depth, what it is): "schema", "names" (property name -> schema) or "value"
    stack: list[tuple[Any, str, int, str]] = [(document, "", 0, "schema")]
    while stack:
        node, pointer, depth, kind = stack.pop()
        if depth > MAX_DEPTH:
            raise SchemaError(pointer, f"the schema nests more deeply than {MAX_DEPTH} levels")
        if isinstance(node, _Unreadable):
            raise SchemaError(pointer, f"the number {node.text} {node.why}")
        if isinstance(node, str):
            _check_string(node, pointer)
        elif isinstance(node, dict):
            if kind == "schema":
                warnings += _keywords(node, pointer)
            for key, value in node.items():
                child = f"{pointer}/{escape(key)}"
                _check_string(key, child)
                inner = "schema" if kind == "names" else "value"
                if kind == "schema":
                    inner = "names" if key in _NAME_MAPS else "value" if key in _VALUES else kind
                stack.append((value, child, depth + 1, inner))
        elif isinstance(node, list):
            stack.extend((value, f"{pointer}/{i}", depth + 1, kind) for i, value in enumerate(node))
    return warnings


def _keywords(node: dict[str, Any], pointer: str) -> list[Notice]:
    """The keywords of a schema node whose values msgspec (or Python's `re`) cannot take."""
    enum = node.get("enum")
    if isinstance(enum, list):
        if len(enum) > MAX_ENUM:
            raise SchemaError(
                pointer + "/enum", f"an enum of more than {MAX_ENUM} members is refused"
            )
        for i, v in enumerate(enum):
            _int64(v, f"{pointer}/enum/{i}", "an enum value")
    if "const" in node:
        _int64(node["const"], pointer + "/const", "a const")
    multiple = node.get("multipleOf")
    if isinstance(multiple, (int, float)) and not isinstance(multiple, bool) and multiple <= 0:
        raise SchemaError(pointer + "/multipleOf", "multipleOf must be greater than 0")
    for key in _LENGTHS:
        v = node.get(key)
        if key in node and (not isinstance(v, int) or isinstance(v, bool) or v < 0):
            raise SchemaError(f"{pointer}/{key}", f"{key} must be a non-negative integer")
        if isinstance(v, int) and v > INT64[1]:
            raise SchemaError(f"{pointer}/{key}", f"{key} must fit a 64-bit integer")
    kinds = node.get("type")
    if kinds == "integer" or isinstance(kinds, list) and "integer" in kinds:
        for key in ("exclusiveMinimum", "exclusiveMaximum"):
            if key in node:
                _int64(node[key], f"{pointer}/{key}", f"{key} of an integer")
    pattern = node.get("pattern")
    if not isinstance(pattern, str):
        return []
    try:
        re.compile(pattern)
    except re.error as exc:
        raise SchemaError(pointer + "/pattern", f"not a valid regular expression: {exc}") from None
    if backtracks(pattern):
        return [
            Notice(
                pointer + "/pattern",
                f"the pattern {pattern!r} repeats a repetition: matching it may take time"
                " exponential in the length of the string (Python's re backtracks)",
            )
        ]
    return []


def _int64(v: Any, pointer: str, what: str) -> None:
    if isinstance(v, int) and not isinstance(v, bool) and not INT64[0] <= v <= INT64[1]:
        raise SchemaError(pointer, f"{what} must fit a 64-bit signed integer (msgspec's limit)")


def backtracks(pattern: str) -> bool:
    """Whether a regular expression repeats a group that holds a repetition itself (`(a+)+`,
    `(\\w*)*`, `(a|b+){2,}`): the shape whose matching backtracks exponentially. A heuristic: it
    reads groups, escapes and character classes, not what the branches can match."""
    groups: list[bool] = []  # per open group: whether it holds a repetition
    repeated = False  # whether what was just closed held one
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        quantifier = ch in "*+" or ch == "{" and re.match(r"\{\d*,?\d*\}", pattern[i:]) is not None
        if ch == "\\":
            i += 2
            repeated = False
            continue
        if ch == "[":
            end = i + 1
            end += pattern[end : end + 1] == "^"
            end += pattern[end : end + 1] == "]"
            while end < len(pattern) and pattern[end] != "]":
                end += 1 + (pattern[end] == "\\")
            i = end + 1
            repeated = False
            continue
        if ch == "(":
            groups.append(False)
            repeated = False
        elif ch == ")":
            repeated = groups.pop() if groups else False
            i += 1
            if i < len(pattern) and (
                pattern[i] in "*+"
                or pattern[i] == "{"
                and re.match(r"\{\d*,\d*\}", pattern[i:]) is not None
            ):
                if repeated:
                    return True
                if groups:
                    groups[-1] = True
            elif repeated and groups:
                groups[-1] = True
            continue
        elif quantifier and groups:
            groups[-1] = True
            repeated = False
        i += 1
    return False


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
