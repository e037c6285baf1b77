"""Deterministic JSON instances of a JSON Schema (draft 2020-12) def, for differential tests and
for `acpgen diff --prove`.

    valid_instances(schema, def_name, *, count, seed, stats=None) -> list[Any]
    valid_instances_with_defaults(schema, def_name, *, count, seed) -> list[tuple[Any, dict]]
    mutated_instances(schema, def_name, *, count, seed) -> list[tuple[Any, str]]
    mutations(schema, def_name, *, count, seed) -> list[Mutation]   # with paths and leniency marks
    instances_with_refs(schema, def_name, *, count, seed) -> list[tuple[Any, dict]]  # defs' places

`schema` is a whole document with `$defs`. Values are made by walking the def with a seeded
`random.Random` ($ref, allOf merged, one anyOf/oneOf branch picked, const, enum, type lists,
properties, additionalProperties, items, min/maxItems, uniqueItems, integer formats,
minimum/maximum, min/maxLength, pattern, contentEncoding, not), then checked with
Draft202012Validator.
Optional properties appear with a per-instance probability (first instance: required ones only;
second: nearly all); extra keys only where `additionalProperties` is explicit; numbers are
floats, integers ints within their format's range; strings mix ASCII, JSON escapes and
non-ASCII (never lone surrogates). Past MAX_DEPTH: required properties only, shortest arrays,
null where allowed, so recursive defs end.
"""

from __future__ import annotations

import base64
import copy
import dataclasses
import functools
import itertools
import json
import operator
import random
import re
import string
from collections.abc import Iterator
from typing import Any

from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

Obj = dict[str, Any]  # a JSON object, a schema node
Where = tuple[Any, ...]  # a path in an instance: keys and indexes

MAX_DEPTH = 5  # past it: no optional properties, minimal arrays, null where allowed
HARD_DEPTH = 40  # past it: give the instance up (a required cycle without a way out)
ATTEMPTS = 8  # tries per node to satisfy oneOf / not, per instance to satisfy the validator
MAX_VALUES = 5_000  # values (of any kind) in one drawn instance: past it, the try is given up

INT_RANGES = {
    f"{u}int{bits}": (0, 2**bits - 1) if u else (-(2 ** (bits - 1)), 2 ** (bits - 1) - 1)
    for u in ("", "u")
    for bits in (8, 16, 32, 64)
}
DEFAULT_INT_RANGE = (-(2**53), 2**53)  # integers without format: exact in any JSON reader
CHARS = string.ascii_letters + string.digits + " _-./:" + '"\\\n\t\x00' + "éßΩ中文😀\U0010fffd"
SAMPLES: dict[str, Any] = {
    "null": None,
    "boolean": True,
    "integer": 7,
    "number": 1.5,
    "string": "x",
    "array": [],
    "object": {},
}
LENIENT_DEFAULT = "x-deserialize-default-on-error"  # a bad value here may become the default
LENIENT_ITEMS = "x-deserialize-skip-invalid-items"  # bad items of this array may be dropped
LENIENT_NULL = "x-deserialize-default-on-null"  # a null here may become the default
OWN_KEYWORDS = {
    "type",
    "const",
    "enum",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "contentEncoding",
    "uniqueItems",
    LENIENT_DEFAULT,
    LENIENT_ITEMS,
    LENIENT_NULL,
}
# ^ kept by flatten; the combinators are resolved


class GiveUp(Exception):
    """This try cannot give a valid value: contradictory constraints, unknown pattern, too deep."""


class Capped(GiveUp):
    """This try would hold more than MAX_VALUES values (`$ref` fan-out of required fields)."""


def _raise(exc: Exception) -> Any:
    raise exc


def _types(schema: Obj) -> list[str]:
    t = schema.get("type", [])
    return [t] if isinstance(t, str) else list(t)


