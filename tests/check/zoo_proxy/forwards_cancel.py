"""Passes the client's $/cancel_request on to its successor inside proxy/successor, where it
names an id of another hop (breaks PROXY-CANCEL-HOP-LOCAL)."""

from __future__ import annotations

from typing import Any

from base import Proxy


class ForwardsCancel(Proxy):
    def on_cancel(self, params: Any, wrapped: bool) -> None:
        if wrapped:
            super().on_cancel(params, wrapped)
        else:
            self.forward(None, "$/cancel_request", params, wrapped=False)


ForwardsCancel().run()
