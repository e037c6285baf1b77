"""What a program sends goes out as written, or is refused with a clear error (issue 28): a property
over every method of both generated packages, taken from their tables (`REQUESTS`,
`NOTIFICATIONS`), never by name.

For each outgoing params type (what a caller sends) and result type (what a handler answers), with
instances nobody wrote by hand, drawn from the schema the package was generated from
(acpgen.instances, codegen/instances.py):
- a value broken in one place (any of the generator's mutations the schema rejects: a required
  member dropped, a wrong JSON type, null, an unknown tag or enum value, a bad list item, ...,
  most of all inside lists and members that carry a leniency mark, which a *receiver* forgives)
  is refused by the send-side check every send path takes (`wire.build` for wire JSON: the
  helpers, dict params of `request` / `notify`, a handler's dict answer; `wire.check` for
  generated objects) with `SchemaMismatchError`, naming the method, a path under `$.params` /
  `$.result` on the way to the broken place, and the value found there;
- a valid value goes out with every member and value it was given: the typed value re-encodes to
  it, the one difference allowed being a schema `default` for a member the sender left out (the
  README's round-trip promise; tests/support/agreement.py), and the typed value passes the check
  for generated objects as it is.
Connections take these checks on every path (tests/runtime/test_helpers_strict.py sends through
real ones); this property covers every type and drawn value in a few seconds.
"""

from __future__ import annotations

import ast
import functools
import json
import operator
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest

import acp_schema
import acp_schema_v2
from acp_runtime import SchemaMismatchError, wire
from acpgen.instances import Mutation, mutations, valid_instances_with_defaults
from tests.support.agreement import same_json, without_added_defaults

ROOT = Path(__file__).resolve().parents[2]
SCHEMAS = {  # each package and the schema `make generate` builds it from (Makefile)
    "acp_schema": (acp_schema, ROOT / "schema" / "schema.json"),
    "acp_schema_v2": (acp_schema_v2, ROOT / "schema" / "v2" / "schema.json"),
}
VALID = 3  # valid instances per type
BROKEN = 16  # mutations drawn per type (three times as many for the marked places)
SEED = 28


@functools.cache
def schema_of(name: str) -> dict[str, Any]:
    return json.loads(SCHEMAS[name][1].read_text("utf-8"))  # type: ignore[no-any-return]


def def_of(name: str, method: str, tp: Any) -> str | None:
    """The schema def of `method` (its `x-method`) that the package generated as `tp`."""
    package = SCHEMAS[name][0]
    found = [
        d
        for d, node in schema_of(name)["$defs"].items()
        if node.get("x-method") == method and getattr(package.types, d, None) is tp
    ]
    assert len(found) <= 1, (method, tp, found)
    return found[0] if found else None


def outgoing(name: str) -> list[Any]:
    """(package name, method, "params" | "result", type) of each type the package sends."""
    package = SCHEMAS[name][0]
    out = []
    for table in (package.REQUESTS, package.NOTIFICATIONS):
        for info in table.values():
            parts = (("params", info.params),) + (
                (("result", info.result),) if info.kind == "request" else ()
            )
            for at, tp in parts:
                if tp is not Any and tp is not None:
                    label = f"{name}-{info.method}-{info.kind}-{at}"
                    out.append(pytest.param(name, info.method, at, tp, id=label))
    return out


CASES = outgoing("acp_schema") + outgoing("acp_schema_v2")


def test_every_method_of_both_packages_is_covered() -> None:
    for name, (package, _) in SCHEMAS.items():
        covered = {p.values[1] for p in CASES if p.values[0] == name}
        assert covered == set(package.REQUESTS) | set(package.NOTIFICATIONS), name
    unfound = [p.id for p in CASES if def_of(*p.values[:2], p.values[3]) is None]
    assert not unfound, f"no schema def found for {unfound}"


