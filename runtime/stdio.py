"""stdio transports: an agent serving on its own stdin/stdout, a client spawning an agent.

An agent's stdout carries ACP messages only. While `serve_agent` runs, file descriptor 1 and
`sys.stdout` point at stderr, so stray prints, logging and child processes land there; protocol
messages go to a private duplicate of the original stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import Any, AsyncIterator

from .agent import AgentSideConnection
from .client import ClientSideConnection
from .errors import ConnectionClosedError

_STDERR_TAIL = 64 * 1024


class _FileReader:
    """Reads a regular file (which event-loop pipes refuse); such reads never block for long."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def read(self, n: int = -1) -> bytes:
        return await asyncio.get_running_loop().run_in_executor(None, os.read, self._fd, n if n > 0 else 1 << 16)


class _FileWriter:
    def __init__(self, fd: int) -> None:
        self._fd = fd

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        return None


async def _reader_for(fd: int) -> Any:
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 20)
    try:
        await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), os.fdopen(fd, "rb", buffering=0, closefd=False)
        )
    except (ValueError, OSError):
        return _FileReader(fd)
    return reader


async def _writer_for(fd: int) -> Any:
    loop = asyncio.get_running_loop()
    pipe = os.fdopen(fd, "wb", buffering=0, closefd=False)
    try:
        transport, protocol = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
    except (ValueError, OSError):
        return _FileWriter(fd)
    return asyncio.StreamWriter(transport, protocol, None, loop)


@contextlib.asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[Any, Any]]:
    """This process's stdin and stdout as (reader, writer), stdout reserved for the protocol.

    Text still buffered in `sys.stdout` when this starts is flushed to stderr too.
    """
    protocol_fd = os.dup(1)
    saved_fd = os.dup(1)
    os.dup2(2, 1)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    saved_stdout, sys.stdout = sys.stdout, sys.stderr
    stdin_blocking = os.get_blocking(0)
    try:
        reader = await _reader_for(0)
        writer = await _writer_for(protocol_fd)
        try:
            yield reader, writer
        finally:
            with contextlib.suppress(Exception):
                writer.close()
    finally:
        sys.stdout = saved_stdout
        with contextlib.suppress(Exception):
            saved_stdout.flush()  # what was printed while serving still goes to stderr
        os.dup2(saved_fd, 1)
        os.close(saved_fd)
        os.close(protocol_fd)
        with contextlib.suppress(OSError):
            os.set_blocking(0, stdin_blocking)


async def serve_agent(handler: Any, **options: Any) -> None:
    """Serve `handler` as an agent on this process's stdin/stdout until the client goes away."""
    async with stdio_streams() as (reader, writer):
        conn = AgentSideConnection(handler, reader, writer, **options)
        await conn.wait_closed()


def run_agent(handler: Any, **options: Any) -> None:
    """`asyncio.run(serve_agent(handler, **options))`: the whole `main` of a stdio agent."""
    asyncio.run(serve_agent(handler, **options))


@contextlib.asynccontextmanager
async def spawn_agent(
    handler: Any,
    command: str,
    *args: str,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    stderr: Any = None,
    shutdown_timeout: float = 2.0,
    **options: Any,
) -> AsyncIterator[ClientSideConnection]:
    """Start an agent subprocess and yield a `ClientSideConnection` to it.

    `stderr`: None passes the agent's stderr through; `asyncio.subprocess.PIPE` captures it (the
    last 64 KiB are kept in `conn.stderr_tail`); DEVNULL or a file also work. When the agent dies,
    every pending call fails at once with `ConnectionClosedError` naming its exit code. On exit the
    agent's stdin is closed, it gets `shutdown_timeout` seconds to exit, then SIGTERM, then SIGKILL;
    it is always reaped.
    """
    process = await asyncio.create_subprocess_exec(
        command,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
        env=env,
        cwd=cwd,
    )
    tasks: list[asyncio.Task[Any]] = []
    try:
        conn = ClientSideConnection(handler, process.stdout, process.stdin, **options)
        conn.process = process
        conn.stderr_tail = b""  # type: ignore[attr-defined]

        async def describe_eof() -> str:
            try:
                code = await asyncio.wait_for(_exit_code(process), 0.5)
            except asyncio.TimeoutError:
                return "the agent closed its stdout"
            return f"the agent process exited with code {code}"

        conn.describe_eof = describe_eof
        tasks.append(asyncio.create_task(_watch(process, conn)))
        if process.stderr is not None:
            tasks.append(asyncio.create_task(_drain_stderr(process.stderr, conn)))
        yield conn
    finally:
        if "conn" in locals():
            await conn.close()
        await _reap(process, shutdown_timeout)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _exit_code(process: asyncio.subprocess.Process) -> int:
    """The exit code, as soon as the process exits (`process.wait()` also waits for its pipes)."""
    if process.returncode is None and hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(process.pid)
        except OSError:
            pass
        else:
            loop = asyncio.get_running_loop()
            exited: asyncio.Future[None] = loop.create_future()

            def on_exit() -> None:
                if not exited.done():
                    exited.set_result(None)

            loop.add_reader(pidfd, on_exit)
            try:
                await exited
            finally:
                loop.remove_reader(pidfd)
                os.close(pidfd)
    while process.returncode is None:  # exited, but not yet reaped by asyncio's child watcher
        await asyncio.sleep(0.01)
    return process.returncode


async def _watch(process: asyncio.subprocess.Process, conn: ClientSideConnection) -> None:
    """A dead agent whose stdout stays open (a grandchild holds it) still closes the connection."""
    code = await _exit_code(process)
    await asyncio.sleep(0.5)  # time for its last output to be read
    if not conn.closed:
        await conn.close(ConnectionClosedError(f"connection closed: the agent process exited with code {code}"))


async def _drain_stderr(stream: asyncio.StreamReader, conn: Any) -> None:
    while chunk := await stream.read(1 << 16):
        conn.stderr_tail = (conn.stderr_tail + chunk)[-_STDERR_TAIL:]


async def _reap(process: asyncio.subprocess.Process, timeout: float) -> None:
    if process.stdin is not None:
        with contextlib.suppress(Exception):
            process.stdin.close()
    for stop in (None, process.terminate, process.kill):
        if stop is not None and process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                stop()
        try:
            await asyncio.wait_for(_exit_code(process), timeout)
            break
        except asyncio.TimeoutError:
            continue
    transport = getattr(process, "_transport", None)  # its pipes, even if a grandchild holds them
    if transport is not None:
        transport.close()
