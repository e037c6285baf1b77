"""A one-proxy conductor for tests only (the real one is issue 36's priority 2, not built yet).

    python one_hop.py PROXY_CMD [ARGS...] -- AGENT_CMD [ARGS...]

On stdio it is an agent to its client. It sends `proxy/initialize` to the proxy and `initialize`
to the agent, wraps what the agent sends in `proxy/successor` for the proxy, unwraps what the
proxy sends in `proxy/successor` for the agent, passes the proxy's plain messages to the client,
and keeps each connection's ids apart. It decodes whole messages: it is a test fixture.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
from typing import Any, Callable

WRAP = "proxy/successor"
CANCEL = "$/cancel_request"
NAMES = ("client", "proxy", "agent")


class Link:
    """One connection: a way to send, fresh ids, and where each answer to our requests goes."""

    def __init__(self, name: str, write: Callable[[bytes], None]) -> None:
        self.name = name
        self.write = write
        self.ids = itertools.count(1)
        self.pending: dict[Any, tuple[Link, Any]] = {}  # our id -> (origin link, origin id)
        self.sent_for: dict[tuple[str, Any], Any] = {}  # (origin name, origin id) -> our id

    def send(self, message: dict[str, Any]) -> None:
        self.write(json.dumps(message).encode() + b"\n")

    def request(self, method: str, params: Any, origin: Link, origin_id: Any) -> None:
        our = next(self.ids)
        self.pending[our] = (origin, origin_id)
        origin.sent_for[(self.name, origin_id)] = our
        message = {"jsonrpc": "2.0", "id": our, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)


def deliver(target: Link, origin: Link, msg: dict[str, Any], method: str, params: Any) -> None:
    if "id" in msg:
        target.request(method, params, origin, msg["id"])
    else:
        target.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})})


def answer(link: Link, msg: dict[str, Any]) -> None:
    origin, origin_id = link.pending.pop(msg["id"])
    reply = {k: v for k, v in msg.items() if k in ("result", "error")}
    origin.send({"jsonrpc": "2.0", "id": origin_id, **reply})


def cancel(link: Link, targets: list[Link], msg: dict[str, Any]) -> None:
    request_id = (msg.get("params") or {}).get("requestId")
    for target in targets:
        our = link.sent_for.get((target.name, request_id))
        if our is not None:
            target.send({"jsonrpc": "2.0", "method": CANCEL, "params": {"requestId": our}})


def route(source: str, msg: dict[str, Any], client: Link, proxy: Link, agent: Link) -> None:
    link = {"client": client, "proxy": proxy, "agent": agent}[source]
    if "method" not in msg:
        answer(link, msg)
    elif msg["method"] == CANCEL:
        cancel(link, [proxy] if source != "proxy" else [client, agent], msg)
    elif source == "client":
        method = "proxy/initialize" if msg["method"] == "initialize" else msg["method"]
        deliver(proxy, client, msg, method, msg.get("params"))
    elif source == "agent":
        wrapped = {
            "method": msg["method"],
            **({"params": msg["params"]} if "params" in msg else {}),
        }
        deliver(proxy, agent, msg, WRAP, wrapped)
    elif msg["method"] == WRAP:
        inner = msg["params"]
        deliver(agent, proxy, msg, inner["method"], inner.get("params"))
    else:
        deliver(client, proxy, msg, msg["method"], msg.get("params"))


async def pump(name: str, stream: asyncio.StreamReader, on: Callable[[str, Any], None]) -> None:
    while line := await stream.readline():
        on(name, json.loads(line))


async def main(proxy_cmd: list[str], agent_cmd: list[str]) -> int:
    pipe = asyncio.subprocess.PIPE
    procs = [
        await asyncio.create_subprocess_exec(*cmd, stdin=pipe, stdout=pipe)
        for cmd in (proxy_cmd, agent_cmd)
    ]
    loop = asyncio.get_running_loop()
    stdin = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdin), sys.stdin)
    out = sys.stdout.buffer

    def to_stdout(data: bytes) -> None:
        out.write(data)
        out.flush()

    client = Link("client", to_stdout)
    writers = [p.stdin.write for p in procs if p.stdin is not None]
    proxy, agent = Link("proxy", writers[0]), Link("agent", writers[1])
    links = (client, proxy, agent)
    on = lambda name, msg: route(name, msg, *links)  # noqa: E731
    readers = [stdin, *(p.stdout for p in procs if p.stdout is not None)]
    tasks = [asyncio.ensure_future(pump(n, s, on)) for n, s in zip(NAMES, readers, strict=True)]
    await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for proc in procs:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()
    return 0


if __name__ == "__main__":
    args = sys.argv[1:]
    split = args.index("--")
    sys.exit(asyncio.run(main(args[:split], args[split + 1 :])))
