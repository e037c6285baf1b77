"""Exits on a line that is not JSON."""

from __future__ import annotations

import os

from base import Base, main


class Agent(Base):
    def serve(self) -> None:
        for line in self.read_lines():
            if not line.strip():
                continue
            try:
                message = __import__("json").loads(line)
            except ValueError:
                os._exit(1)
            self.dispatch(message)
        self.at_eof()


main(Agent)
