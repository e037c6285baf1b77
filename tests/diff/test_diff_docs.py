"""The docs show the real rule table, a real markdown example and the real v2 bump report, never
stale ones."""

from __future__ import annotations

import pytest

from tests.diff.docs_sections import DOC, V2_DOC, section_in_doc, sections, v2_sections


@pytest.mark.parametrize("name", ["rules", "example"])
def test_the_generated_section_of_the_docs_is_current(name: str) -> None:
    assert (
        section_in_doc(DOC.read_text(), name) == sections()[name]
    ), "docs/diff.md is stale: run .venv/bin/python -m tests.diff.docs_sections"


def test_the_v2_bump_report_is_what_acpgen_diff_prints_today() -> None:
    assert (
        section_in_doc(V2_DOC.read_text(), "report") == v2_sections()["report"]
    ), "docs/v2-schema.md is stale: run .venv/bin/python -m tests.diff.docs_sections"