def _merge(a: Obj, b: Obj) -> Obj:
    """The conjunction of two flat schemas (no $ref/allOf/anyOf/oneOf left in them)."""
    out = dict(a)
    for key, v in b.items():
        if key not in out:
            out[key] = v
            continue
        w = out[key]
        if key == "properties":
            out[key] = {**w, **{p: {"allOf": [w[p], s]} if p in w else s for p, s in v.items()}}
        elif key == "required":
            out[key] = list(dict.fromkeys(w + v))
        elif key in ("checks", "refs"):
            out[key] = w + v
        elif key == "type":  # an integer is a number too
            ta, tb = _types(out), _types(b)
            both = [
                t
                for t in dict.fromkeys(ta + tb)
                if all(t in ts or t == "integer" and "number" in ts for ts in (ta, tb))
            ]
            out[key] = both or _raise(GiveUp(f"types {ta} and {tb}"))
        elif key == "const" and w != v:
            raise GiveUp(f"consts {w!r} and {v!r}")
        elif key == "enum":
            out[key] = [x for x in w if x in v] or _raise(GiveUp("disjoint enums"))
        elif key in ("minimum", "minItems", "minLength"):
            out[key] = max(w, v)
        elif key in ("maximum", "maxItems", "maxLength"):
            out[key] = min(w, v)
        elif key in ("items", "additionalProperties"):
            out[key] = False if False in (w, v) else {"allOf": [w, v]}
    return out


