"""Does the package generated from a schema agree with jsonschema? The differential of issue 9.

    disagreements(doc, root, *, count, seed) -> list[Disagreement]

`doc` is a whole schema document (a dict). Its package is generated with the pipeline into `root`
(on sys.path) under a name unique to the document, imported, and then, for every def that is
not a JSON-RPC envelope (`x-docs-ignore: true`, not generated as a type by design):

- every instance that jsonschema accepts (`valid_instances`) decodes with `decode(data, Type)`;
  its re-encoding is valid, and equal to the input as JSON values (`same_json`): a round trip
  keeps every field that was sent, including one equal to its schema default or null. The
  normalisations allowed are JSON's own (key order, whitespace, escapes, how a number is written:
  `1.0` vs `1`, but `true` is never `1`) and one of the schema's: a property the sender left out
  may come back with its schema `default` (`without_added_defaults`);
- every instance that jsonschema rejects (`mutations`) is rejected with `msgspec.ValidationError`,
  unless the schema marks a place lenient (`x-deserialize-*`) around the mutation: then the value
  may decode, but its re-encoding must be valid, and it may differ from the input only under a
  marked place that holds the mutation (leniency stays where the mark is). A default-on-null mark
  holds only a null at its own place, and the null must come back as the default: left out (or the
  schema `default`), or the type's own empty value;
- `acpgen diff` reads the schema too (it compares it with itself, exit 0);
- every method: a request (or notification) made of a valid params instance decodes with
  `decode_message` on the receiving side into a `Request` (`Notification`) of that method whose
  params round-trip; a request made of an invalid one (other than `null`, which the envelopes
  allow) is refused with an `RpcError` of code -32602 (or repaired as above); a response of a
  valid result instance (`null` when the schema gives the method no response def) decodes on the
  other side with `result_type` from `METHODS`; the receiving side's handler class has the method,
  and the proxy to that side sends it (as `peer.request(wire, params, METHODS[wire].result)` or
  `peer.notify(wire, params)`). A method of x-side `proxy` is received by the proxy side only: the
  agent and client sides answer its requests -32601 (method not found), and their handler classes
  lack it; a def with x-method and no x-side is received by every side.

Anything the generator raises, or a package that does not import, is a disagreement too. Integers
outside their `format` range are left out of the valid instances (msgspec reads the integer formats
as ranges; jsonschema ignores `format`), as in tests/codegen/test_differential.py.

Run `python -m tests.support.agreement [--seed N] SCHEMA.json` (or `-` to read stdin) to print
the disagreements of one schema (N picks the instances; the property test uses PROPTEST_SEED).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import importlib
import io
import json
import re
import sys
import tempfile
import traceback
from pathlib import Path
from types import ModuleType
from typing import Any, Iterator
from unittest import mock

import msgspec
from jsonschema import Draft202012Validator, ValidationError, validators

from acpgen.instances import (
    INT_RANGES,
    LENIENT_NULL,
    Mutation,
    mutations,
    valid_instances_with_defaults,
)
from acpgen.pipeline import generate_files
from acpgen.shadow import def_name as python_name
from acpgen.write import write_package

KINDS = (
    "generate",
    "import",
    "diff",
    "missing type",
    "valid rejected",
    "invalid output",
    "round trip",
    "invalid accepted",
    "leniency spread",
    "crash",
    "message",
    "stubs",
)
"""Disagreement kinds, most basic first."""


@dataclasses.dataclass(frozen=True)
class Disagreement:
    kind: str  # one of KINDS
    where: str  # the def or method
    detail: str

    def __str__(self) -> str:
        return f"[{self.kind}] {self.where}: {self.detail}"

    @property
    def signature(self) -> str:
        """The kind, plus for errors raised by the generator or package their message without
        pointers, names and values: one failure class per signature."""
        if self.kind not in ("generate", "import", "diff", "crash", "message", "stubs"):
            return self.kind
        msg = re.sub(r"/\$defs/\S*", "", self.detail)
        msg = re.sub(r"'[^']*'|\"[^\"]*\"|\{.*|\d+", "_", msg)
        return f"{self.kind}: {msg[:80]}"


def _format_range(
    validator: Any, fmt_: Any, instance: Any, schema: dict
) -> Iterator[ValidationError]:
    if isinstance(fmt_, str) and fmt_ in INT_RANGES and type(instance) is int:
        lo, hi = INT_RANGES[fmt_]
        if not lo <= instance <= hi:
            yield ValidationError(f"{instance} is outside {fmt_}")


FormatRangeValidator = validators.extend(Draft202012Validator, {"format": _format_range})


def package_name(doc: dict) -> str:
    return "proptest_" + hashlib.sha256(json.dumps(doc, sort_keys=True).encode()).hexdigest()[:16]


def _without_black() -> Any:
    """A context in which black leaves code as it is (black only lays code out; it is most of
    the generation time). No-op if the generator no longer formats with black."""
    try:
        import black
    except ImportError:
        return contextlib.nullcontext()
    return mock.patch.object(black, "format_str", lambda text, *args, **kwargs: text)


def write_generated(doc: dict, root: Path) -> str:
    """Generate the package of `doc` into `root`; its name. Black is skipped: it only lays out the
    code, and it is most of the generation time."""
    name = package_name(doc)
    if not (root / name).exists():
        path = root / f"{name}.json"
        path.write_text(json.dumps(doc, indent=1))
        with _without_black():
            files = generate_files(path, name)
        write_package(root / name, files)
    return name


def import_generated(root: Path, name: str) -> ModuleType:
    """The package `name` written into `root`, imported (`root` goes on sys.path)."""
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    importlib.invalidate_caches()  # the folder changed since its finder last listed it
    return importlib.import_module(name)


def forget_package(doc: dict) -> None:
    """Drop the imported modules of a package (hundreds of drawn schemas would pile up)."""
    name = package_name(doc)
    for mod in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
        del sys.modules[mod]


def same_json(a: Any, b: Any) -> bool:
    """Equal as JSON values: numbers by value (1 == 1.0), but booleans are not numbers."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(map(same_json, a, b))
    return type(a) is type(b) and a == b