STEP = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\[('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")\]")


def steps(path: str, at: str) -> tuple[Any, ...]:
    """`$.params.a[0].b['c']` as ("a", 0, "b", "c") (`at`: "params"; a dict key is quoted)."""
    rest = path[len("$." + at) :]
    found = STEP.findall(rest)
    assert "".join(m.group(0) for m in STEP.finditer(rest)) == rest, path
    return tuple(
        key if key else int(index) if index else ast.literal_eval(quoted)
        for key, index, quoted in found
    )


def value_at(instance: Any, path: tuple[Any, ...]) -> Any:
    return functools.reduce(operator.getitem, path, instance)


@pytest.mark.parametrize("name,method,at,tp", CASES)
def test_broken_values_are_refused_with_their_path(
    name: str, method: str, at: str, tp: Any
) -> None:
    package = SCHEMAS[name][0]
    def_name = def_of(name, method, tp)
    assert def_name is not None
    drawn = mutations(schema_of(name), def_name, count=BROKEN, seed=SEED)
    for m in drawn:
        where = f"{method} {at}, {m.description}"
        with pytest.raises(SchemaMismatchError) as refused:
            typed = wire.build(package, m.instance, tp, method=method, at=at)
            pytest.fail(f"{where}: sent as {package.encode(typed)!r}")
        err = refused.value
        assert err.method == method and err.path.startswith(f"$.{at}"), (where, err)
        _assert_on_the_way(m, err, at, where)
        assert method in str(err) and err.path in str(err)


def _assert_on_the_way(m: Mutation, err: SchemaMismatchError, at: str, where: str) -> None:
    """The error's path leads to the broken place (or, for an item added to a list, past the
    list to it), and its value is the value found there."""
    path = steps(err.path, at)
    assert path[: len(m.path)] == m.path or m.path[: len(path)] == path, (where, err.path)
    try:
        there = value_at(m.instance, path)
    except (KeyError, IndexError, TypeError):
        pytest.fail(f"{where}: {err.path} names no value of what was given")
    assert same_json(err.value, there), (where, err.path, err.value)


@functools.cache
def marked_mutations(name: str, method: str, tp: Any) -> list[Mutation]:
    """Mutations of `tp` values whose broken place is inside a member or list that carries a
    leniency mark (`x-deserialize-default-on-error` / `x-deserialize-skip-invalid-items`)."""
    def_name = def_of(name, method, tp)
    assert def_name is not None
    drawn = mutations(schema_of(name), def_name, count=BROKEN * 3, seed=SEED + 1, per_base=8)
    return [m for m in drawn if any(m.path[: len(p)] == p for p, _ in m.marked)]


@pytest.mark.parametrize("name,method,at,tp", CASES)
def test_broken_where_a_receiver_would_forgive_is_refused_too(
    name: str, method: str, at: str, tp: Any
) -> None:
    """The mutations inside a member or list that carries a leniency mark: a receiver reads them
    as absent or drops the item; a sender's are refused, with the path of the broken place."""
    package = SCHEMAS[name][0]
    marked = marked_mutations(name, method, tp)
    for m in marked:
        where = f"{method} {at}, {m.description}"
        with pytest.raises(SchemaMismatchError) as refused:
            typed = wire.build(package, m.instance, tp, method=method, at=at)
            pytest.fail(f"{where}: sent as {package.encode(typed)!r}")
        _assert_on_the_way(m, refused.value, at, where)
        # the receiver's reading of the same JSON forgives it (or refuses it): never raises ours
        try:
            wire.build(package, m.instance, tp, received=True)
        except msgspec.ValidationError:
            pass


def test_leniency_marks_are_reached_by_the_property() -> None:
    """Many drawn mutations sit inside a marked member or list, in both packages (else the test
    above would prove little)."""
    for name in SCHEMAS:
        found = sum(
            len(marked_mutations(*p.values[:2], p.values[3])) for p in CASES if p.values[0] == name
        )
        assert found >= 50, (name, found)


@pytest.mark.parametrize("name,method,at,tp", CASES)
def test_valid_values_go_out_as_given(name: str, method: str, at: str, tp: Any) -> None:
    package: ModuleType = SCHEMAS[name][0]
    def_name = def_of(name, method, tp)
    assert def_name is not None
    for instance, defaults in valid_instances_with_defaults(
        schema_of(name), def_name, count=VALID, seed=SEED
    ):
        typed = wire.build(package, instance, tp, method=method, at=at)
        sent = json.loads(package.encode(typed))
        kept = without_added_defaults(sent, instance, defaults)
        assert same_json(kept, instance), (method, at, instance, sent)
        wire.check(package, typed, tp, method=method, at=at)  # the generated object, as it is