class _Generator:
    """One walk of the schema; `sites` records (path, flat schema) of every generated value."""

    def __init__(self, schema: Obj, rng: random.Random) -> None:
        self.defs = schema["$defs"]
        self.rng = rng
        self.sites: list[tuple[Where, Obj]] = []
        self.density = 0.5  # probability that an optional property is present
        self.values = 0  # values drawn so far, bounded by MAX_VALUES
        self._validators: dict[int, Draft202012Validator] = {}

    def matches(self, sub: Any, value: Any) -> bool:
        if id(sub) not in self._validators:
            self._validators[id(sub)] = Draft202012Validator({"allOf": [sub], "$defs": self.defs})
        return bool(self._validators[id(sub)].is_valid(value))

    def flatten(self, node: Any, depth: int) -> Obj:
        """Merge $ref, allOf and one picked anyOf/oneOf branch into one flat schema.

        oneOf and not cannot be decided before the value exists: they go to `checks`.
        """
        if node is True or node is False:
            return {} if node else _raise(GiveUp("false schema"))
        flat = {k: v for k, v in node.items() if k in OWN_KEYWORDS}
        if "$ref" in node:
            name = node["$ref"].rsplit("/", 1)[-1]
            flat = _merge(_merge(flat, {"refs": [name]}), self.flatten(self.defs[name], depth))
        for sub in node.get("allOf", []):
            flat = _merge(flat, self.flatten(sub, depth))
        for key in ("anyOf", "oneOf"):
            if key in node:
                flat = self.pick(flat, node[key], depth)
        checks = [("oneOf", node["oneOf"])] if "oneOf" in node else []
        checks += [("not", node["not"])] if "not" in node else []
        return _merge(flat, {"checks": checks}) if checks else flat

    def pick(self, flat: Obj, branches: list[Any], depth: int) -> Obj:
        """Merge `flat` with a random branch not contradicting it (null ones first when deep)."""
        order = list(branches)
        self.rng.shuffle(order)
        if depth >= MAX_DEPTH:
            order.sort(key=lambda b: not (isinstance(b, dict) and b.get("type") == "null"))
        for branch in order:
            try:
                return _merge(flat, self.flatten(branch, depth))
            except GiveUp:
                continue
        raise GiveUp("no branch fits")

    def gen(self, node: Any, depth: int, path: Where) -> Any:
        """A value for `node` at `path`, retried until its oneOf/not checks hold."""
        if depth > HARD_DEPTH:
            raise GiveUp(f"deeper than {HARD_DEPTH} at {path}")
        self.values += 1
        if self.values > MAX_VALUES:
            raise Capped(f"more than {MAX_VALUES} values")
        flat: Obj = {}
        value: Any = None
        for _ in range(ATTEMPTS):
            mark = len(self.sites)
            flat = self.flatten(node, depth)
            value = self.value(flat, depth, path)
            if all(
                (
                    not self.matches(sub, value)
                    if kind == "not"
                    else sum(self.matches(branch, value) for branch in sub) == 1
                )  # oneOf
                for kind, sub in flat.get("checks", [])
            ):
                break
            del self.sites[mark:]
        self.sites.append((path, flat))
        return value

    def value(self, flat: Obj, depth: int, path: Where) -> Any:
        """A value for a flat schema (its checks aside)."""
        if "const" in flat:
            return copy.deepcopy(flat["const"])
        if "enum" in flat:
            return copy.deepcopy(self.rng.choice(flat["enum"]))
        types = _types(flat)
        if not types:
            if not {"properties", "required", "additionalProperties"} & set(flat):
                return self.any_json(depth)
            types = ["object"]
        if "null" in types and (depth >= MAX_DEPTH or len(types) == 1 or self.rng.random() < 0.2):
            return None
        kind = self.rng.choice([t for t in types if t != "null"])
        if kind == "boolean":
            return self.rng.random() < 0.5
        return getattr(self, "gen_" + kind)(flat, depth, path)

    def gen_object(self, flat: Obj, depth: int, path: Where) -> Obj:
        props, required = flat.get("properties", {}), flat.get("required", [])
        density = self.density if depth < MAX_DEPTH else 0.0
        out = {}
        for name, sub in props.items():
            if name in required or self.rng.random() < density:
                out[name] = self.gen(sub, depth + 1, path + (name,))
        for name in required:
            if name not in out:
                out[name] = self.any_json(depth + 1)
        extra = flat.get("additionalProperties")
        if extra not in (None, False) and depth < MAX_DEPTH:
            for _ in range(self.rng.choice([0, 0, 1, 2])):
                key = self.text(1, 8)
                if key not in props and key not in out:
                    out[key] = (
                        self.any_json(depth + 1)
                        if extra is True
                        else self.gen(extra, depth + 1, path + (key,))
                    )
        return out

    def gen_array(self, flat: Obj, depth: int, path: Where) -> list[Any]:
        lo = flat.get("minItems", 0)
        hi = lo if depth >= MAX_DEPTH else min(flat.get("maxItems", lo + 3), lo + 3)
        items = flat.get("items", True)
        out: list[Any] = []
        seen: set[str] = set()
        for _ in range(self.rng.randint(lo, hi)):
            mark = len(self.sites)
            item = self.gen(items, depth + 1, path + (len(out),))
            key = json.dumps(item, sort_keys=True)
            if flat.get("uniqueItems") and key in seen:
                del self.sites[mark:]  # a duplicate: drop it with its sites
                continue
            seen.add(key)
            out.append(item)
        return out

    def gen_string(self, flat: Obj, depth: int, path: Where) -> str:
        if "pattern" in flat:
            try:
                return pattern_string(flat["pattern"], self.rng)
            except ValueError as exc:
                raise GiveUp(str(exc)) from None
        if flat.get("contentEncoding") == "base64":
            return base64.b64encode(self.rng.randbytes(self.rng.randint(0, 12))).decode()
        fmt, r = flat.get("format"), self.rng
        if fmt == "uri":
            scheme = r.choice(["https://example.com/", "file:///home/user/", "urn:x:"])
            return scheme + self.text(0, 8, string.ascii_lowercase)
        if fmt == "date-time":
            y, mo, d, h, mi, sec = (
                r.randint(2000, 2099),
                r.randint(1, 12),
                r.randint(1, 28),
                r.randint(0, 23),
                r.randint(0, 59),
                r.randint(0, 59),
            )
            return f"{y}-{mo:02}-{d:02}T{h:02}:{mi:02}:{sec:02}Z"
        if fmt == "regex":
            return r.choice(["^a+$", ".*", "[0-9]{2,4}", "foo|bar"])
        lo = flat.get("minLength", 0)
        return self.text(lo, max(lo, min(flat.get("maxLength", lo + 12), lo + 12)))

    def gen_integer(self, flat: Obj, depth: int, path: Where) -> int:
        lo, hi = INT_RANGES.get(flat.get("format", ""), DEFAULT_INT_RANGE)
        lo, hi = max(lo, int(flat.get("minimum", lo))), min(hi, int(flat.get("maximum", hi)))
        if lo > hi:
            raise GiveUp(f"empty integer range {lo}..{hi}")
        small = self.rng.randint(max(lo, -100), min(hi, 100)) if lo <= 100 and hi >= -100 else lo
        return self.rng.choice([lo, hi, small, small, self.rng.randint(lo, hi)])

    def gen_number(self, flat: Obj, depth: int, path: Where) -> float:
        lo, hi = float(flat.get("minimum", -1e6)), float(flat.get("maximum", 1e6))
        x = self.rng.uniform(lo, hi)
        return self.rng.choice([lo, hi, x, round(x, 2)]) + 0.0  # floats only, never NaN/inf

    def text(self, lo: int, hi: int, alphabet: str = CHARS) -> str:
        return "".join(self.rng.choice(alphabet) for _ in range(self.rng.randint(lo, hi)))

    def any_json(self, depth: int) -> Any:
        """Any JSON value (for `{}` / `true` schemas), smaller the deeper."""
        kind = self.rng.choice(
            ["null", "boolean", "integer", "number", "string"]
            + (["array", "object"] if depth < MAX_DEPTH else [])
        )
        if kind == "array":
            return [self.any_json(depth + 1) for _ in range(self.rng.randint(0, 2))]
        if kind == "object":
            return {
                self.text(1, 6): self.any_json(depth + 1) for _ in range(self.rng.randint(0, 2))
            }
        return self.value({"type": kind}, depth, ())


