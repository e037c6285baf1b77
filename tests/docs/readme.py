"""The README's prose, read as sentences: what tests/docs checks the claims of.

    section(heading) -> str          the text of `## heading` up to the next `## ` heading
    sentences(heading) -> [str]      its prose, one sentence a string, whitespace collapsed

Prose is what is left once fenced code blocks, tables and HTML comments are taken out. Each list
item and each paragraph is split into sentences after a `.`, `!` or `?` that a space and then a
capital letter, a backquote, a `*` or an opening bracket follow.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"

# the sections whose sentences about behaviour each need a test (issue 26)
CHECKED_SECTIONS = ("Using the generated codecs", "What the generated types do with the wire")

_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z`*(\[])")


def section(heading: str, text: str | None = None) -> str:
    text = README.read_text("utf-8") if text is None else text
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if match is None:
        raise AssertionError(f"README.md has no '## {heading}' section")
    return match.group(1)


def _paragraphs(body: str) -> list[str]:
    body = re.sub(r"^```.*?^```[ \t]*$", "\n", body, flags=re.S | re.M)
    body = re.sub(r"<!--.*?-->", "", body, flags=re.S)
    out: list[list[str]] = []
    current: list[str] = []
    for line in body.splitlines():
        if not line.strip() or line.lstrip().startswith("|"):
            if current:
                out.append(current)
            current = []
            continue
        if re.match(r"\s*[-*] ", line) and current:  # a list item starts a paragraph of its own
            out.append(current)
            current = []
        current.append(re.sub(r"^\s*[-*] ", "", line).strip())
    if current:
        out.append(current)
    return [" ".join(lines) for lines in out]


def sentences(heading: str, text: str | None = None) -> list[str]:
    return [s for p in _paragraphs(section(heading, text)) for s in _SPLIT.split(p) if s]


def normalized(text: str) -> str:
    """Whitespace collapsed, for comparing prose that is wrapped differently."""
    return " ".join(text.split())
