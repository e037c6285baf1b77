"""Serve the `app` of the official Python SDK 1.0.0rc3's examples/http_server.py (copied unchanged
into sdk_examples_rc3/) on a free port of 127.0.0.1, as the example itself does on port 8000
(Hypercorn, h2 and HTTP/1.1), and print `serving http://127.0.0.1:PORT/acp` once it listens.

    .venv/acp-rc3/bin/python tests/check/serve_sdk_http.py
"""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

import hypercorn.asyncio
from hypercorn.config import Config

sys.path.insert(0, str(Path(__file__).parent / "sdk_examples_rc3"))

from http_server import app  # noqa: E402  (the SDK's example, found through sys.path)


async def main() -> None:
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    port = listener.getsockname()[1]
    config = Config()
    config.alpn_protocols = ["h2", "http/1.1"]
    config.bind = [f"fd://{listener.fileno()}"]
    print(f"serving http://127.0.0.1:{port}/acp", flush=True)
    await hypercorn.asyncio.serve(app, config)  # type: ignore[arg-type]


if __name__ == "__main__":
    asyncio.run(main())
