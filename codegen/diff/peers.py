"""The two revisions' generated packages, and one message sent from a peer of one to the other.

`Peers` renders both packages into a temporary folder and imports them under names of their own
(unformatted: black changes nothing a decoder does). `deliver` encodes a drawn value as the
JSON-RPC message a sender puts on the wire (a call's params, an answer's result) and hands it to
the receiving side's `MessageDecoder`, exactly as a connection does: the outcome is the decoded
message or the JSON-RPC error the receiver answers with, with the place it names.
"""

from __future__ import annotations

import ast
import importlib
import itertools
import json
import re
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from ..pipeline import render
from ..write import write_package
from .revision import Revision

METHOD_NOT_FOUND = -32601
_counter = itertools.count()


@dataclass(frozen=True)
class Peer:
    """One revision's generated package: its codec and its method tables."""

    revision: Revision
    codec: ModuleType
    methods: ModuleType

    def knows(self, wire: str) -> bool:
        """Whether the revision has a method of that wire name, of any kind or side."""
        return wire in self.methods.METHODS or wire in self.methods.NOTIFICATIONS


@dataclass(frozen=True)
class Outcome:
    """What the receiver made of a message: nothing wrong (`error` is ""), or its answer."""

    error: str = ""
    code: int = 0
    where: tuple[Any, ...] | None = None  # the place in the params or result the error names
    unknown_method: bool = False  # answered "method not found" (or ignored a notification)

    @property
    def ok(self) -> bool:
        return not self.error


@contextmanager
def peers(old: Revision, new: Revision) -> Iterator[tuple[Peer, Peer]]:
    """Both revisions' packages, generated into a temporary folder for as long as it is open."""
    with tempfile.TemporaryDirectory(prefix="acpgen-prove-") as folder:
        root = Path(folder)
        sys.path.insert(0, str(root))
        try:
            yield _peer(old, root), _peer(new, root)
        finally:
            sys.path.remove(str(root))


def _peer(rev: Revision, root: Path) -> Peer:
    name = f"_acpgen_prove_{rev.schema.sha256[:12]}_{next(_counter)}"
    write_package(root / name, render(rev.package, name), check_import=False)
    return Peer(
        rev,
        importlib.import_module(f"{name}.codec"),
        importlib.import_module(f"{name}.methods"),
    )


def wire_message(wire: str, kind: str, part: str, value: Any) -> bytes:
    """The JSON-RPC message that carries `value` as a call's params or as an answer's result."""
    if part == "result":
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": 1, "result": value}
    elif kind == "request":
        body = {"jsonrpc": "2.0", "id": 1, "method": wire, "params": value}
    else:
        body = {"jsonrpc": "2.0", "method": wire, "params": value}
    return json.dumps(body, ensure_ascii=False).encode("utf-8")


def deliver(receiver: Peer, side: str, wire: str, kind: str, part: str, data: bytes) -> Outcome:
    """Decode `data` as the side `side` of `receiver` receives it.

    An answer is decoded with the result type the receiver's own revision gives the request (the
    caller knows what it asked for); a call of a method the receiver does not have is answered
    "method not found" (a notification of one is not decoded at all: it is dropped).
    """
    codec, methods = receiver.codec, receiver.methods
    if part == "result":
        info = methods.REQUESTS.get(wire)
        if info is None:
            return Outcome(
                "the caller's revision has no such request", METHOD_NOT_FOUND, None, True
            )
        decoder = codec.MessageDecoder(side, {1: info.result})
    else:
        decoder = codec.MessageDecoder(side)
    try:
        message = decoder.decode(data)
    except Exception as exc:  # the package's RpcError: the answer the receiver gives
        return _failure(exc)
    if part == "params" and not _typed(methods, side, wire, kind):
        return Outcome(
            f"Method not found: {wire} (a {kind} the {side} does not receive)",
            METHOD_NOT_FOUND,
            None,
            True,
        )
    del message
    return Outcome()


def _typed(methods: ModuleType, side: str, wire: str, kind: str) -> bool:
    table = methods.REQUESTS if kind == "request" else methods.NOTIFICATIONS
    info = table.get(wire)
    return info is not None and (info.side == side or info.side not in methods.SIDES)


def _failure(exc: Exception) -> Outcome:
    code = getattr(exc, "code", None)
    if not isinstance(code, int):
        raise exc  # not an answer of the decoder: a bug, let it show
    data = getattr(exc, "data", None)
    where = _place(data) if isinstance(data, dict) else None
    return Outcome(str(getattr(exc, "message", exc)), code, where, code == METHOD_NOT_FOUND)


def _place(data: dict[str, Any]) -> tuple[Any, ...] | None:
    """The place an error names, inside the params or result: `$.params.a[0]` -> ("a", 0); a
    missing required field is placed where it is missing."""
    path, message = data.get("path"), data.get("message", "")
    if not isinstance(path, str):
        return None
    steps = parse_path(path)
    if steps is None or not steps or steps[0] not in ("params", "result"):
        return None
    missing = re.search(r"missing required field `([^`]*)`", str(message))
    return steps[1:] + ((missing[1],) if missing else ())


_STEP = re.compile(
    r"\.([^.\[]+)|\[(\d+)\]|\[(\"(?:[^\"\\]|\\.)*\"|'(?:[^'\\]|\\.)*')\]|\[\.\.\.\]"
)  # .name, [0], ["key"] or ['key'] (a map's key, quoted as Python does), [...] (a key not named)


def parse_path(path: str) -> tuple[Any, ...] | None:
    """`$.a[0].b` -> ("a", 0, "b"); None when it is not such a path."""
    if not path.startswith("$"):
        return None
    steps: list[Any] = []
    at = 1
    while at < len(path):
        m = _STEP.match(path, at)
        if m is None:
            return None
        if m[1] is not None:
            steps.append(m[1])
        elif m[2] is not None:
            steps.append(int(m[2]))
        elif m[3] is not None:
            steps.append(ast.literal_eval(m[3]))
        else:
            steps.append("...")
        at = m.end()
    return tuple(steps)