def diff_paths(a: Any, b: Any, path: tuple = ()) -> list[tuple]:
    """Where two JSON values differ: a key only in one, a list whose length changed, a leaf."""
    if isinstance(a, dict) and isinstance(b, dict):
        return [
            p
            for k in dict.fromkeys([*a, *b])
            for p in (
                [path + (k,)] if k not in a or k not in b else diff_paths(a[k], b[k], path + (k,))
            )
        ]
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return [
            p
            for i, (x, y) in enumerate(zip(a, b, strict=True))
            for p in diff_paths(x, y, path + (i,))
        ]
    return [] if same_json(a, b) else [path]


Defaults = dict[tuple, dict[str, Any]]  # {path of an object: {property: its schema default}}


def without_added_defaults(out: Any, instance: Any, defaults: Defaults, path: tuple = ()) -> Any:
    """`out` less the properties that `instance` left out and `out` gives their schema default:
    emitting a default the sender left out keeps the meaning (the issue allows that design)."""
    if isinstance(out, dict) and isinstance(instance, dict):
        known = defaults.get(path, {})
        return {
            k: without_added_defaults(v, instance[k], defaults, path + (k,)) if k in instance else v
            for k, v in out.items()
            if k in instance or k not in known or not same_json(v, known[k])
        }
    if isinstance(out, list) and isinstance(instance, list) and len(out) == len(instance):
        return [
            without_added_defaults(x, y, defaults, path + (i,))
            for i, (x, y) in enumerate(zip(out, instance, strict=True))
        ]
    return out


def _where(path: tuple) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path)


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def _is_prefix(a: tuple, b: tuple) -> bool:
    return b[: len(a)] == a


_ABSENT = object()


def _at(value: Any, path: tuple) -> Any:
    """The value at `path`; `_ABSENT` where the path leads nowhere (a key a mutation dropped, or
    one the package left out of its output)."""
    for step in path:
        if isinstance(value, dict) and step in value:
            value = value[step]
        elif isinstance(value, list) and isinstance(step, int) and 0 <= step < len(value):
            value = value[step]
        else:
            return _ABSENT
    return value


_EMPTY_VALUES: tuple[Any, ...] = ([], {}, "", 0, False)


