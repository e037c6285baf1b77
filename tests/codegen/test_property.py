"""Property (issue 9): every valid schema generates a package that agrees with jsonschema.

Schemas are drawn by Hypothesis from the grammar in tests/support/schema_grammar.py (ACP's
spellings of objects, nullables, unions, const sets, arrays, maps, methods and envelopes, and the
constructs of issue 9); each is checked by tests/support/agreement.py (generate, import, then a
jsonschema differential on instances of every def and on messages of every method).

Profiles: `make test` draws PROPTEST_EXAMPLES (default 30) schemas and shrinks the first failure
class it meets; `make proptest` draws 500 and shrinks and reports every class it meets
(PROPTEST_ALL_CLASSES=1). Seeded and deterministic: PROPTEST_SEED (default below) picks the
sequence; there is no example database.
A failure prints the seed, the shrunk schema as JSON, and the command that replays it alone:
save the JSON to a file and run `python -m tests.support.agreement --seed SEED FILE.json`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, seed, settings
from jsonschema import Draft202012Validator

from tests.support.agreement import KINDS, disagreements
from tests.support.schema_grammar import FEATURES, features, schemas

EXAMPLES = int(os.environ.get("PROPTEST_EXAMPLES", "30"))
SEED = int(os.environ.get("PROPTEST_SEED", "20261130"))
COUNT = 4  # valid and invalid instances per def

ALL_CLASSES = os.environ.get("PROPTEST_ALL_CLASSES", "") == "1"  # shrink every failure class found
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    database=None,
    print_blob=True,
    report_multiple_bugs=ALL_CLASSES,
    suppress_health_check=[
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
)


class Disagrees(AssertionError):
    """The package of a drawn schema disagrees with jsonschema."""


_ERRORS: dict[str, type[Disagrees]] = {}


def error_class(signature: str) -> type[Disagrees]:
    """One subclass per failure signature, so that Hypothesis shrinks and reports each class of
    failure on its own instead of the first one it met."""
    if signature not in _ERRORS:
        _ERRORS[signature] = type(f"Disagrees[{signature}]", (Disagrees,), {})
    return _ERRORS[signature]


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("proptest")


@settings(SETTINGS, max_examples=max(EXAMPLES, 100))
@seed(SEED)
@given(doc=schemas())
def test_the_grammar_draws_valid_2020_12_schemas(doc: dict) -> None:
    Draft202012Validator.check_schema(doc)


def test_the_grammar_reaches_every_construct() -> None:
    """Every construct of schema_grammar.FEATURES shows up in 300 draws (of a fixed seed: this is
    about the grammar, whatever PROPTEST_SEED the property runs with)."""
    seen: set[str] = set()

    @settings(SETTINGS, max_examples=300)
    @seed(20261130)
    @given(doc=schemas())
    def draw(doc: dict) -> None:
        seen.update(features(doc))

    draw()
    assert sorted(FEATURES - seen) == []


@SETTINGS
@seed(SEED)
@given(doc=schemas())
def test_every_drawn_schema_generates_a_package_that_agrees_with_jsonschema(
    root: Path, doc: dict
) -> None:
    Draft202012Validator.check_schema(doc)
    found = disagreements(doc, root, count=COUNT, seed=SEED)
    if found:
        first = min(found, key=lambda d: KINDS.index(d.kind))
        lines = "\n".join(f"  {d}" for d in found[:12])
        raise error_class(first.signature)(
            f"{len(found)} disagreement(s), first kind {first.kind!r}; drawn with "
            f"PROPTEST_SEED={SEED} PROPTEST_EXAMPLES={EXAMPLES} "
            f"(`make proptest` or pytest tests/codegen/test_property.py)\n"
            f"{lines}\n"
            f"schema (save as FILE.json, replay with `.venv/bin/python -m tests.support.agreement "
            f"--seed {SEED} FILE.json`):\n{json.dumps(doc, ensure_ascii=False)}"
        )
