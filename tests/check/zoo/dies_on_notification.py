"""Exits on a notification it does not know."""

from __future__ import annotations

import os
from typing import Any

from base import Base, main


class Agent(Base):
    def notification(self, method: Any, params: Any) -> None:
        if method != "session/cancel":
            os._exit(1)
        super().notification(method, params)


main(Agent)
