"""The checker's copy of the requirements agrees with tests/conformance's files."""

from __future__ import annotations

from acpgen.check.requirements_data import REQUIREMENTS
from tests.conformance.requirements import FILE, FILE_V2, load

from .make_requirements import TARGET, render


def test_the_copy_is_what_the_generator_writes_from_the_files() -> None:
    assert (
        TARGET.read_text(encoding="utf-8") == render()
    ), "codegen/check/requirements_data.py is stale: run python -m tests.check.make_requirements"


def test_every_row_is_carried_with_its_keyword_and_source() -> None:
    rows = load(FILE) + load(FILE_V2)
    assert len(REQUIREMENTS) == len(rows)
    for row in rows:
        copy = REQUIREMENTS[row.id]
        assert (copy.keyword, copy.role, copy.source, copy.text) == (
            row.keyword,
            row.role,
            row.source,
            row.text,
        )
