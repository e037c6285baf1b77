"""The JSON-RPC 2.0 vocabulary of the runtime, below everything that speaks it: the error codes, the
request id, and the one reader of a message's envelope (kind, id, method, `sessionId`), which
routes, refuses or answers a message without decoding it with a package.

The generated package decodes messages for real (`MessageDecoder`); what is read here is only
what a transport needs to route a message, what version negotiation reads of an `initialize`,
and what a connection needs to answer a message the package refused.
"""

from __future__ import annotations

import re
from typing import Any, TypeAlias, Union

import msgspec

from .framing import SNIFF

SESSION_ID = "sessionId"
"""The one ACP member the envelope reader reads: a message's session, which routes it over HTTP
(`rules.SESSION_ID`)."""

# The codes JSON-RPC 2.0 itself defines (the generated errors.py names the same, for its package).
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

# Cancelling a request in flight (`$/cancel_request`, as LSP does): a notification either side may
# send naming one of its own requests, which the other side answers -32800 when it stops serving it.
CANCEL_REQUEST = "$/cancel_request"
CANCEL_REQUEST_ID = "requestId"
REQUEST_CANCELLED = -32800

RequestId: TypeAlias = Union[int, float, str, None]
"""A JSON-RPC id as a connection reads it off the wire, as the generated codec decodes it: a string
or a number (JSON-RPC 2.0 allows a fractional one, which is answered as it came), or null in an
error answer to a message whose id could not be read. The ids this side sends are integers. (The
schema's own `RequestId`, `int | str`, types the `requestId` a `$/cancel_request` names.)"""


class _Envelope(msgspec.Struct):
    id: Any = msgspec.UNSET
    method: Any = None
    params: msgspec.Raw = msgspec.Raw()  # empty: absent
    result: msgspec.Raw = msgspec.Raw()
    error: msgspec.Raw = msgspec.Raw()


_SessionRef = msgspec.defstruct("_SessionRef", [(SESSION_ID, Any, None)])
_envelope = msgspec.json.Decoder(_Envelope)
_envelopes = msgspec.json.Decoder(list[_Envelope])
_session_ref = msgspec.json.Decoder(_SessionRef)


class Peek(msgspec.Struct, frozen=True):
    """The envelope of one message. `kind` is "request", "notification", "response", "batch" (a
    JSON array: ACP has no batches), "invalid" (not a JSON object, or no method and no
    result/error) or "too_deep" (nested deeper than the decoder goes; `id` is the id read from its
    first bytes, when there is one)."""

    kind: str
    id: Any = None  # any JSON, as it came: `answer_id` / `id_key` give the usable id
    method: str | None = None
    session_id: str | None = None  # params.sessionId of a request or notification
    result_session_id: str | None = None  # result.sessionId of a response
    problem: str | None = None  # why an "invalid" message is invalid, when the decoder said
    failed: bool = False  # a response with an error
    # of a request or notification, undecoded (empty: absent)
    params: msgspec.Raw = msgspec.Raw()
    notifications_only: bool = False  # a batch whose every entry is a notification

    @property
    def id_key(self) -> tuple[str, Any] | None:
        """The id as a dictionary key that tells 1 from "1"."""
        usable = self.answer_id
        return (type(usable).__name__, usable) if usable is not None else None

    @property
    def answer_id(self) -> int | str | None:
        """The id an answer to this message carries: its own when it is an integer or a string,
        else null."""
        usable = isinstance(self.id, (int, str)) and not isinstance(self.id, bool)
        return self.id if usable else None


def _session_of(raw: msgspec.Raw) -> str | None:
    if not raw:
        return None
    try:
        value = getattr(_session_ref.decode(raw), SESSION_ID)
    except (msgspec.DecodeError, msgspec.ValidationError):
        return None
    return value if isinstance(value, str) else None


def peek(data: bytes) -> Peek:
    """The envelope of one message (bytes of one JSON value). Raises `msgspec.DecodeError` for
    bytes that are not JSON at all."""
    try:
        env = _envelope.decode(data)
    except msgspec.ValidationError as exc:
        if data.lstrip()[:1] == b"[":
            return _batch(data)
        return Peek("invalid", problem=str(exc))
    except RecursionError:
        return Peek("too_deep", sniff(data[:SNIFF])[1])
    if isinstance(env.method, str):
        kind, request_id = (
            ("notification", None) if env.id is msgspec.UNSET else ("request", env.id)
        )
        return Peek(kind, request_id, env.method, _session_of(env.params), params=env.params)
    if env.id is not msgspec.UNSET and (env.result or env.error):
        return Peek("response", env.id, None, None, _session_of(env.result), failed=bool(env.error))
    return Peek("invalid")


def _batch(data: bytes) -> Peek:
    try:
        entries = _envelopes.decode(data)
    except msgspec.ValidationError:  # an entry that is no object
        return Peek("batch")
    except RecursionError:
        return Peek("too_deep")
    only = bool(entries) and all(
        isinstance(e.method, str) and e.id is msgspec.UNSET for e in entries
    )
    return Peek("batch", notifications_only=only)


def sniff(head: bytes) -> tuple[str, RequestId]:
    """Guess the kind and id of a message from the top-level keys in its first bytes (of an
    oversized message, or one nested too deep to decode): each key's value as it is written when
    a string, an integer, else `...`."""
    keys: dict[str, object] = {}
    depth, key, expect_key = 0, None, False
    for match in _TOKEN.finditer(head.decode("utf-8", "replace")):
        token, string = match.group(), match.group(1)
        if depth == 1 and string is not None and expect_key:
            key, expect_key = string, False
            continue
        if depth == 1 and key is not None and token not in "}],":  # the value of `key`
            value = string if string is not None else int(token) if token[-1].isdigit() else ...
            keys[key], key = value, None
        if token in "{[":
            depth += 1
            expect_key = depth == 1
        elif token in "}]":
            depth -= 1
        elif depth == 1 and token == ",":
            expect_key = True
    request_id = keys.get("id")
    request_id = request_id if isinstance(request_id, (int, str)) else None
    if "method" in keys:
        return ("request" if "id" in keys else "notification"), request_id
    if "result" in keys or "error" in keys:
        return "response", request_id
    return "unknown", request_id


_TOKEN = re.compile(r'"((?:[^"\\]|\\.?)*)"?|-?\d+|-|[^\W\d_]+|[{}\[\],]', re.S)
"""What `sniff` reads: a string (its text as written, unterminated at the end of the head), an
integer, a word (true, false, null), a bracket or a comma; anything else is skipped."""


def classify(line: bytes) -> tuple[str, RequestId]:
    """The kind and id of a message a package refused, to answer it: "request", "notification"
    (a batch of notifications only too: never answered), "response", "unknown", or "unparsable"
    (not JSON, and no kind read from its first bytes)."""
    try:
        message = peek(line)
    except msgspec.DecodeError:
        kind, request_id = sniff(line[:SNIFF])
        return ("unparsable" if kind == "unknown" else kind), request_id
    if message.kind in ("request", "notification", "response"):
        return message.kind, message.answer_id
    if message.kind == "batch" and message.notifications_only:
        return "notification", None
    if message.kind == "too_deep":
        return sniff(line[:SNIFF])
    return "unknown", None
