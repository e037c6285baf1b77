"""Supports v1 only and answers 0 when asked for 65535 (one version only: below its own
latest). Caught by version.higher."""

from __future__ import annotations

from typing import Any

from base import Base, main


class Agent(Base):
    def chosen_version(self, asked: Any) -> int:
        return 0 if asked == 65535 else 1


main(Agent)
