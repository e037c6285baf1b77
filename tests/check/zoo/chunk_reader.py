"""Parses each read() of stdin as whole lines: a line that comes in pieces is lost."""

from __future__ import annotations

import os
from typing import Any

from base import Base, main


class Agent(Base):
    def read_lines(self) -> Any:
        while chunk := os.read(0, 1 << 16):
            yield from chunk.splitlines()


main(Agent)
