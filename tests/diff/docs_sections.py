"""The generated parts of the docs: docs/diff.md's rule table and real markdown example, and
docs/v2-schema.md's report of the bump to the default v2 schema.

`test_diff_docs.py` checks they are current; after changing rules or the markdown output, rewrite
them with `.venv/bin/python -m tests.diff.docs_sections`.
"""

from __future__ import annotations

import re
from pathlib import Path

from acpgen.diff import diff_revisions
from acpgen.diff.listing import list_rules
from acpgen.diff.render_markdown import render_markdown
from acpgen.diff.revision import load_revision
from acpgen.diff.severity import Gate
from tests.diff.helpers import fixture_diff

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "diff.md"
EXAMPLE = ("v1-stable-2025-10-28", "v1-stable-2026-01-15")
V2_DOC = ROOT / "docs" / "v2-schema.md"
V2_REPORT = ("tests/fixtures/schemas/v2-unstable-2026-08-21.json", "schema/v2/schema.json")


def sections() -> dict[str, str]:
    return {
        "rules": list_rules("markdown"),
        "example": render_markdown(fixture_diff(*EXAMPLE), Gate()),
    }


def v2_sections() -> dict[str, str]:
    """The report of `acpgen diff` from the fixtures' newest v2 revision to the default v2 schema,
    as the command prints it when run from the repository's root."""
    old, new = (load_revision(ROOT / path, label=path) for path in V2_REPORT)
    return {"report": render_markdown(diff_revisions(old, new), Gate())}


DOCS = {DOC: sections, V2_DOC: v2_sections}


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- begin {name} -->\n)(.*?)(<!-- end {name} -->)", re.S)


def section_in_doc(text: str, name: str) -> str | None:
    found = _pattern(name).search(text)
    return found.group(2) if found else None


def _replace_section(text: str, name: str, body: str) -> str:
    """`text` with the section `name` holding `body` (taken as it is: no regex escapes)."""
    return _pattern(name).sub(lambda m: m.group(1) + body + m.group(3), text)


def main() -> None:
    for doc, make in DOCS.items():
        text = doc.read_text()
        for name, body in make().items():
            text = _replace_section(text, name, body)
        doc.write_text(text)


if __name__ == "__main__":
    main()
