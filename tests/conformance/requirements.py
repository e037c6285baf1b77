"""The numbered ACP requirements: v1's parsed from requirements-v1.md (a copy of the shared file),
v2's from requirements-v2.md (the v2 docs' MUST / MUST NOT statements the library carries, in the
same table shape).

The file is a markdown table whose rows span several lines and whose requirement text may hold
unescaped `|`. A row is read by its shape: it opens with `| N | ID |` on a line of its own; the
cells after it are the keyword, role, responsibility and kind (never containing `|`), then the
requirement text, then the source (a docs path and lines, never containing `|`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FILE = Path(__file__).with_name("requirements-v1.md")
FILE_V2 = Path(__file__).with_name("requirements-v2.md")
_ROW_START = re.compile(r"^\| (\d+) \| (ACP-V[12]-[A-Z0-9-]+) \|\s*$")
KEYWORDS = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")
ROLES = ("agent", "client", "both")
RESPONSIBILITIES = ("sdk", "shared", "application")


@dataclass(frozen=True)
class Requirement:
    number: int
    id: str
    keyword: str
    role: str
    responsibility: str
    kind: str
    text: str
    source: str


def parse(text: str) -> list[Requirement]:
    rows: list[tuple[int, str, list[str]]] = []
    for line in text.splitlines():
        start = _ROW_START.match(line)
        if start:
            rows.append((int(start.group(1)), start.group(2), []))
        elif rows:
            rows[-1][2].append(line.strip())
    out = []
    for number, rid, lines in rows:
        body = " ".join(lines).strip()
        if not body.endswith("|"):
            raise ValueError(f"requirement {number} ({rid}): its row does not end with '|'")
        keyword, role, responsibility, kind, rest = (c.strip() for c in body[:-1].split("|", 4))
        requirement, _, source = rest.rpartition("|")
        if keyword not in KEYWORDS or role not in ROLES or responsibility not in RESPONSIBILITIES:
            raise ValueError(
                f"requirement {number} ({rid}): unexpected cells {keyword!r} {role!r}"
                f" {responsibility!r}"
            )
        out.append(
            Requirement(
                number,
                rid,
                keyword,
                role,
                responsibility,
                kind,
                requirement.strip(),
                source.strip(),
            )
        )
    return out


def load(file: Path = FILE) -> list[Requirement]:
    return parse(file.read_text(encoding="utf-8"))