def _null_default_problem(m: Mutation, out: Any, path: tuple) -> str | None:
    """Why the null a default-on-null mark forgave at `path` did not come back as the default."""
    parent, key = _at(out, path[:-1]), path[-1]
    got = parent.get(key, _ABSENT) if isinstance(parent, dict) else _ABSENT
    if got is _ABSENT:
        return None
    expected = m.defaults.get(path[:-1], {})
    if key in expected and same_json(got, expected[key]):
        return None
    if any(same_json(got, e) for e in _EMPTY_VALUES):
        return None
    return f"a null at {_where(path)} came back as {_short(got)}, not as the default"


def repair_problem(m: Mutation, out: Any, valid: bool) -> str | None:
    """Why an accepted invalid instance is not an allowed repair (None: it is one)."""
    if not valid:
        return f"re-encoded as invalid {_short(out)}"
    holders = [
        p
        for p, mark in m.marked
        if (_is_prefix(p, m.path) if mark != LENIENT_NULL else p == m.path)
        and (mark != LENIENT_NULL or _at(m.instance, p) is None)
    ]
    if not holders:
        return "no x-deserialize mark holds the mutation"
    nulls = [p for p, mark in m.marked if mark == LENIENT_NULL and p in holders]
    for p in nulls:
        problem = _null_default_problem(m, out, p)
        if problem:
            return problem
    kept = without_added_defaults(out, m.instance, m.defaults)
    stray = [d for d in diff_paths(m.instance, kept) if not any(_is_prefix(h, d) for h in holders)]
    if stray:
        marks, changes = [_where(h) for h in holders], [_where(d) for d in stray]
        return f"changed outside the marked places {marks}: {changes}"
    return None


