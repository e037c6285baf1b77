"""stdio transports: an agent serving on its own stdin/stdout, a client spawning an agent.

An agent's stdout carries ACP messages only. While `serve_agent` runs, file descriptor 1 and
`sys.stdout` point at stderr, so stray prints, logging and child processes land there; protocol
messages go to a private duplicate of the original stdout.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import os
import selectors
import signal
import stat
import subprocess
import sys
from typing import (
    IO,
    TYPE_CHECKING,
    Any,
    AsyncIterator,
    Callable,
    Coroutine,
    TypeVar,
    cast,
    overload,
)

from .jsonrpc.errors import ConnectionClosedError
from .jsonrpc.framing import ByteReader, PushProtocol, PushReader
from .protocol.agent import AgentSideConnection
from .protocol.client import ClientSideConnection

if TYPE_CHECKING:
    from contextlib import AbstractAsyncContextManager

    from typing_extensions import Unpack

    import acp_schema

    from .jsonrpc.package import AgentPackage, ClientPackage, HandlerT, ProxyT
    from .protocol.connection import AgentRoutes, ClientRoutes, ConnectionOptions

    AgentHandlerArg = (
        acp_schema.AgentHandler
        | Callable[[AgentSideConnection[acp_schema.ClientProxy]], acp_schema.AgentHandler]
        | AgentRoutes  # several protocol versions, each route with its package
    )
    ClientHandlerArg = (
        acp_schema.ClientHandler
        | Callable[[ClientSideConnection[acp_schema.AgentProxy]], acp_schema.ClientHandler]
        | ClientRoutes
    )

_STDERR_TAIL = 64 * 1024
T = TypeVar("T")


class _File:
    """Reads or writes a regular file (which event-loop pipes refuse); such reads and writes never
    block for long."""

    def __init__(self, fd: int) -> None:
        self._fd = fd

    async def read(self, n: int = -1) -> bytes:
        return await asyncio.to_thread(os.read, self._fd, n if n > 0 else 1 << 16)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view) :]

    async def drain(self) -> None:
        return None

    def close(self) -> None:
        return None


def _pipe_like(fd: int) -> bool:
    """Whether an event loop's pipe transport can take `fd`: a pipe, a socket, or a character
    device the system can poll (a terminal; not /dev/null, which epoll refuses with EPERM: the
    transport would log that and wait forever). asyncio refuses anything else; uvloop would abort
    the process on a regular file."""
    try:
        mode = os.fstat(fd).st_mode
    except OSError:
        return False
    if not stat.S_ISCHR(mode):
        return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
    with selectors.DefaultSelector() as selector:
        try:
            selector.register(fd, selectors.EVENT_READ | selectors.EVENT_WRITE)
        except OSError:
            return False
    return True


async def _stream(fd: int, mode: str) -> Any:
    """A reader ("rb": a `PushReader`) or writer ("wb": a `StreamWriter`) of `fd` on an event-loop
    pipe, a `_File` where such a pipe cannot take `fd`. The pipe's transport owns and closes a
    duplicate of `fd` (uvloop's transports close the descriptor they are given; asyncio's close the
    file)."""
    if _pipe_like(fd):
        loop = asyncio.get_running_loop()
        pipe = os.fdopen(os.dup(fd), mode, buffering=0)
        try:
            if mode == "wb":
                piped = await loop.connect_write_pipe(asyncio.streams.FlowControlMixin, pipe)
                return asyncio.StreamWriter(*piped, None, loop)
            reader = PushReader()
            await loop.connect_read_pipe(lambda: PushProtocol(reader), pipe)
            return reader
        except (ValueError, OSError):
            pipe.close()
    return _File(fd)


@contextlib.asynccontextmanager
async def stdio_streams() -> AsyncIterator[tuple[ByteReader, _File | asyncio.StreamWriter]]:
    """This process's stdin and stdout as (reader, writer), stdout reserved for the protocol.

    Text still buffered in `sys.stdout` when this starts is flushed to stderr too.
    """
    saved_fd = os.dup(1)  # the original stdout: the protocol's (its writer's), restored after
    os.dup2(2, 1)
    with contextlib.suppress(Exception):
        sys.stdout.flush()
    saved_stdout, sys.stdout = sys.stdout, sys.stderr
    stdin_blocking = os.get_blocking(0)
    try:
        reader: ByteReader = await _stream(0, "rb")
        writer: _File | asyncio.StreamWriter = await _stream(saved_fd, "wb")
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
        with contextlib.suppress(OSError):
            os.set_blocking(0, stdin_blocking)


@overload
async def serve_agent(
    handler: AgentHandlerArg, *, schema: None = None, **options: Unpack[ConnectionOptions]
) -> None: ...
@overload
async def serve_agent(
    handler: HandlerT | Callable[[AgentSideConnection[ProxyT]], HandlerT],
    *,
    schema: AgentPackage[ProxyT, HandlerT],
    **options: Unpack[ConnectionOptions],
) -> None: ...
async def serve_agent(handler: Any, *, schema: Any = None, **options: Any) -> None:
    """Serve `handler` as an agent on this process's stdin/stdout until the client goes away.

    (Its overloads type what is passed, handler and schema together; this only passes it on.)"""
    async with stdio_streams() as (reader, writer):
        conn = AgentSideConnection(handler, reader, writer, schema=schema, **options)
        await conn.wait_closed()


LOOP_ENV = "ACP_RUNTIME_LOOP"
"""Which event loop `run` uses: "auto" (default: uvloop when installed), "uvloop" or "asyncio"."""


def run(main: Coroutine[Any, Any, T]) -> T:
    """`asyncio.run(main)`, on uvloop's event loop when uvloop is installed (the `fast` extra).

    `ACP_RUNTIME_LOOP=asyncio` keeps the standard loop; `ACP_RUNTIME_LOOP=uvloop` requires uvloop.
    uvloop is imported here, on first use, never by importing acp_runtime.
    """
    choice = os.environ.get(LOOP_ENV, "auto")
    if choice not in ("auto", "uvloop", "asyncio"):
        raise ValueError(f'{LOOP_ENV} must be "auto", "uvloop" or "asyncio", not {choice!r}')
    if choice != "asyncio":
        try:
            uvloop = importlib.import_module("uvloop")
        except ImportError:
            if choice == "uvloop":
                main.close()
                raise RuntimeError(
                    f"{LOOP_ENV}=uvloop, but uvloop is not installed; install the fast extra,"
                    " pip install -e '.[fast]' in the acpgen clone"
                ) from None
        else:
            return cast(T, uvloop.run(main))
    return asyncio.run(main)


@overload
def run_agent(
    handler: AgentHandlerArg, *, schema: None = None, **options: Unpack[ConnectionOptions]
) -> None: ...
@overload
def run_agent(
    handler: HandlerT | Callable[[AgentSideConnection[ProxyT]], HandlerT],
    *,
    schema: AgentPackage[ProxyT, HandlerT],
    **options: Unpack[ConnectionOptions],
) -> None: ...
def run_agent(handler: Any, *, schema: Any = None, **options: Any) -> None:
    """`run(serve_agent(handler, **options))`: the whole `main` of a stdio agent (on uvloop when
    it is installed, see `run`)."""
    run(serve_agent(handler, schema=schema, **options))


@overload
def spawn_agent(
    handler: ClientHandlerArg,
    command: str,
    *args: str,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    stderr: int | IO[Any] | None = None,
    shutdown_timeout: float = 2.0,
    schema: None = None,
    **options: Unpack[ConnectionOptions],
) -> AbstractAsyncContextManager[ClientSideConnection[acp_schema.AgentProxy]]: ...
@overload
def spawn_agent(
    handler: HandlerT | Callable[[ClientSideConnection[ProxyT]], HandlerT],
    command: str,
    *args: str,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    stderr: int | IO[Any] | None = None,
    shutdown_timeout: float = 2.0,
    schema: ClientPackage[ProxyT, HandlerT],
    **options: Unpack[ConnectionOptions],
) -> AbstractAsyncContextManager[ClientSideConnection[ProxyT]]: ...
@contextlib.asynccontextmanager
async def spawn_agent(
    handler: Any,
    command: str,
    *args: str,
    env: dict[str, str] | None = None,
    cwd: str | None = None,
    stderr: int | IO[Any] | None = None,
    shutdown_timeout: float = 2.0,
    schema: Any = None,
    **options: Any,
) -> AsyncIterator[ClientSideConnection[Any]]:
    """Start an agent subprocess and yield a `ClientSideConnection` to it.

    `stderr`: None passes the agent's stderr through; `asyncio.subprocess.PIPE` captures it (the
    last 64 KiB are kept in `conn.stderr_tail`); DEVNULL or a file also work. When the agent dies,
    every pending call fails at once with `ConnectionClosedError` naming its exit code.

    The agent runs in a session (and process group) of its own, so wrappers (`npx`, `uvx`, shell
    scripts) and everything they start can be stopped together. On exit the agent's stdin is
    closed and it gets `shutdown_timeout` seconds to exit; then whatever is left of its process
    group gets SIGTERM, another `shutdown_timeout`, then SIGKILL. The child is always reaped. See
    `_stop_tree` for what escapes this and for platforms without process groups.
    """
    loop = asyncio.get_running_loop()
    transport, protocol = await loop.subprocess_exec(
        lambda: _AgentProcess(loop),
        command,
        *args,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=stderr,
        env=env,
        cwd=cwd,
        **own_group(),
    )
    process = asyncio.subprocess.Process(transport, protocol, loop)
    tasks: list[asyncio.Task[None]] = []
    conn: ClientSideConnection[Any] | None = None
    try:
        assert process.stdin is not None  # a pipe
        conn = ClientSideConnection(handler, protocol.out, process.stdin, schema=schema, **options)
        conn.process = process
        conn.stderr_tail = b""

        async def describe_eof() -> str:
            try:
                code = await asyncio.wait_for(exit_code(process), 0.5)
            except asyncio.TimeoutError:
                return "the agent closed its stdout"
            return f"the agent process exited with code {code}"

        conn.describe_eof = describe_eof
        tasks.append(asyncio.create_task(_watch(process, conn)))
        if process.stderr is not None:
            tasks.append(asyncio.create_task(_drain_stderr(process.stderr, conn)))
        yield conn
    finally:
        if conn is not None:
            await conn.close()
        await reap(process, shutdown_timeout)
        transport.close()  # its pipes, even if a grandchild holds them
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


class _AgentProcess(asyncio.subprocess.SubprocessStreamProtocol):
    """`asyncio.create_subprocess_exec`'s protocol, but the agent's stdout goes to a `PushReader`
    (`out`), whose messages reach the connection in the callback that received them; the
    process's `stdout` stream stays empty."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=1 << 20, loop=loop)
        self.out = PushReader()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        super().connection_made(transport)
        pipe = cast("asyncio.SubprocessTransport", transport).get_pipe_transport(1)
        self.out.transport = cast("asyncio.ReadTransport | None", pipe)

    def pipe_data_received(self, fd: int, data: bytes | str) -> None:
        if fd == 1:
            self.out.feed_data(data)  # type: ignore[arg-type]  # bytes: no `cast` call per chunk
        else:
            super().pipe_data_received(fd, data)

    def pipe_connection_lost(self, fd: int, exc: Exception | None) -> None:
        if fd == 1:
            self.out.feed_eof(exc)
        super().pipe_connection_lost(fd, exc)


