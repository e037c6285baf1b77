"""One numbered ACP requirement, as the checker cites it (see requirements_data.py)."""

from __future__ import annotations

from dataclasses import dataclass

# The level a failed check reports at: MUST fails the run, SHOULD warns, MAY informs.
LEVEL_OF_KEYWORD = {
    "MUST": "MUST",
    "MUST NOT": "MUST",
    "SHOULD": "SHOULD",
    "SHOULD NOT": "SHOULD",
    "MAY": "MAY",
}


@dataclass(frozen=True)
class Requirement:
    id: str
    keyword: str
    role: str
    source: str
    text: str

    @property
    def level(self) -> str:
        return LEVEL_OF_KEYWORD[self.keyword]
