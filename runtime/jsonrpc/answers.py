"""The JSON-RPC layer's answers, worked out without the engine's state: an error answer as the
package encodes it, the answer to a cancelled request, and what becomes of a message the package
could not decode (a `Refusal`: fail one of our calls, answer with an error, or drop it).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import msgspec

from . import (
    INTERNAL_ERROR,
    INVALID_REQUEST,
    PARSE_ERROR,
    REQUEST_CANCELLED,
    RequestId,
    classify,
    sniff,
    wire,
)
from .framing import SNIFF, OversizedLine

if TYPE_CHECKING:
    from ..jsonrpc.package import RpcException

log = logging.getLogger("acp_runtime")


def as_rpc_error(exc: BaseException) -> RpcException:
    """An exception of the package's `RpcError` (or from its `error_for`), typed as one."""
    return cast("RpcException", exc)


def error(schema: Any, code: int, message: str, data: Any = msgspec.UNSET) -> RpcException:
    """The package's error of `code` (its own class for the codes it names)."""
    return cast("RpcException", schema.error_for(code, message, data))


def encode_error(schema: Any, request_id: RequestId, err: RpcException) -> bytes:
    """An error answer; one whose code is not an integer, whose message is not a string or whose
    data cannot be encoded becomes -32603 (235)."""
    obj = err.to_error_object()
    try:
        if type(obj["code"]) is not int or not isinstance(obj["message"], str):
            raise TypeError(f"error code {obj['code']!r} / message {obj['message']!r}")
        data: bytes = schema.encode_message(schema.ErrorResponse(id=request_id, error=obj))
    except Exception as exc:
        log.error("could not send the error %r as it is (%r): answering -32603", err, exc)
        obj = {"code": INTERNAL_ERROR, "message": "Internal error"}
        data = schema.encode_message(schema.ErrorResponse(id=request_id, error=obj))
    return data


def encode_cancelled(
    schema: Any, request_id: RequestId, method: str, cancel_result: dict[str, Any] | None
) -> bytes:
    """The answer to a request whose handler was cancelled: `cancel_result` (what the protocol
    answers when its own cancel ended the request) as the method's result, else -32800."""
    info = schema.REQUESTS.get(method)
    if cancel_result is not None and info is not None:
        result = wire.build(schema, cancel_result, info.result)
        data: bytes = schema.encode_message(schema.Response(id=request_id, result=result))
        return data
    return encode_error(schema, request_id, error(schema, REQUEST_CANCELLED, "Request cancelled"))


class Refusal(NamedTuple):
    """What becomes of a message the package refused: `fails` the id of one of our calls to fail
    with `err` (a response), or `answer` it with `err` (under `request_id`), or neither: drop it."""

    err: RpcException
    request_id: RequestId = None
    fails: bool = False
    answer: bool = False


def bad_message(schema: Any, line: bytes, err: RpcException) -> Refusal:
    kind, request_id = classify(line)
    if kind == "response":  # fail its call; a response is never answered
        log.warning("dropped an invalid response (id %r): %s", request_id, err)
        return Refusal(err, request_id, fails=True)
    if kind == "notification" and err.code != PARSE_ERROR:
        log.warning("dropped an invalid notification: %s", err)
        return Refusal(err)
    if kind == "unparsable" and err.code != PARSE_ERROR:  # e.g. a truncated array
        err = error(schema, PARSE_ERROR, "Parse error", {"message": err.message})
    return Refusal(err, err.id, answer=True)


def too_deep(schema: Any, line: bytes) -> Refusal:
    """A message nested deeper than the JSON decoder goes: a request whose id can be read from its
    first bytes is answered -32600 with that id, a response fails its call, a notification is
    dropped, anything else is answered -32700 (never a traceback, and the connection lives on)."""
    kind, request_id = sniff(line[:SNIFF])
    text = "the message is nested deeper than the JSON decoder can take"
    if kind == "response":
        log.warning("dropped a response (id %r): %s", request_id, text)
        err = error(schema, INVALID_REQUEST, f"Invalid response: {text}")
        return Refusal(err, request_id, fails=True)
    if kind == "notification":
        log.warning("dropped a notification: %s", text)
        return Refusal(error(schema, INVALID_REQUEST, text))
    if kind == "request" and request_id is not None:
        err = error(schema, INVALID_REQUEST, f"Invalid request: {text}")
        return Refusal(err, request_id, answer=True)
    return Refusal(error(schema, PARSE_ERROR, "Parse error", {"message": text}), answer=True)


def oversized(schema: Any, line: OversizedLine, limit: int) -> Refusal:
    kind, request_id = sniff(line.head)
    message = f"Message of {line.size} bytes exceeds the limit of {limit} bytes"
    err = error(schema, INVALID_REQUEST, message, {"limit": limit, "size": line.size})
    log.warning("%s (a %s, id %r)", message, kind, request_id)
    if kind == "response":
        return Refusal(err, request_id, fails=True)
    return Refusal(err, request_id, answer=kind != "notification")
