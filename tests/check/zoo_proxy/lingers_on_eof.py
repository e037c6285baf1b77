"""Keeps running after its stdin closes, as a proxy waiting on a background task would
(reported by ACPGEN-STDIO-EOF-EXIT, information). The checker ends it; it gives up on its own
after a minute, so nothing is left behind even then."""

from __future__ import annotations

import time  # noqa: E402

from base import Proxy


class LingersOnEof(Proxy):
    def at_eof(self) -> None:
        time.sleep(60)


LingersOnEof().run()