class _Checker:
    """The checks of one package against jsonschema; findings go to `self.found`."""

    def __init__(self, doc: dict, pkg: ModuleType, count: int, seed: int) -> None:
        self.doc, self.pkg, self.count, self.seed = doc, pkg, count, seed
        self.found: list[Disagreement] = []

    def add(self, kind: str, where: str, detail: str) -> None:
        self.found.append(Disagreement(kind, where, detail))

    def guarded(self, check: Any, arg: Any, where: str) -> None:
        """Run one check; an exception that escapes it is a crash, reported with where it rose."""
        try:
            check(arg)
        except Exception as exc:  # noqa: BLE001
            frame = traceback.extract_tb(exc.__traceback__)[-1]
            origin = f"{Path(frame.filename).name}:{frame.lineno}"
            self.add("crash", where, f"{type(exc).__name__} at {origin}: {exc}")

    def validator(self, def_name: str, cls: Any = Draft202012Validator) -> Any:
        return cls({"$ref": f"#/$defs/{def_name}", "$defs": self.doc["$defs"]})

    def valid(self, def_name: str) -> list[tuple[Any, Defaults]]:
        """Valid instances of a def, each with the schema defaults of its objects' properties."""
        ranges = self.validator(def_name, FormatRangeValidator)
        return [
            (x, defaults)
            for x, defaults in valid_instances_with_defaults(
                self.doc, def_name, count=self.count, seed=self.seed
            )
            if ranges.is_valid(x)
        ]

    def roundtrip(
        self, def_name: str, value: Any, instance: Any, defaults: Defaults, where: str
    ) -> None:
        """`value` was decoded from `instance`: its encoding must be valid and the same JSON, but
        for properties the input left out that come back with their schema default."""
        try:
            out = json.loads(self.pkg.encode(value))
        except Exception as exc:  # noqa: BLE001 - any failure to encode is the finding
            self.add("crash", where, f"encode raised {exc!r} for {_short(instance)}")
            return
        errors = [
            f"{_where(tuple(e.absolute_path))}: {e.message[:150]}"
            for e in self.validator(def_name).iter_errors(out)
        ]
        if errors:
            self.add(
                "invalid output",
                where,
                f"{_short(instance)} re-encoded as {_short(out)}: {errors[:2]}",
            )
        elif not same_json(without_added_defaults(out, instance, defaults), instance):
            lost = [_where(d) for d in diff_paths(instance, out)]
            self.add(
                "round trip",
                where,
                f"{_short(instance)} re-encoded as {_short(out)} (differs at {lost})",
            )

    def check_def(self, def_name: str) -> None:
        tp = getattr(self.pkg.types, python_name(def_name), None)
        if tp is None:
            self.add("missing type", def_name, "the package's types module has no such name")
            return
        for instance, defaults in self.valid(def_name):
            data = json.dumps(instance, ensure_ascii=False).encode()
            try:
                value = self.pkg.decode(data, tp)
            except msgspec.ValidationError as exc:
                self.add("valid rejected", def_name, f"{_short(instance)}: {exc}")
                continue
            except Exception as exc:  # noqa: BLE001
                self.add("crash", def_name, f"decode raised {exc!r} for {_short(instance)}")
                continue
            self.roundtrip(def_name, value, instance, defaults, def_name)
        validator = self.validator(def_name)
        for m in mutations(self.doc, def_name, count=self.count, seed=self.seed, per_base=1):
            data = json.dumps(m.instance, ensure_ascii=False).encode()
            try:
                value = self.pkg.decode(data, tp)
            except msgspec.ValidationError:
                continue
            except Exception as exc:  # noqa: BLE001
                self.add(
                    "crash",
                    def_name,
                    f"decode raised {exc!r} for {m.description}: {_short(m.instance)}",
                )
                continue
            try:
                out = json.loads(self.pkg.encode(value))
            except Exception as exc:  # noqa: BLE001
                self.add("crash", def_name, f"encode raised {exc!r} for {m.description}")
                continue
            problem = repair_problem(m, out, validator.is_valid(out))
            if problem:
                kind = (
                    "leniency spread"
                    if m.marked and validator.is_valid(out)
                    else "invalid accepted"
                )
                self.add(
                    kind, def_name, f"{m.description}: {_short(m.instance)} accepted; {problem}"
                )

    def check_method(self, method: Any) -> None:
        """One method through decode_message and the stubs, on each side that receives it; the
        sides that do not receive it refuse its requests with -32601 and lack it in their stubs."""
        sides = tuple(self.pkg.SIDES)
        receivers = [method.side] if method.side in sides else list(sides)
        for side in receivers:
            self.check_method_on(dataclasses.replace(method, side=side))
        for side in sides:
            if side not in receivers:
                self.check_not_received(method, side)

    def check_not_received(self, method: Any, side: str) -> None:
        """`side` does not receive `method`: a request is "method not found", and the side's
        handler class has no method for it."""
        pkg, wire = self.pkg, method.wire
        where = f"method {wire!r} on side {side!r}"
        info = (pkg.REQUESTS if method.kind == "request" else pkg.NOTIFICATIONS).get(wire)
        handler = getattr(pkg, f"{side.capitalize()}Handler", None)
        if info is not None and handler is not None and hasattr(handler, info.handler):
            if not any(m.handler == info.handler for m in pkg.RECEIVED_BY[side]):
                self.add("stubs", where, f"{side.capitalize()}Handler has {info.handler!r}")
        if method.kind != "request" or method.wire in {
            m.method for m in pkg.RECEIVED_BY[side] if m.kind == "request"
        }:
            return
        for instance, _ in self.valid(method.params)[:1]:
            msg = {"jsonrpc": "2.0", "id": 3, "method": wire, "params": instance}
            try:
                got = pkg.decode_message(json.dumps(msg).encode(), side)
            except pkg.RpcError as exc:
                if exc.code != -32601:
                    self.add("message", where, f"refused with {exc.code}, not -32601")
                continue
            except Exception as exc:  # noqa: BLE001
                self.add("message", where, f"decode_message raised {exc!r}")
                continue
            self.add("message", where, f"decoded as {got!r:.200}, not refused -32601")

    def check_method_on(self, method: Any) -> None:
        """One method received by `method.side` ("agent" or "client")."""
        pkg, wire = self.pkg, method.wire
        where = f"method {wire!r}"
        info = pkg.METHODS.get(wire)
        if info is None:
            self.add("message", where, "not in METHODS")
            return
        tp = getattr(pkg.types, python_name(method.params), None)
        for instance, defaults in self.valid(method.params)[:2]:
            msg = {"jsonrpc": "2.0", "method": wire, "params": instance}
            if method.kind == "request":
                msg["id"] = 7
            try:
                got = pkg.decode_message(json.dumps(msg).encode(), method.side)
            except Exception as exc:  # noqa: BLE001
                self.add(
                    "message", where, f"{_short(msg)} refused by side {method.side!r}: {exc!r}"
                )
                continue
            expected = pkg.Request if method.kind == "request" else pkg.Notification
            if not isinstance(got, expected) or got.method != wire:
                self.add("message", where, f"{_short(msg)} decoded as {got!r:.200}")
                continue
            if isinstance(tp, type) and not isinstance(got.params, tp):  # (not an alias)
                self.add(
                    "message",
                    where,
                    f"params decoded as {type(got.params).__name__}, not {tp.__name__}",
                )
            self.roundtrip(method.params, got.params, instance, defaults, where + " params")
        for m in mutations(self.doc, method.params, count=3, seed=self.seed, per_base=1):
            if m.instance is None:
                continue  # the envelopes allow "params": null (JSON-RPC lets params be left out)
            msg = {"jsonrpc": "2.0", "method": wire, "params": m.instance, "id": 8}
            if method.kind == "notification":
                del msg["id"]
            try:
                got = pkg.decode_message(json.dumps(msg).encode(), method.side)
            except pkg.RpcError as exc:
                if exc.code != -32602:
                    self.add(
                        "message", where, f"{m.description}: refused with {exc.code}, not -32602"
                    )
                continue
            except Exception as exc:  # noqa: BLE001
                self.add("message", where, f"{m.description}: decode_message raised {exc!r}")
                continue
            try:
                out = json.loads(pkg.encode(got.params))
            except Exception as exc:  # noqa: BLE001
                self.add("crash", where, f"encode raised {exc!r} for {m.description}")
                continue
            problem = repair_problem(m, out, self.validator(method.params).is_valid(out))
            if problem:
                self.add("message", where, f"{m.description}: params accepted; {problem}")
        if method.kind == "request":
            self.check_response(method, info, where)
        self.check_stubs(method, info, where)

    def check_stubs(self, method: Any, info: Any, where: str) -> None:
        """The receiving side's handler serves the method; the proxy to it sends it as typed."""
        side = method.side.capitalize() if method.side in self.pkg.SIDES else None
        valid = self.valid(method.params)
        if side is None or not valid:
            return
        handler = getattr(self.pkg, f"{side}Handler", None)
        if handler is None or not callable(getattr(handler, info.handler, None)):
            self.add("stubs", where, f"{side}Handler has no method {info.handler!r}")
        try:
            params = self.pkg.decode(json.dumps(valid[0][0]).encode(), info.params)
        except Exception:  # noqa: BLE001 - check_def has reported it
            return
        peer = _RecordingPeer()
        try:
            asyncio.run(getattr(getattr(self.pkg, f"{side}Proxy")(peer), info.handler)(params))
        except Exception as exc:  # noqa: BLE001
            self.add("stubs", where, f"{side}Proxy.{info.handler} raised {exc!r}")
            return
        expected = [
            (method.kind, method.wire, params, info.result if method.kind == "request" else None)
        ]
        if peer.calls != expected:
            self.add(
                "stubs",
                where,
                f"{side}Proxy.{info.handler} sent {peer.calls!r:.300}, not {expected!r:.300}",
            )

    def check_response(self, method: Any, info: Any, where: str) -> None:
        other = OTHER_SIDE.get(method.side, "client")  # a conductor calls its proxy as a client
        results = self.valid(method.result)[:2] if method.result else [(None, {})]
        for instance, defaults in results:
            msg = {"jsonrpc": "2.0", "id": 9, "result": instance}
            try:
                got = self.pkg.decode_message(
                    json.dumps(msg).encode(), other, lambda id: info.result
                )
            except Exception as exc:  # noqa: BLE001
                self.add("message", where, f"response {_short(msg)} refused: {exc!r}")
                continue
            if not isinstance(got, self.pkg.Response):
                self.add("message", where, f"response decoded as {got!r:.200}")
            elif method.result:
                self.roundtrip(method.result, got.result, instance, defaults, where + " result")
            elif got.result is not None:
                self.add("message", where, f"a null result decoded as {got.result!r:.200}")