def pattern_string(pattern: str, rng: random.Random) -> str:
    """A string matching a simple regex: literals and [classes] with ranges, each optionally
    repeated by {n}, {n,m}, ?, * or +, and ^/$ anchors. ValueError for anything else."""
    out = []
    for atom, rep in re.findall(r"(\[[^\]]*\]|\\.|[^^$])(\{\d+(?:,\d*)?\}|[?*+])?", pattern):
        chars = atom[-1]
        if atom.startswith("["):
            span = lambda m: "".join(map(chr, range(ord(m[1]), ord(m[2]) + 1)))  # noqa: E731
            chars = re.sub(r"(.)-(.)", span, atom[1:-1])
        if rep.startswith("{"):
            lo, comma, hi = rep[1:-1].partition(",")
            lo, hi = int(lo), int(hi) if hi else int(lo) + 3 if comma else int(lo)
        else:
            lo, hi = {"?": (0, 1), "*": (0, 3), "+": (1, 4), "": (1, 1)}[rep]
        out += [rng.choice(chars) for _ in range(rng.randint(lo, hi))]
    if not re.search(pattern, "".join(out)):
        raise ValueError(f"cannot make a string for the pattern {pattern!r}")
    return "".join(out)


def _validator(schema: Obj, def_name: str) -> Draft202012Validator:
    return Draft202012Validator({"$ref": f"#/$defs/{def_name}", "$defs": schema["$defs"]})


def _instances(
    schema: Obj, def_name: str, rng: random.Random, count: int, stats: Obj
) -> Iterator[tuple[Any, list[tuple[Where, Obj]]]]:
    """Yield (instance, sites) from count*ATTEMPTS tries at most; count failures in stats."""
    validator = _validator(schema, def_name)
    stats.setdefault("dropped", 0)
    stats.setdefault("capped", 0)
    for i in range(count * ATTEMPTS):
        gen = _Generator(schema, rng)
        gen.density = [0.0, 0.9][i] if i < 2 else rng.random()
        value: Any = None
        try:
            value = gen.gen({"$ref": f"#/$defs/{def_name}"}, 0, ())
            ok = validator.is_valid(value)
        except Capped:
            ok = False
            stats["capped"] += 1
        except (GiveUp, RecursionError):
            ok = False
        if ok:
            yield value, gen.sites
        else:
            stats["dropped"] += 1