async def exit_code(process: asyncio.subprocess.Process) -> int:
    """The exit code, as soon as the process exits (`process.wait()` also waits for its pipes)."""
    if process.returncode is None and hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(process.pid)
        except OSError:
            pass
        else:
            loop, exited = asyncio.get_running_loop(), asyncio.Event()
            loop.add_reader(pidfd, exited.set)
            try:
                await exited.wait()
            finally:
                loop.remove_reader(pidfd)
                os.close(pidfd)
    while process.returncode is None:  # exited, but not yet reaped by asyncio's child watcher
        await asyncio.sleep(0.01)
    return process.returncode


async def _watch(process: asyncio.subprocess.Process, conn: ClientSideConnection) -> None:
    """A dead agent whose stdout stays open (a grandchild holds it) still closes the connection."""
    code = await exit_code(process)
    await asyncio.sleep(0.5)  # time for its last output to be read
    if not conn.closed:
        await conn.close(
            ConnectionClosedError(f"connection closed: the agent process exited with code {code}")
        )


async def _drain_stderr(stream: asyncio.StreamReader, conn: ClientSideConnection[Any]) -> None:
    while chunk := await stream.read(1 << 16):
        conn.stderr_tail = (conn.stderr_tail + chunk)[-_STDERR_TAIL:]


