"""The peer processes of the connection benchmarks (bench/connections.py, bench/remote.py): which
interpreter runs each implementation, and a loopback server of either.

`runtime` runs in the bench's interpreter; `sdk` is the official Python SDK 1.0.0rc3, which has
the same import name (`acp`) as the 0.12.1 of the bench extra, so it runs in its own environment,
.venv/acp-rc3 (`make bench` builds it: the Makefile's RC3_STAMP, from
tests/interop/requirements-rc3.txt).
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Iterator

from .processes import PEERS, PY

PY_RC3 = Path(sys.prefix) / "acp-rc3" / "bin" / "python"
SDK_LABEL = "official SDK 1.0.0rc3"


def python_of(impl: str) -> str:
    """The interpreter that runs the peers of `impl` (`runtime` or `sdk`)."""
    return PY if impl == "runtime" else str(PY_RC3)


def missing(impl: str) -> str | None:
    """Why `impl` cannot run here, or None."""
    if impl == "sdk" and not (PY_RC3.parents[1] / ".installed-stamp").is_file():
        venv = PY_RC3.parents[1]
        return f"not measured: {venv} is not built (make {venv}/.installed-stamp)"
    return None


@contextlib.contextmanager
def server(impl: str, env: dict[str, str]) -> Iterator[tuple[str, subprocess.Popen[str]]]:
    """The agent of `impl` (bench/peers/many_agent.py) serving HTTP/1.1, h2c and WebSocket under
    Hypercorn on a loopback port; yields its `http://` URL and its process."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    sock.listen(4096)
    port = sock.getsockname()[1]
    proc = subprocess.Popen(
        [python_of(impl), str(PEERS / "many_agent.py"), impl, "listen", str(sock.fileno())],
        pass_fds=(sock.fileno(),),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=tempfile.gettempdir(),
    )
    sock.close()
    try:
        assert proc.stdout is not None
        if proc.stdout.readline().strip() != "ready":
            raise RuntimeError(f"the {impl} server did not start")
        time.sleep(0.3)  # Hypercorn binds after "ready"; the socket already queues connections
        yield f"http://127.0.0.1:{port}/acp", proc
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def url_for(url: str, mode: str) -> str:
    """The server's URL as the client of `mode` (http1, h2c, ws) dials it."""
    return "ws" + url[4:] if mode == "ws" else url
