"""Validating every frame an implementation sends, strictly, with the revision's generated package.

A frame fails in one of three ways, each its own requirement: its bytes are not UTF-8; it is not
a JSON-RPC message at all (stdout carries only ACP messages); or the package refuses it (the error
names the JSON path, e.g. `$.params.update.content`). The package's `MessageDecoder` reads the
envelope as a receiver would; then the params of a call, or the result of an answer, are decoded
again with the package's `decode(..., strict=True)`, which forgives nothing: a receiver's decoder
puts a field the schema marks default-on-error back to its default, and drops a bad item of a
list marked skip-invalid-items, where a sender must not send them at all.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Mapping

import msgspec

NOT_UTF8 = "utf8"
NOT_A_MESSAGE = "message"
SCHEMA = "schema"


@dataclass(frozen=True)
class Problem:
    kind: str  # NOT_UTF8 | NOT_A_MESSAGE | SCHEMA
    method: str | None  # the method the frame is (or answers), when known
    path: str
    message: str
    frame: str

    def describe(self) -> str:
        where = f"{self.method} " if self.method else ""
        return f"{where}{self.path}: {self.message}"


class Validator:
    """One connection's strict decoder: `side` is the side that receives the frames ("client"
    when the implementation under test is an agent); `expect` records the result type of each
    request the checker sends, so an answer is decoded with it."""

    def __init__(
        self,
        package: ModuleType,
        side: str,
        version: int | None = None,
        others: Mapping[int, ModuleType] | None = None,
    ) -> None:
        self.package = package
        self.side = side
        self.version = version  # the protocol version `package` is
        self.others = others or {}  # the packages of the other versions, by version
        self.decoder = package.MessageDecoder(side, self._result_type)
        self.pending: dict[Any, str] = {}  # request id (JSON value) -> method

    def _result_type(self, rid: Any) -> Any:
        method = self.pending.get(_key(rid))
        info = self.package.METHODS.get(method) if method is not None else None
        return info.result if info is not None else None

    def expect(self, rid: Any, method: str) -> None:
        self.pending[_key(rid)] = method

    def answered(self, rid: Any) -> str | None:
        return self.pending.pop(_key(rid), None)

    def inspect(self, raw: bytes) -> tuple[Any, str | None, Problem | None]:
        """The frame as JSON (None when it is not JSON), the method it is or answers, and what
        is wrong with it, if anything."""
        shown = raw[:300].decode("utf-8", errors="backslashreplace")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            message = f"not UTF-8: byte {exc.start} ({raw[exc.start:exc.start + 1]!r})"
            return None, None, Problem(NOT_UTF8, None, "$", message, shown)
        try:
            value = json.loads(text)
        except ValueError as exc:
            return None, None, Problem(NOT_A_MESSAGE, None, "$", f"not JSON ({exc})", shown)
        if not isinstance(value, dict):
            kind = type(value).__name__
            problem = Problem(NOT_A_MESSAGE, None, "$", f"a JSON {kind}, not a message", shown)
            return value, None, problem
        method = value.get("method")
        if not isinstance(method, str):
            method = self.pending.get(_key(value.get("id")))
        package, decoder = self.package, self.decoder
        chosen = _chosen_version(value, method)
        if self.version is not None and chosen is not None and chosen != self.version:
            # an initialize answer choosing another version is in that version's shape
            if chosen not in self.others:
                return value, method, None  # a version the checker has no schema for
            package = self.others[chosen]
            decoder = package.MessageDecoder(self.side, lambda _id: package.METHODS[method].result)
        try:
            decoder.decode(raw)
        except package.RpcError as exc:
            data = exc.data
            path = data.get("path", "$") if isinstance(data, dict) else "$"
            text = data.get("message", exc.message) if isinstance(data, dict) else exc.message
            return value, method, Problem(SCHEMA, method, str(path), str(text), shown)
        found = _strictly(package, value, method, self.side)
        if found is not None:
            path, text = found
            return value, method, Problem(SCHEMA, method, path, text, shown)
        return value, method, None


def _strictly(
    package: ModuleType, value: dict[str, Any], method: str | None, side: str
) -> tuple[str, str] | None:
    """Where the params of a call, or the result of an answer, break the schema with nothing
    forgiven (None: they do not, or the method is none the package knows): (JSON path, what)."""
    info = package.METHODS.get(method) if method is not None else None
    if info is None:
        return None
    if isinstance(value.get("method"), str):
        member, expected = "params", info.params if info.side in (side, "protocol") else None
    else:
        member, expected = "result", info.result
    if expected is None or member not in value:
        return None
    try:
        package.decode(json.dumps(value[member]).encode("utf-8"), expected, strict=True)
    except msgspec.ValidationError as exc:
        text, _, at = str(exc).rpartition(" - at `")
        if not text:
            return f"$.{member}", str(exc)
        return f"$.{member}{at.rstrip('`').removeprefix('$')}", text
    return None


def _chosen_version(value: dict[str, Any], method: str | None) -> int | None:
    result = value.get("result")
    if method != "initialize" or not isinstance(result, dict):
        return None
    chosen = result.get("protocolVersion")
    return chosen if isinstance(chosen, int) and not isinstance(chosen, bool) else None


def _key(rid: Any) -> Any:
    """A request id as a dict key that keeps 1, 1.0, "1" and True apart."""
    return (type(rid).__name__, json.dumps(rid))
