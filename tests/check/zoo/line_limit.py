"""Reads lines of at most 64 KiB (a fixed buffer): a longer line makes it exit."""

from __future__ import annotations

import os
import sys
from typing import Any

from base import Base, main


class Agent(Base):
    def read_lines(self) -> Any:
        while line := sys.stdin.buffer.readline(1 << 16):
            if not line.endswith(b"\n"):
                sys.stderr.write("line too long\n")
                os._exit(3)
            yield line


main(Agent)