def valid_instances(
    schema: Obj, def_name: str, *, count: int, seed: int, stats: Obj | None = None
) -> list[Any]:
    """Up to `count` JSON values that the validator accepts for `#/$defs/def_name`.

    Fewer only when too many of the `count * ATTEMPTS` tries fail; pass a dict as `stats` to
    get the number of tries dropped because the validator rejected them (`stats["dropped"]`).
    """
    tries = _instances(schema, def_name, random.Random(seed), count, {} if stats is None else stats)
    return [value for value, _ in itertools.islice(tries, count)]


def valid_instances_with_defaults(
    schema: Obj, def_name: str, *, count: int, seed: int
) -> list[tuple[Any, dict[Where, dict[str, Any]]]]:
    """`valid_instances` (the same values for the same seed), each with the schema defaults of its
    objects' properties: {path of an object in the instance: {property name: default}}."""
    tries = _instances(schema, def_name, random.Random(seed), count, {})
    return [(value, _defaults(sites)) for value, sites in itertools.islice(tries, count)]


def instances_with_refs(
    schema: Obj, def_name: str, *, count: int, seed: int, stats: Obj | None = None
) -> list[tuple[Any, dict[str, list[Where]]]]:
    """`valid_instances` (the same values for the same seed), each with where the defs are in it:
    {def name: the paths of the values drawn from that def (through a `$ref`)}. `stats` counts
    the tries dropped, and those given up at MAX_VALUES (`stats["capped"]`)."""
    tries = _instances(schema, def_name, random.Random(seed), count, {} if stats is None else stats)
    return [(value, _refs(sites)) for value, sites in itertools.islice(tries, count)]


def _refs(sites: list[tuple[Where, Obj]]) -> dict[str, list[Where]]:
    out: dict[str, list[Where]] = {}
    for path, flat in sites:
        for name in dict.fromkeys(flat.get("refs", ())):
            out.setdefault(name, []).append(path)
    return out


def _defaults(sites: list[tuple[Where, Obj]]) -> dict[Where, dict[str, Any]]:
    return {
        path: {
            name: sub["default"]
            for name, sub in flat["properties"].items()
            if isinstance(sub, dict) and "default" in sub
        }
        for path, flat in sites
        if isinstance(flat.get("properties"), dict)
    }


_DELETE = object()  # mutation "change" that removes the key at the path
_TYPE_NAMES = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}


def _mutations(value: Any, flat: Obj, path: Where) -> list[tuple[str, str, Where, Any]]:
    """(category, description, path, new value or _DELETE) for the value at one site."""
    out = []
    types = _types(flat) or ([_TYPE_NAMES[type(flat["const"])]] if "const" in flat else [])
    if isinstance(value, dict):
        out += [
            ("drop", "drop required field", path + (k,), _DELETE)
            for k in flat.get("required", [])
            if k in value
        ]
    if isinstance(value, dict) and flat.get("additionalProperties") is False:
        declared = flat.get("properties", {})
        extra = next(k for k in ("extra", "extra_", "extra__") if k not in declared)
        desc = "unknown key where additionalProperties is false"
        out.append(("closed", desc, path + (extra,), 1))
    if isinstance(value, list) and value and flat.get("uniqueItems"):
        out.append(("unique", "duplicate item where uniqueItems", path, value + [value[0]]))
    if isinstance(value, list):
        out += [
            ("item", f"array item of wrong type ({_TYPE_NAMES[type(x)]})", path, value + [x])
            for x in (None, 12345, "x", {"k": 1})
        ]
    for t, sample in SAMPLES.items():
        if types and t not in types and not (t == "integer" and "number" in types):
            out.append(
                ("null", "null where not nullable", path, None)
                if t == "null"
                else ("type", f"wrong JSON type ({t} for {'/'.join(types)})", path, sample)
            )
    if "const" in flat:
        c = flat["const"]
        out.append(
            (
                "const",
                f"unknown const/tag value instead of {c!r}",
                path,
                f"{c}_unknown" if isinstance(c, str) else "unknown",
            )
        )
    if "enum" in flat:
        out.append(("enum", "value outside the enum", path, "__not_in_enum__"))
    number = "integer" if "integer" in types else "number"
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        for key, delta in (("minimum", -1), ("maximum", 1)):
            if key in flat:
                bound = int(flat[key]) + delta if number == "integer" else float(flat[key] + delta)
                out.append(("range", f"out-of-range {number} ({key} {flat[key]})", path, bound))
    if flat.get("minLength"):
        out.append(("string", "string shorter than minLength", path, ""))
    if "pattern" in flat:
        out.append(("string", f"string not matching {flat['pattern']!r}", path, "!not-matching!"))
    return out


