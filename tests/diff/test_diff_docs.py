"""docs/diff.md shows the real rule table and a real markdown example, never stale ones."""

from __future__ import annotations

import pytest

from tests.diff.docs_sections import DOC, section_in_doc, sections


@pytest.mark.parametrize("name", ["rules", "example"])
def test_the_generated_section_of_the_docs_is_current(name: str) -> None:
    assert (
        section_in_doc(DOC.read_text(), name) == sections()[name]
    ), "docs/diff.md is stale: run .venv/bin/python -m tests.diff.docs_sections"
