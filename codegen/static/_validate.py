"""A small JSON Schema 2020-12 validator for the parts of a schema that have no typed form.

The generator gives most schema constructs a typed form that msgspec checks natively. A construct
that has none (`if`/`then`/`else`, `patternProperties`, `not` outside an open union, ...) decodes
as its JSON value, kept as it came, and is checked here against the schema fragment it was
generated from: the value is accepted exactly when the JSON Schema accepts it.

`format` is an annotation in 2020-12 and is not asserted, as in JSON Schema validators by default.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping

import msgspec

__all__ = ["SchemaValidator", "LazySchema", "Invalid", "json_equal"]

_TYPES = ("null", "boolean", "object", "array", "number", "string", "integer")


class Invalid(Exception):
    """A value the schema does not accept: `path` is where (`$.a[0]`), `message` says why."""

    def __init__(self, message: str, path: str = "$") -> None:
        super().__init__(f"{message} - at `{path}`")
        self.message = message
        self.path = path


def _is_type(value: Any, name: str) -> bool:
    if name == "null":
        return value is None
    if name == "boolean":
        return isinstance(value, bool)
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if name == "integer":
        return isinstance(value, int) or (math.isfinite(value) and value == int(value))
    return name == "number"


def json_equal(a: Any, b: Any) -> bool:
    """JSON equality: 1 == 1.0, but true != 1; objects and arrays compared deeply."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and bool(a == b)


def _unescape(token: str) -> str:
    return token.replace("~1", "/").replace("~0", "~")


