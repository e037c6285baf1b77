"""Prints a banner on stdout before speaking ACP."""

from __future__ import annotations

from base import Base, main


class Agent(Base):
    def serve(self) -> None:
        self.write_line(b"zoo agent ready")
        super().serve()


main(Agent)
