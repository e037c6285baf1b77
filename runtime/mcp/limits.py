"""The numbers of MCP over ACP (`mcp/message`), shared by the provider and the caller: the method,
the MCP revision the binding carries, the inner `_meta` keys of that revision, the outer ACP error
codes of the binding, and the default limits.

The codes and defaults are those of the ACP TypeScript SDK 2.4.0 (`dist/mcp/core.js`), so the two
interoperate: its provider answers an unknown server -33001, ours does; its caller reads -33000 as
a resource limit, ours sends it. An inner MCP error is never one of these: it travels in a
successful answer's `error` carrier (`McpProtocolError`).
"""

from __future__ import annotations

from typing import Any

MCP_MESSAGE = "mcp/message"
"""The ACP method carrying MCP requests (client -> provider) and request-scoped notifications."""

MCP_PROTOCOL_VERSION = "2026-07-28"
"""The one MCP revision the binding carries: stateless, each request naming its version."""

META_PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"

# Outer ACP error codes of the binding (never inner MCP codes).
INVALID_PARAMS = -32602  # a malformed envelope, or a duplicate active (serverId, requestId)
REQUEST_CANCELLED = -32800  # the outer request was cancelled ($/cancel_request)
RESOURCE_LIMIT_EXCEEDED = -33000  # too many requests in flight, or a message over the size bound
SERVER_UNAVAILABLE = -33001  # no server of that serverId is registered on this connection
BACKEND_FAILED = -33002  # the backend failed without a valid MCP outcome

# Inner MCP error codes the provider answers with itself (in the `error` carrier).
MCP_INVALID_PARAMS = -32602
MCP_UNSUPPORTED_VERSION = -32022

MAX_ACTIVE_REQUESTS = 64
"""Requests one server serves at once (the TypeScript SDK's `maxActiveRequests` default); one more
is answered -33000 at once, nothing queued."""

MAX_MESSAGE_BYTES = 32 * 1024 * 1024
"""The largest inner message (params, result, notification params) in bytes: the TypeScript SDK's
ACP framing bound (`DEFAULT_MAX_MESSAGE_BYTES`), which a bigger message would break its connection
on. Pass it as the connection's `max_line_bytes` so a bigger line is refused unread."""

MAX_ABANDONED_IDS = 1024
"""Request ids a caller remembers after their call ended (to tell a late notification from one of
an unknown request in the log): bounded, oldest forgotten first."""


class McpProtocolError(Exception):
    """An inner MCP error: raised by a backend (or returned to a caller) it is answered in the
    `error` carrier of a successful `mcp/message` answer, never as an outer ACP error."""

    def __init__(self, code: int, message: str, data: Any = None, *, has_data: bool = False):
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.has_data = has_data or data is not None

    def to_error(self) -> dict[str, Any]:
        """The error object as the carrier holds it."""
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.has_data:
            error["data"] = self.data
        return error

    @classmethod
    def from_error(cls, error: dict[str, Any]) -> McpProtocolError:
        """The exception of a received error object (its `data`, even an explicit null, kept)."""
        return cls(
            int(error.get("code", 0)),
            str(error.get("message", "")),
            error.get("data"),
            has_data="data" in error,
        )

    def __repr__(self) -> str:
        return f"McpProtocolError({self.code}, {self.message!r})"