@dataclasses.dataclass(frozen=True)
class Method:
    """A method of a schema: wire name, receiving side, kind, params def and response def."""

    wire: str
    side: str
    kind: str  # "request" | "notification"
    params: str
    result: str | None  # None: the schema gives the method no response def (its result is null)


def envelope_names(doc: dict) -> set[str]:
    """The JSON-RPC envelope defs (`x-docs-ignore: true`): not generated as types, by design."""
    return {name for name, body in doc["$defs"].items() if body.get("x-docs-ignore") is True}


def methods_of(doc: dict) -> list[Method]:
    """The methods of a document whose x-method defs are named `...Request`, `...Response` and
    `...Notification` (as ACP and the grammar name them); a def without x-side is received by
    every side (its side here is "both", as the generator reads it)."""
    defs = doc["$defs"]
    responses = {
        b["x-method"]: n for n, b in defs.items() if "x-method" in b and n.endswith("Response")
    }
    return [
        Method(
            b["x-method"],
            b.get("x-side", "both"),
            kind,
            n,
            responses.get(b["x-method"]) if kind == "request" else None,
        )
        for n, b in defs.items()
        if "x-method" in b
        for kind in [
            (
                "request"
                if n.endswith("Request")
                else "notification" if n.endswith("Notification") else ""
            )
        ]
        if kind
    ]


