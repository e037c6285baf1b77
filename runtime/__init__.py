"""acp_runtime: run any acpgen-generated ACP package as agent or client, over stdio or remotely.

    import acp_schema
    from acp_runtime import AgentSideConnection, run_agent, spawn_agent

The generated package (default `acp_schema`, or any other passed as `schema=`) supplies every
type, method table, codec, error and proxy; this package adds JSON-RPC, the stdio transports and
ACP's protocol rules (all listed in `acp_runtime.protocol.rules`). See docs/runtime.md.
"""

from .jsonrpc import wire
from .jsonrpc.calls import PendingCall
from .jsonrpc.errors import (
    AcpRuntimeError,
    CapabilityError,
    ConnectionClosedError,
    NotInitializedError,
    ProtocolError,
    ProtocolVersionError,
    RequestTimeoutError,
    SchemaMismatchError,
)
from .jsonrpc.framing import DEFAULT_MAX_LINE_BYTES, memory_pipe
from .protocol import rules
from .protocol.agent import AgentSideConnection
from .protocol.client import ClientSideConnection
from .protocol.connection import Connection, default_schema
from .stdio import run, run_agent, serve_agent, spawn_agent, stdio_streams

__all__ = [
    "AcpRuntimeError",
    "AgentSideConnection",
    "CapabilityError",
    "ClientSideConnection",
    "Connection",
    "ConnectionClosedError",
    "DEFAULT_MAX_LINE_BYTES",
    "NotInitializedError",
    "PendingCall",
    "ProtocolError",
    "ProtocolVersionError",
    "RequestTimeoutError",
    "SchemaMismatchError",
    "default_schema",
    "memory_pipe",
    "rules",
    "run",
    "run_agent",
    "serve_agent",
    "spawn_agent",
    "stdio_streams",
    "wire",
]
