"""Gives every session the same id."""

from __future__ import annotations

import os
import sys
from typing import Any

from base import Base, Session, main


class Agent(Base):
    def new_session_id(self) -> str:
        return "zoo-session"


main(Agent)