def own_group() -> dict[str, Any]:
    """Options that start the child as the leader of a new session and process group (POSIX), or
    of a new process group (Windows: `CREATE_NEW_PROCESS_GROUP`, so it is not hit by our Ctrl+C)."""
    if sys.platform == "win32":  # pragma: no cover - untested: no Windows here
        return {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    return {"start_new_session": True}


async def reap(process: asyncio.subprocess.Process, timeout: float) -> None:
    """Close the agent's stdin, give it `timeout` to exit, then stop its whole process tree."""
    if process.stdin is not None:
        with contextlib.suppress(Exception):
            process.stdin.close()
    with contextlib.suppress(asyncio.TimeoutError):
        await asyncio.wait_for(exit_code(process), timeout)
    await _stop_tree(process, timeout)
    await exit_code(process)  # a child that got SIGKILL exits: always reaped


async def _stop_tree(process: asyncio.subprocess.Process, timeout: float) -> None:
    """SIGTERM, then after `timeout` SIGKILL, to every process left in the agent's process group.

    The group id is the child's pid (it leads its own session), so this also works after the child
    itself exited: a wrapper that exited before its children left them in the group. A process that
    moved to a session or group of its own (`setsid`, a daemonizing agent) escapes, as does one
    started by a process outside the group. Windows (untested, no Windows here): there are no
    process groups to signal, so the tree is ended with `taskkill /T /F /PID`, which walks the
    parent links of processes still alive; a grandchild whose parent already exited is missed
    there (a Job Object would catch it).
    """
    if os.name == "nt":  # pragma: no cover - untested: no Windows here
        if process.returncode is None:
            tree = ("taskkill", "/T", "/F", "/PID", str(process.pid))  # with its children
            quiet = subprocess.DEVNULL
            killer = await asyncio.create_subprocess_exec(*tree, stdout=quiet, stderr=quiet)
            await killer.wait()
        return
    group, loop = process.pid, asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not _group_alive(group):
            return
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(group, sig)
        deadline = loop.time() + timeout  # until no live process is left (no event says so)
        while _group_alive(group) and loop.time() < deadline:
            await asyncio.sleep(0.02)


def _group_alive(group: int) -> bool:
    """Whether a process of `group` is still running; zombies (exited, not yet reaped by their
    parent or by init) do not count. Reads /proc where there is one, else asks the kernel."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        try:
            os.killpg(group, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True
    for entry in filter(str.isdigit, entries):
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rindex(b")") + 2 :].split()  # after "pid (comm) ": state ppid pgrp ...
        if int(fields[2]) == group and fields[0] not in (b"Z", b"X"):
            return True
    return False
