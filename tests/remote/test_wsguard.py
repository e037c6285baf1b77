"""The one adapter (acp_runtime.http.wsguard) checks at import the shape of Hypercorn it relies on,
and `serve` refuses to start, naming Hypercorn's and wsproto's versions, when it moved: here
Hypercorn is changed before the runtime is imported, in a subprocess, as a release could change
it (the offered extensions kept under another name; `accept` taking other arguments)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import version

import pytest

RENAMED = """
from hypercorn.protocol import ws_stream
init, accept = ws_stream.Handshake.__init__, ws_stream.Handshake.accept
def renamed_init(self, headers, http_version):
    init(self, headers, http_version)
    self.offered = self.extensions
def renamed_accept(self, subprotocol, additional_headers):
    self.extensions = self.offered  # a release reading the offer from another attribute
    return accept(self, subprotocol, additional_headers)
ws_stream.Handshake.__init__ = renamed_init
ws_stream.Handshake.accept = renamed_accept
"""

RESHAPED = """
from hypercorn.protocol import ws_stream
accept = ws_stream.Handshake.accept
def reshaped(self, subprotocol, additional_headers, extra=None):
    return accept(self, subprotocol, additional_headers)
ws_stream.Handshake.accept = reshaped
"""

SERVE = """
import asyncio
from acp_runtime.http import AcpApp, serve, wsguard
assert wsguard.problem is not None
try:
    asyncio.run(serve(AcpApp(lambda conn: None), "127.0.0.1:0"))
except RuntimeError as exc:
    print(exc)
else:
    raise SystemExit("served without the guard")
"""


@pytest.mark.parametrize("change", [RENAMED, RESHAPED], ids=["extensions-renamed", "reshaped"])
def test_serve_refuses_to_start_when_hypercorn_moved_the_shape(change: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", change + SERVE], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    said = done.stdout
    assert f"Hypercorn {version('hypercorn')}" in said and f"wsproto {version('wsproto')}" in said
    assert "wsguard.py" in said
    assert "listening" not in done.stderr


def test_the_installed_hypercorn_fits_the_guard() -> None:
    from acp_runtime.http import wsguard

    assert wsguard.problem is None
    assert wsguard.check() is None
