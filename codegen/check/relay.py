"""The agent a client under check spawns: `python -m acpgen.check.relay SOCKET` joins its stdin
and stdout to the checker's Unix socket, byte for byte, until either side closes.

Standard library only; it holds no ACP logic (the checker, at the socket's other end, is the
agent)."""

from __future__ import annotations

import os
import socket
import sys
import threading


def _upstream(sock: socket.socket) -> None:
    while data := os.read(0, 1 << 16):
        sock.sendall(data)
    sock.shutdown(socket.SHUT_WR)


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m acpgen.check.relay SOCKET", file=sys.stderr)
        return 2
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(argv[0])
    except OSError as exc:
        print(f"acpgen check relay: cannot reach {argv[0]}: {exc}", file=sys.stderr)
        return 1
    threading.Thread(target=_upstream, args=(sock,), daemon=True).start()
    while data := sock.recv(1 << 16):
        view = memoryview(data)
        while view:
            view = view[os.write(1, view) :]
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
