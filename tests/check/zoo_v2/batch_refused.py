"""Refuses a batch with one Invalid Request error, as the npm 2.4.0 v2 schema (which removed
batches) would have it: information, never a failure."""

from __future__ import annotations

from typing import Any

from base_v2 import BaseV2, main


class Agent(BaseV2):
    def dispatch(self, message: Any) -> None:
        if isinstance(message, list):
            self.fail(None, -32600, "Invalid Request: batches are not supported")
            return
        super().dispatch(message)


main(Agent)