def _apply(instance: Any, path: Where, change: Any) -> Any:
    """A deep copy of instance with the value at path replaced by change (or deleted)."""
    root = [copy.deepcopy(instance)]  # so that the instance itself has a parent
    parent, key = root, 0
    for step in path:
        parent, key = parent[key], step
    if change is _DELETE:
        del parent[key]
    else:
        parent[key] = copy.deepcopy(change)
    return root[0]


@dataclasses.dataclass(frozen=True)
class Mutation:
    """An instance the validator rejects: a valid one with one change at `path`.

    `marked` holds the paths, in that valid instance, of values whose schema carries a leniency
    mark (`x-deserialize-default-on-error` / `x-deserialize-skip-invalid-items` /
    `x-deserialize-default-on-null`), with the mark.
    """

    instance: Any
    description: str
    path: Where
    marked: tuple[tuple[Where, str], ...]
    defaults: dict[Where, Obj] = dataclasses.field(
        default_factory=dict
    )  # as in valid_instances_with_defaults


def mutated_instances(
    schema: Obj, def_name: str, *, count: int, seed: int
) -> list[tuple[Any, str]]:
    """Up to `count` distinct (instance, description) pairs that the validator rejects: see
    `mutations`."""
    found = mutations(schema, def_name, count=count, seed=seed)
    return [(m.instance, m.description) for m in found]


def mutations(
    schema: Obj, def_name: str, *, count: int, seed: int, per_base: int | None = None
) -> list[Mutation]:
    """Up to `count` distinct mutations of valid instances that the validator rejects.

    Each is a valid instance with one mutation at one place: drop a required field, wrong JSON
    type, null where not nullable, unknown const/tag or enum value, out-of-range number, array
    item of wrong type, duplicate item of a uniqueItems array, unknown key of a closed object
    (additionalProperties: false), string too short / not matching its pattern. The kinds are
    taken in turn, so a small count still mixes them. Mutations that the schema still accepts
    (an open union's catch-all variant, another anyOf branch...) are left out; a def that
    accepts every JSON value yields none. With `per_base`, at most that many come from one valid
    instance, so that a small count still reaches the optional fields of the fuller instances.
    """
    rng = random.Random(seed)
    validator = _validator(schema, def_name)
    out: list[Mutation] = []
    seen: set[str] = set()
    bases = max(2, count // 2) if per_base is None else max(2, -(-count // per_base))
    for base, sites in _instances(schema, def_name, rng, bases, {}):
        taken = 0
        marked = tuple(
            (path, mark)
            for path, flat in sites
            for mark in (LENIENT_DEFAULT, LENIENT_ITEMS, LENIENT_NULL)
            if flat.get(mark) is True
        )
        by_kind: dict[str, list[Any]] = {}
        for path, flat in sites:
            for kind, *rest in _mutations(
                functools.reduce(operator.getitem, path, base), flat, path
            ):
                by_kind.setdefault(kind, []).append(rest)
        groups = [rng.sample(g, len(g)) for g in rng.sample(list(by_kind.values()), len(by_kind))]
        in_turn = [
            g[i] for i in range(max(map(len, groups), default=0)) for g in groups if i < len(g)
        ]
        for desc, path, change in in_turn:
            mutated = _apply(base, path, change)
            key = json.dumps(mutated, sort_keys=True)
            if key not in seen and not validator.is_valid(mutated):
                seen.add(key)
                where = "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)
                out.append(Mutation(mutated, f"{desc} at {where}", path, marked, _defaults(sites)))
                taken += 1
                if len(out) == count:
                    return out
                if taken == per_base:
                    break
    return out
