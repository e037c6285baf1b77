"""What the tests that send schema-drawn instances over a connection share (v1:
tests/conformance/test_schema_rows.py, v2: tests/runtime/test_v2_generated_input.py).

    Answering()                                  # a handler of every method: records, answers
    forgiven(defs, def_name, path) -> bool       # a leniency mark on the way to `path`
    all_forgiven(defs, def_name) -> bool         # nothing required, every member forgiven
    mutation_path(description) -> tuple          # the path a `mutated_instances` description names
    broken_instances(schema, def_name, *, count, seed) -> list[(instance, description)]
    broken_mutations(schema, def_name, *, count, seed) -> list[Mutation]   # the same, with paths

`defs` is a schema's `$defs`, `schema` the whole document. A value is *broken where the schema
forgives nothing* when a member is missing, of a wrong JSON type or null where not nullable, at
any depth below the root, and no member on the way to it is marked
`x-deserialize-default-on-error` or `x-deserialize-skip-invalid-items` (those let a receiver
read a bad value as absent, or drop a bad item).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from acpgen.instances import LENIENT_DEFAULT, LENIENT_ITEMS, LENIENT_NULL, Mutation, mutations

REFUSED_KINDS = ("drop required field", "wrong JSON type", "null where not nullable")
FORGIVING_MARKS = (LENIENT_DEFAULT, LENIENT_ITEMS)
NULL_MARK = LENIENT_NULL  # forgives a null at its own place only


class Answering:
    """A handler of every method of a package: records (handler name, params) in `seen` and in
    the queue `arrived` (await `arrived.get()` for a notification, which has no answer to wait
    for), and answers `result`."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, Any]] = []
        self.arrived: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.result: Any = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name.startswith("ext_"):
            raise AttributeError(name)

        async def handle(params: Any) -> Any:
            self.seen.append((name, params))
            self.arrived.put_nowait((name, params))
            return self.result

        return handle


def branches(defs: dict[str, Any], node: Any) -> list[dict[str, Any]]:
    """The node and every schema it stands for: $ref targets, allOf / anyOf / oneOf branches."""
    seen: set[int] = set()
    todo, out = [node], []
    while todo:
        n = todo.pop()
        if not isinstance(n, dict) or id(n) in seen:
            continue
        seen.add(id(n))
        out.append(n)
        if "$ref" in n:
            todo.append(defs[n["$ref"].rsplit("/", 1)[1]])
        for key in ("allOf", "anyOf", "oneOf"):
            todo.extend(n.get(key, []))
    return out


def forgiven(defs: dict[str, Any], def_name: str, path: tuple[Any, ...]) -> bool:
    """Whether the schema lets a receiver forgive a bad value at `path` of a `def_name` value: a
    member on the way is marked x-deserialize-default-on-error or x-deserialize-skip-invalid-items.
    """
    nodes: list[Any] = [defs[def_name]]
    for step in path:
        found = []
        for branch in (b for node in nodes for b in branches(defs, node)):
            member = (
                branch.get("properties", {}).get(step)
                if isinstance(step, str)
                else branch.get("items")
            )
            if member is None:
                continue
            if any(b.get(mark) for b in branches(defs, member) for mark in FORGIVING_MARKS):
                return True
            found.append(member)
        nodes = found
    return False


def null_forgiven(defs: dict[str, Any], def_name: str, path: tuple[Any, ...]) -> bool:
    """Whether the member at `path` of a `def_name` value is marked x-deserialize-default-on-null:
    a null there takes the default (and only a null)."""
    nodes: list[Any] = [defs[def_name]]
    for i, step in enumerate(path):
        found = []
        for branch in (b for node in nodes for b in branches(defs, node)):
            member = (
                branch.get("properties", {}).get(step)
                if isinstance(step, str)
                else branch.get("items")
            )
            if member is None:
                continue
            if i == len(path) - 1 and isinstance(step, str):
                if any(b.get(NULL_MARK) for b in branches(defs, member)):
                    return True
            found.append(member)
        nodes = found
    return False


def all_forgiven(defs: dict[str, Any], def_name: str) -> bool:
    """Whether a def requires nothing and forgives a bad value in every member it declares."""
    node = defs[def_name]
    return not node.get("required") and all(
        forgiven(defs, def_name, (name,)) for name in node.get("properties", {})
    )


def mutation_path(description: str) -> tuple[Any, ...]:
    """The path of the value a `mutated_instances` description names ("... at $.a[0].b")."""
    where = description.rsplit(" at ", 1)[1]
    steps = re.findall(r"\.([^.\[]+)|\[(\d+)\]", where)
    return tuple(key if key else int(index) for key, index in steps)


def broken_mutations(
    schema: dict[str, Any], def_name: str, *, count: int, seed: int
) -> list[Mutation]:
    """The mutations (codegen/instances.py) of `count` drawn that break a value where the
    schema forgives nothing: a member missing, of a wrong type or null, at any depth below the
    root, with no leniency mark on the way."""
    return [
        m
        for m in mutations(schema, def_name, count=count, seed=seed)
        if m.description.startswith(REFUSED_KINDS)
        and m.path
        and not forgiven(schema["$defs"], def_name, m.path)
        and not (
            m.description.startswith("null") and null_forgiven(schema["$defs"], def_name, m.path)
        )
    ]


def broken_instances(
    schema: dict[str, Any], def_name: str, *, count: int, seed: int
) -> list[tuple[Any, str]]:
    """Instances the schema rejects, each one member missing, of a wrong type or null, at any depth
    below the root where the schema forgives nothing; (instance, what is broken where). Drawn from
    `count` mutations of valid instances."""
    return [
        (m.instance, m.description)
        for m in broken_mutations(schema, def_name, count=count, seed=seed)
    ]
