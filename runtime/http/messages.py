"""What the HTTP transport needs to know about a JSON-RPC message to route it, read cheaply.

The transport never decodes a whole message: it peeks at the members that route it (`id`,
`method`, `params.sessionId`, `result.sessionId`) and hands the bytes on untouched. The
connection behind it decodes them with the generated package as stdio does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgspec

from .. import rules
from ..connection import _sniff
from ..framing import _SNIFF

CONNECTION_ID_HEADER = "Acp-Connection-Id"
SESSION_ID_HEADER = "Acp-Session-Id"
JSON_TYPE = "application/json"
EVENT_STREAM_TYPE = "text/event-stream"

SESSION_SETUP = rules.SESSION_CREATED_BY | rules.SESSION_OPENED_BY
"""Requests that set a session up on a connection: a client may send them without
`Acp-Session-Id` (it may not read that session's stream yet)."""


_SessionRef = msgspec.defstruct("_SessionRef", [(rules.SESSION_ID, Any, None)])


class _Envelope(msgspec.Struct):
    id: Any = msgspec.UNSET
    method: Any = None
    params: msgspec.Raw = msgspec.Raw()  # empty: absent
    result: msgspec.Raw = msgspec.Raw()
    error: msgspec.Raw = msgspec.Raw()


_envelope = msgspec.json.Decoder(_Envelope)
_session_ref = msgspec.json.Decoder(_SessionRef)


@dataclass(frozen=True)
class Peek:
    """The routing view of one message. `kind` is "request", "notification", "response",
    "invalid" (not a JSON object, or no method and no result/error) or "too_deep" (nested deeper
    than the decoder goes; `id` is the id read from its first bytes, when there is one)."""

    kind: str
    id: Any = None
    method: str | None = None
    session_id: str | None = None  # params.sessionId of a request or notification
    result_session_id: str | None = None  # result.sessionId of a response
    problem: str | None = None  # why an "invalid" message is invalid, when the decoder said
    failed: bool = False  # a response with an error

    @property
    def id_key(self) -> tuple[str, Any] | None:
        """The id as a dictionary key that tells 1 from "1"."""
        return id_key(self.id)


def id_key(request_id: Any) -> tuple[str, Any] | None:
    if isinstance(request_id, bool) or not isinstance(request_id, (int, str)):
        return None
    return (type(request_id).__name__, request_id)


def _session_of(raw: msgspec.Raw) -> str | None:
    if not raw:
        return None
    try:
        value = getattr(_session_ref.decode(raw), rules.SESSION_ID)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return value if isinstance(value, str) else None


def peek(data: bytes) -> Peek:
    """Peek at one message (bytes of one JSON value). Raises `msgspec.DecodeError` for bytes that
    are not JSON at all."""
    try:
        env = _envelope.decode(data)
    except msgspec.ValidationError as exc:
        return Peek("invalid", problem=str(exc))
    except RecursionError:
        return Peek("too_deep", _sniff(data[:_SNIFF])[1])
    if isinstance(env.method, str):
        kind = "notification" if env.id is msgspec.UNSET else "request"
        return Peek(
            kind, None if env.id is msgspec.UNSET else env.id, env.method, _session_of(env.params)
        )
    if env.id is not msgspec.UNSET and (env.result or env.error):
        return Peek("response", env.id, None, None, _session_of(env.result), failed=bool(env.error))
    return Peek("invalid")


def one_line(body: bytes) -> bytes:
    """A JSON text as one line: raw newlines can only be whitespace in JSON (inside strings they
    are escaped), so replacing them with spaces changes nothing else."""
    return body.replace(b"\r", b" ").replace(b"\n", b" ")
