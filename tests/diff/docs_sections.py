"""The generated parts of docs/diff.md: the rule table and the real markdown example.

`test_diff_docs.py` checks they are current; after changing rules or the markdown output, rewrite
them with `.venv/bin/python -m tests.diff.docs_sections`.
"""

from __future__ import annotations

import re
from pathlib import Path

from acpgen.diff.listing import list_rules
from acpgen.diff.render_markdown import render_markdown
from acpgen.diff.severity import Gate
from tests.diff.helpers import fixture_diff

DOC = Path(__file__).resolve().parents[2] / "docs" / "diff.md"
EXAMPLE = ("v1-stable-2025-10-28", "v1-stable-2026-01-15")


def sections() -> dict[str, str]:
    return {
        "rules": list_rules("markdown"),
        "example": render_markdown(fixture_diff(*EXAMPLE), Gate()),
    }


def _pattern(name: str) -> re.Pattern[str]:
    return re.compile(rf"(<!-- begin {name} -->\n)(.*?)(<!-- end {name} -->)", re.S)


def section_in_doc(text: str, name: str) -> str | None:
    found = _pattern(name).search(text)
    return found.group(2) if found else None


def _replace_section(text: str, name: str, body: str) -> str:
    """`text` with the section `name` holding `body` (taken as it is: no regex escapes)."""
    return _pattern(name).sub(lambda m: m.group(1) + body + m.group(3), text)


def main() -> None:
    text = DOC.read_text()
    for name, body in sections().items():
        text = _replace_section(text, name, body)
    DOC.write_text(text)


if __name__ == "__main__":
    main()
