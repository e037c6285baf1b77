"""Load a schema file and give read access to its definitions by JSON pointer."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import SchemaError
from .ir import Notice
from .limits import MAX_SCHEMA_BYTES, read_json
from .pointer import escape, unescape

DEFS_PREFIX = "#/$defs/"


@dataclass(frozen=True)
class Schema:
    """A loaded schema document: its defs, its bytes' sha256 and the name it was read from."""

    name: str
    sha256: str
    document: dict[str, Any]
    warnings: tuple[Notice, ...] = ()  # what its values give to think about (see limits.py)

    @property
    def defs(self) -> dict[str, Any]:
        defs: dict[str, Any] = self.document.get("$defs", {})  # `parse` checked it is an object
        return defs

    def node(self, pointer: str) -> Any:
        """The schema node at a JSON pointer, or None where the pointer leads to nothing."""
        node: Any = self.document
        for token in pointer.split("/")[1:]:
            token = unescape(token)
            if isinstance(node, list) and token.isdigit() and int(token) < len(node):
                node = node[int(token)]
            elif isinstance(node, dict) and token in node:
                node = node[token]
            else:
                return None
        return node


def load(path: str | Path) -> Schema:
    """Read and check a schema file; raise SchemaError naming what is wrong."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            raw = f.read(MAX_SCHEMA_BYTES + 1)  # read_json refuses what is longer
    except OSError as exc:
        raise SchemaError("", f"cannot read {path}: {exc.strerror}") from None
    return parse(raw, path.name)


def parse(raw: bytes, name: str) -> Schema:
    document, warnings = read_json(raw, name)
    if not isinstance(document, dict):
        raise SchemaError("", f"{name} is not a JSON Schema: the top level is not an object")
    # A schema without defs is still a schema: its package has no types and no methods.
    defs = document.get("$defs", {})
    if not isinstance(defs, dict):
        raise SchemaError("/$defs", f"$defs must be an object, not {_json_name(type(defs))}")
    for def_name, body in defs.items():
        if not isinstance(body, dict):
            raise SchemaError(pointer_of(def_name), "a definition must be a JSON object")
    schema = Schema(
        name=name, sha256=hashlib.sha256(raw).hexdigest(), document=document, warnings=warnings
    )
    _check_shapes(defs, "/$defs")
    _check_refs(document, "")
    return schema


# The JSON type each schema keyword must have; a schema with another is not a JSON Schema.
_KEYWORD_TYPES: dict[str, tuple[type, ...]] = {
    "$ref": (str,),
    "allOf": (list,),
    "anyOf": (list,),
    "oneOf": (list,),
    "properties": (dict,),
    "required": (list,),
    "items": (dict, bool),
    "additionalProperties": (dict, bool),
    "type": (str, list),
    "enum": (list,),
    "not": (dict, bool),
    "x-method": (str,),
    "x-side": (str,),
    "description": (str,),
    "title": (str,),
    "format": (str,),
    "pattern": (str,),
    "minimum": (int, float),
    "maximum": (int, float),
    "minLength": (int,),
    "maxLength": (int,),
    "minItems": (int,),
    "maxItems": (int,),
}


def _check_shapes(defs: dict[str, Any], pointer: str) -> None:
    """Every schema keyword of every def has the JSON type JSON Schema gives it."""

    def schema_node(node: Any, where: str) -> None:
        if isinstance(node, bool):
            return
        if not isinstance(node, dict):
            raise SchemaError(
                where, f"a schema must be an object or a boolean, not {type(node).__name__}"
            )
        for key, expected in _KEYWORD_TYPES.items():
            if key in node and not isinstance(node[key], expected):
                raise SchemaError(
                    f"{where}/{key}",
                    f"{key} must be {' or '.join(_json_name(t) for t in expected)}",
                )
        for key in ("allOf", "anyOf", "oneOf"):
            for i, sub in enumerate(node.get(key, [])):
                schema_node(sub, f"{where}/{key}/{i}")
        for name, sub in node.get("properties", {}).items():
            schema_node(sub, f"{where}/properties/{escape(name)}")
        for key in ("items", "additionalProperties", "not"):
            if isinstance(node.get(key), dict):
                schema_node(node[key], f"{where}/{key}")
        if any(not isinstance(r, str) for r in node.get("required", [])):
            raise SchemaError(f"{where}/required", "required must list property names")
        if isinstance(node.get("type"), list) and any(not isinstance(t, str) for t in node["type"]):
            raise SchemaError(f"{where}/type", "type must name JSON types")

    for name, body in defs.items():
        schema_node(body, f"{pointer}/{escape(name)}")


def _json_name(t: type) -> str:
    return {
        str: "a string",
        list: "an array",
        dict: "an object",
        bool: "a boolean",
        int: "an integer",
        float: "a number",
        type(None): "null",
    }[t]


def pointer_of(def_name: str, *parts: str | int) -> str:
    """The JSON pointer of a def (and optional parts below it)."""
    tokens = ["$defs", def_name, *map(str, parts)]
    return "/" + "/".join(escape(t) for t in tokens)


def ref_target(ref: Any, pointer: str, defs: dict[str, Any] | None = None) -> str:
    """The def name a `$ref` points at; SchemaError when it is not a local def ref."""
    if not isinstance(ref, str) or not ref.startswith(DEFS_PREFIX):
        raise SchemaError(
            pointer, f"unsupported $ref {ref!r}: only '#/$defs/NAME' refs are understood"
        )
    name = unescape(ref[len(DEFS_PREFIX) :])
    if defs is not None and name not in defs:
        raise SchemaError(pointer, f"$ref {ref!r} does not resolve: no def named {name!r}")
    return name


def _check_refs(node: Any, pointer: str, defs: dict[str, Any] | None = None) -> None:
    """Every `$ref` in the document must resolve to a def."""
    if defs is None:
        defs = node.get("$defs", {})
    if isinstance(node, dict):
        if "$ref" in node:
            ref_target(node["$ref"], pointer + "/$ref", defs)
        for key, value in node.items():
            _check_refs(value, f"{pointer}/{escape(key)}", defs)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            _check_refs(value, f"{pointer}/{index}", defs)