class SchemaValidator:
    """Validates JSON values against the schema nodes of one document (its `$defs`)."""

    def __init__(self, defs: Mapping[str, Any]) -> None:
        self.document = {"$defs": defs}
        self._patterns: dict[str, re.Pattern[str]] = {}

    def validate(self, node: Any, value: Any) -> None:
        """Raise `Invalid` unless `value` is valid against the schema `node`."""
        self._check(node, value, "$")

    def is_valid(self, node: Any, value: Any) -> bool:
        try:
            self._check(node, value, "$")
        except Invalid:
            return False
        return True

    # ------------------------------------------------------------ the keywords

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise Invalid(f"cannot follow $ref {ref!r}")
        node: Any = self.document
        for token in filter(None, ref[1:].split("/")):
            token = _unescape(token)
            node = node[int(token)] if isinstance(node, list) else node[token]
        return node

    def _check(self, node: Any, value: Any, path: str) -> tuple[set[str], set[int]]:
        """Check one node; return the object keys and array indexes it evaluated."""
        if node is True:
            return set(), set()
        if node is False:
            raise Invalid("no value is allowed here", path)
        keys: set[str] = set()
        items: set[int] = set()
        if "$ref" in node:
            k, i = self._check(self._resolve(node["$ref"]), value, path)
            keys |= k
            items |= i
        self._check_value(node, value, path)
        for sub in node.get("allOf", ()):
            k, i = self._check(sub, value, path)
            keys |= k
            items |= i
        for key in ("anyOf", "oneOf"):
            if key not in node:
                continue
            passed = 0
            first: Invalid | None = None
            for sub in node[key]:
                try:
                    k, i = self._check(sub, value, path)
                except Invalid as exc:
                    first = first or exc
                    continue
                passed += 1
                keys |= k
                items |= i
            if passed == 0:
                raise first or Invalid(f"no branch of {key} matches", path)
            if key == "oneOf" and passed > 1:
                raise Invalid("more than one branch of oneOf matches", path)
        if "not" in node and self.is_valid(node["not"], value):
            raise Invalid("the value matches a schema it must not match", path)
        if "if" in node:
            try:
                k, i = self._check(node["if"], value, path)
            except Invalid:
                if "else" in node:
                    k, i = self._check(node["else"], value, path)
                    keys |= k
                    items |= i
            else:
                keys |= k
                items |= i
                if "then" in node:
                    k, i = self._check(node["then"], value, path)
                    keys |= k
                    items |= i
        if isinstance(value, dict):
            keys |= self._object(node, value, path, keys)
        elif isinstance(value, list):
            items |= self._array(node, value, path, items)
        return keys, items

    def _check_value(self, node: Mapping[str, Any], value: Any, path: str) -> None:
        types = node.get("type")
        if types is not None:
            names = [types] if isinstance(types, str) else types
            if not any(_is_type(value, t) for t in names):
                raise Invalid(f"Expected `{' | '.join(names)}`", path)
        if "const" in node and not json_equal(node["const"], value):
            raise Invalid(f"Expected {node['const']!r}", path)
        if "enum" in node and not any(json_equal(v, value) for v in node["enum"]):
            raise Invalid(f"Invalid enum value {value!r}", path)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            self._number(node, value, path)
        elif isinstance(value, str):
            if "minLength" in node and len(value) < node["minLength"]:
                raise Invalid(f"Expected `str` of length >= {node['minLength']}", path)
            if "maxLength" in node and len(value) > node["maxLength"]:
                raise Invalid(f"Expected `str` of length <= {node['maxLength']}", path)
            if "pattern" in node and not self._pattern(node["pattern"]).search(value):
                raise Invalid(f"Expected `str` matching regex {node['pattern']!r}", path)

    def _number(self, node: Mapping[str, Any], value: float, path: str) -> None:
        if "minimum" in node and value < node["minimum"]:
            raise Invalid(f"Expected a number >= {node['minimum']}", path)
        if "maximum" in node and value > node["maximum"]:
            raise Invalid(f"Expected a number <= {node['maximum']}", path)
        if "exclusiveMinimum" in node and value <= node["exclusiveMinimum"]:
            raise Invalid(f"Expected a number > {node['exclusiveMinimum']}", path)
        if "exclusiveMaximum" in node and value >= node["exclusiveMaximum"]:
            raise Invalid(f"Expected a number < {node['exclusiveMaximum']}", path)
        step = node.get("multipleOf")
        if step is not None:
            quotient = value / step
            if not (math.isfinite(quotient) and quotient == int(quotient)):
                raise Invalid(f"Expected a multiple of {step}", path)

    def _pattern(self, pattern: str) -> re.Pattern[str]:
        compiled = self._patterns.get(pattern)
        if compiled is None:
            compiled = self._patterns[pattern] = re.compile(pattern)
        return compiled

    def _object(
        self, node: Mapping[str, Any], value: dict[str, Any], path: str, seen: set[str]
    ) -> set[str]:
        for key in node.get("required", ()):
            if key not in value:
                raise Invalid(f"Object missing required field `{key}`", path)
        if "minProperties" in node and len(value) < node["minProperties"]:
            raise Invalid(f"Expected an object with at least {node['minProperties']} keys", path)
        if "maxProperties" in node and len(value) > node["maxProperties"]:
            raise Invalid(f"Expected an object with at most {node['maxProperties']} keys", path)
        for key, needed in node.get("dependentRequired", {}).items():
            if key in value:
                for other in needed:
                    if other not in value:
                        raise Invalid(f"Object missing required field `{other}`", path)
        for key, sub in node.get("dependentSchemas", {}).items():
            if key in value:
                self._check(sub, value, path)
        if "propertyNames" in node:
            for key in value:
                self._check(node["propertyNames"], key, f"{path}[{key!r}]")
        evaluated: set[str] = set()
        properties = node.get("properties", {})
        for key, sub in properties.items():
            if key in value:
                self._check(sub, value[key], f"{path}.{key}")
                evaluated.add(key)
        for pattern, sub in node.get("patternProperties", {}).items():
            for key in value:
                if self._pattern(pattern).search(key):
                    self._check(sub, value[key], f"{path}.{key}")
                    evaluated.add(key)
        if "additionalProperties" in node:
            for key in value:
                if key not in evaluated:
                    if node["additionalProperties"] is False:
                        raise Invalid(f"Object contains unknown field `{key}`", path)
                    self._check(node["additionalProperties"], value[key], f"{path}.{key}")
            evaluated |= set(value)
        if "unevaluatedProperties" in node:
            for key in value:
                if key not in evaluated and key not in seen:
                    if node["unevaluatedProperties"] is False:
                        raise Invalid(f"Object contains unknown field `{key}`", path)
                    self._check(node["unevaluatedProperties"], value[key], f"{path}.{key}")
            evaluated |= set(value)
        return evaluated

    def _array(
        self, node: Mapping[str, Any], value: list[Any], path: str, seen: set[int]
    ) -> set[int]:
        if "minItems" in node and len(value) < node["minItems"]:
            raise Invalid(f"Expected `array` of length >= {node['minItems']}", path)
        if "maxItems" in node and len(value) > node["maxItems"]:
            raise Invalid(f"Expected `array` of length <= {node['maxItems']}", path)
        if node.get("uniqueItems") is True:
            for i, item in enumerate(value):
                if any(json_equal(item, other) for other in value[:i]):
                    raise Invalid("Expected `array` of unique items", f"{path}[{i}]")
        evaluated: set[int] = set()
        prefix = node.get("prefixItems", ())
        for i, sub in enumerate(prefix[: len(value)]):
            self._check(sub, value[i], f"{path}[{i}]")
            evaluated.add(i)
        if "items" in node:
            for i in range(len(prefix), len(value)):
                self._check(node["items"], value[i], f"{path}[{i}]")
            evaluated |= set(range(len(value)))
        if "contains" in node:
            matches = {i for i, item in enumerate(value) if self.is_valid(node["contains"], item)}
            low, high = node.get("minContains", 1), node.get("maxContains")
            if len(matches) < low:
                raise Invalid(f"Expected at least {low} matching items", path)
            if high is not None and len(matches) > high:
                raise Invalid(f"Expected at most {high} matching items", path)
            evaluated |= matches
        if "unevaluatedItems" in node:
            for i in range(len(value)):
                if i not in evaluated and i not in seen:
                    self._check(node["unevaluatedItems"], value[i], f"{path}[{i}]")
            evaluated |= set(range(len(value)))
        return evaluated


class LazySchema:
    """The schema nodes a package validates values against, by JSON pointer, with the defs they
    refer to; the JSON is decoded on first use, so importing the package stays cheap."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._nodes: dict[str, Any] | None = None
        self._validator: SchemaValidator | None = None

    def node(self, pointer: str) -> Any:
        if self._nodes is None:
            document: dict[str, Any] = msgspec.json.decode(self._data)
            nodes: dict[str, Any] = document["nodes"]
            self._validator = SchemaValidator(document["defs"])
            self._nodes = nodes
        return self._nodes[pointer]

    def validate(self, pointer: str, value: Any) -> None:
        """Raise `Invalid` unless the node at `pointer` accepts `value`."""
        node = self.node(pointer)
        assert self._validator is not None
        self._validator.validate(node, value)