OTHER_SIDE = {"agent": "client", "client": "agent"}
"""The side that answers each side's requests. A proxy's requests come from its conductor, which
calls it as a client does; a method of another x-side ("protocol", ...) is received by every side
of the package (`SIDES`)."""


class _RecordingPeer:
    """A Peer (see the package's stubs) that records what a proxy sends and answers null."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, str, Any, Any]] = []

    async def request(self, method: str, params: Any, result_type: Any) -> Any:
        self.calls.append(("request", method, params, result_type))
        return None

    async def notify(self, method: str, params: Any) -> None:
        self.calls.append(("notification", method, params, None))


def diff_problem(path: Path) -> str | None:
    """Why `acpgen diff` cannot compare a schema with itself (None: it can, and finds no change)."""
    from acpgen.diff.cli import main as diff_main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = diff_main([str(path), str(path), "--format", "json"])
    except Exception as exc:  # noqa: BLE001
        return f"raised {type(exc).__name__}: {exc}"
    return None if status == 0 else f"exit {status}: {err.getvalue().strip()[:300]}"


def disagreements(doc: dict, root: Path, *, count: int, seed: int) -> list[Disagreement]:
    """Every way the package of `doc` disagrees with jsonschema (empty: it agrees)."""
    try:
        name = write_generated(doc, root)
    except Exception as exc:  # noqa: BLE001 - a refusal or a crash of the generator is the finding
        return [Disagreement("generate", "generator", f"{type(exc).__name__}: {exc}")]
    try:
        pkg = import_generated(root, name)
    except Exception as exc:  # noqa: BLE001 - whatever stops the import is the finding
        forget_package(doc)
        return [Disagreement("import", "package", f"{type(exc).__name__}: {exc}")]
    try:
        checker = _Checker(doc, pkg, count, seed)
        problem = diff_problem(root / f"{name}.json")
        if problem:
            checker.add("diff", "acpgen diff", problem)
        skip = envelope_names(doc)
        for name in doc["$defs"]:
            if name not in skip:
                checker.guarded(checker.check_def, name, name)
        for method in methods_of(doc):
            checker.guarded(checker.check_method, method, f"method {method.wire!r}")
        return checker.found
    finally:
        forget_package(doc)


def main(argv: list[str]) -> int:
    seed = 20261130
    if argv[:1] == ["--seed"] and len(argv) > 1:
        seed, argv = int(argv[1]), argv[2:]
    if len(argv) != 1:
        print(
            "usage: python -m tests.support.agreement [--seed N] SCHEMA.json|-",
            file=sys.stderr,
        )
        return 2
    doc = json.loads(sys.stdin.read() if argv[0] == "-" else Path(argv[0]).read_text())
    Draft202012Validator.check_schema(doc)
    with tempfile.TemporaryDirectory() as tmp:
        found = disagreements(doc, Path(tmp), count=6, seed=seed)
    for d in found:
        print(d)
    print(f"{len(found)} disagreement(s)")
    return 1 if found else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
