"""`python -m acp_runtime.conductor [--trace FILE] -- PROXY_CMD [ARGS...] [-- PROXY_CMD ...] --
AGENT_CMD [ARGS...]`: spawn the chain, be an agent on stdio, tear everything down at the end.

The chain ends when the client closes stdin (exit 0), when any component's output ends (exit 1,
each request of the client still in the chain answered with an error naming that component), or
on SIGTERM / SIGINT (exit 1). Every component is then stopped (`chain.py`) in bounded time.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import signal
import sys
from collections.abc import Sequence
from types import ModuleType

from ..jsonrpc.framing import LineReader, OversizedLine
from ..protocol.connection import default_schema
from ..stdio import run, stdio_streams
from .bridging import ChainMcp
from .chain import Component
from .conduct import Conductor, Link
from .envelope import initialize_method
from .remote import serve_remote
from .trace import Trace

USAGE = (
    "python -m acp_runtime.conductor [--trace FILE | --listen HOST:PORT] [--shutdown-timeout S] "
    "-- PROXY_CMD [ARGS...] [-- PROXY_CMD ...] -- AGENT_CMD [ARGS...]"
)


SIGNALS = (signal.SIGTERM, signal.SIGINT)


class Options(argparse.Namespace):
    trace: str | None
    listen: str | None
    shutdown_timeout: float
    commands: list[list[str]]


def parse(argv: Sequence[str]) -> Options:
    """The options before the first `--`, then one command after each `--` (the last: the agent).
    Exits 2 with the usage when a command is missing or empty."""
    parser = argparse.ArgumentParser(prog="python -m acp_runtime.conductor", usage=USAGE)
    parser.add_argument("--trace", metavar="FILE", help="write every hop's messages as JSON lines")
    parser.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="serve remote clients at http://HOST:PORT/acp (and ws://), a chain each (http extra)",
    )
    parser.add_argument(
        "--shutdown-timeout",
        type=float,
        default=1.0,
        metavar="S",
        help="seconds a component gets to exit, then again after SIGTERM (default 1)",
    )
    args = list(argv)
    if "--" not in args:
        parser.error("no component: give each command after a `--`, the agent's last")
    split = args.index("--")
    options = parser.parse_args(args[:split], namespace=Options())
    commands: list[list[str]] = [[]]
    for arg in args[split + 1 :]:
        if arg == "--":
            commands.append([])
        else:
            commands[-1].append(arg)
    empty = [i + 1 for i, command in enumerate(commands) if not command]
    if empty:
        parser.error(f"component {empty[0]} has no command: each `--` must be followed by one")
    if options.listen and options.trace:
        parser.error("--trace goes with stdio only: each remote connection has a chain of its own")
    options.commands = commands
    return options


def labels(count: int) -> list[str]:
    """`proxy 1`, ..., `proxy N-1`, `agent` (the last is the agent unless the conductor is made a
    proxy, in which case the label stays: it names the position)."""
    return [f"proxy {i + 1}" for i in range(count - 1)] + ["agent"]


def packages() -> list[ModuleType]:
    """The generated packages installed (the default first): what the agent's initialize
    answer may be read as, for MCP over ACP (bridging.py)."""
    found = [default_schema()]
    with contextlib.suppress(ImportError):
        found.append(importlib.import_module("acp_schema_v2"))
    return found


async def conduct(options: Options) -> int:
    components: list[Component] = []
    try:
        trace = Trace(open(options.trace, "wb", buffering=1 << 16)) if options.trace else None
    except OSError as exc:
        print(f"conductor: cannot write the trace {options.trace}: {exc}", file=sys.stderr)
        return 2
    loop = asyncio.get_running_loop()
    stopped = loop.create_future()

    def stop() -> None:
        if not stopped.done():
            stopped.set_result(None)

    for sig in SIGNALS:  # from here to the end: a signal starts the teardown, never cuts it short
        loop.add_signal_handler(sig, stop)
    try:
        for label, command in zip(labels(len(options.commands)), options.commands, strict=True):
            components.append(await Component.spawn(label, command))
        return await _serve(components, trace, stopped)
    except OSError as exc:
        print(f"conductor: {exc}", file=sys.stderr)
        return 2
    finally:
        await asyncio.gather(*(c.stop(options.shutdown_timeout) for c in components))
        if trace is not None:
            trace.close()
        for sig in SIGNALS:
            loop.remove_signal_handler(sig)


async def _serve(
    components: list[Component], trace: Trace | None, stopped: asyncio.Future[None]
) -> int:
    async with stdio_streams() as (reader, writer):
        links = [Link("client", writer.write), *(Link(c.label, c.write) for c in components)]
        initialize = initialize_method(default_schema())
        conductor = Conductor(links, initialize, trace)
        mcp = conductor.mcp = ChainMcp(packages(), initialize, conductor.notice)
        writers = [writer, *components]

        async def pump(index: int, lines: LineReader) -> None:
            while (batch := await lines.readlines()) is not None:
                for line in batch:
                    if isinstance(line, OversizedLine):
                        conductor.notice(f"the {links[index].hop} sent a {line.size}-byte line")
                    elif line:
                        conductor.receive(index, line)
                await asyncio.gather(*(w.drain() for w in writers), return_exceptions=True)

        pumps = [pump(0, LineReader(reader))]
        pumps += [pump(i + 1, c.lines) for i, c in enumerate(components)]
        tasks = [asyncio.ensure_future(p) for p in pumps]
        try:
            done, _ = await asyncio.wait([*tasks, stopped], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await mcp.close()
        if tasks[0] in done:
            return 0  # the client left
        if stopped in done:
            reason = "the conductor was stopped by a signal"
        else:
            ended = next(i for i, task in enumerate(tasks[1:]) if task in done)
            reason = await components[ended].ended()
        conductor.notice(reason)
        conductor.fail_pending(reason)
        with contextlib.suppress(Exception):
            await writer.drain()
        return 1


def main(argv: Sequence[str] | None = None) -> int:
    options = parse(sys.argv[1:] if argv is None else argv)
    if options.listen:
        serve_remote(options.commands, options.listen, options.shutdown_timeout)
        return 0
    return run(conduct(options))
