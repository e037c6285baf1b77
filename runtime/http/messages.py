"""What the HTTP transport needs to know about a JSON-RPC message to route it, read cheaply.

The transport never decodes a whole message: it peeks at the members that route it (`id`,
`method`, `params.sessionId`, `result.sessionId`) with the runtime's one envelope reader
(`acp_runtime.jsonrpc.peek`) and hands the bytes on untouched. The connection behind it decodes
them with the generated package as stdio does.
"""

from __future__ import annotations

from ..jsonrpc import Peek, id_key, peek
from ..protocol import rules

__all__ = [
    "CONNECTION_ID_HEADER",
    "EVENT_STREAM_TYPE",
    "JSON_TYPE",
    "SESSION_ID_HEADER",
    "SESSION_SETUP",
    "Peek",
    "id_key",
    "peek",
]

CONNECTION_ID_HEADER = "Acp-Connection-Id"
SESSION_ID_HEADER = "Acp-Session-Id"
JSON_TYPE = "application/json"
EVENT_STREAM_TYPE = "text/event-stream"

SESSION_SETUP = rules.SESSION_CREATED_BY | rules.SESSION_OPENED_BY
"""Requests that set a session up on a connection: a client may send them without
`Acp-Session-Id` (it may not read that session's stream yet)."""
