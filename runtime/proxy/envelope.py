"""The JSON-RPC envelope as a proxy chain routes it: method and id read, everything else raw.

`params`, `result` and `error` stay `msgspec.Raw` bytes, so what a hop only passes on is never
decoded nor re-encoded: it goes out as the same JSON text it came in as.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import msgspec

INITIALIZE_PROXY = "proxy/initialize"
SUCCESSOR = "proxy/successor"
"""The RFD's two proxy methods; a schema with a proxy side declares both with x-side "proxy"."""
NO_PARAMS = msgspec.Raw(b"")
UNSET = msgspec.UNSET


class Envelope(msgspec.Struct):
    """One JSON-RPC message: `method` UNSET for an answer, `id` UNSET for a notification."""

    jsonrpc: str = "2.0"
    id: Any = UNSET
    method: Any = UNSET
    params: msgspec.Raw = NO_PARAMS
    result: msgspec.Raw = NO_PARAMS
    error: msgspec.Raw = NO_PARAMS


class Wrapped(msgspec.Struct):
    """The params of `proxy/successor`: the wrapped message's method and params. The envelope's
    own `_meta` is hop-local, so it is not read: unwrapping drops it."""

    method: str
    params: msgspec.Raw = NO_PARAMS


decode = msgspec.json.Decoder(Envelope).decode
decode_wrapped = msgspec.json.Decoder(Wrapped).decode
encode = msgspec.json.Encoder().encode


def message(request_id: Any, method: str, params: msgspec.Raw) -> dict[str, Any]:
    """A request (or, with `request_id` UNSET, a notification) ready for `encode`."""
    out: dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not UNSET:
        out["id"] = request_id
    out["method"] = method
    if params:
        out["params"] = params
    return out


def wrap(method: str, params: msgspec.Raw) -> msgspec.Raw:
    """The params of a `proxy/successor` carrying `method` and `params`."""
    inner: dict[str, Any] = {"method": method}
    if params:
        inner["params"] = params
    return msgspec.Raw(encode(inner))


def answer(request_id: Any, result: msgspec.Raw, error: msgspec.Raw) -> bytes:
    """The answer to `request_id`: `error` when there is one, else `result` (JSON null if empty)."""
    if error:
        return encode({"jsonrpc": "2.0", "id": request_id, "error": error})
    return encode({"jsonrpc": "2.0", "id": request_id, "result": result or msgspec.Raw(b"null")})


def error_answer(request_id: Any, code: int, text: str) -> bytes:
    """An error answer of the hop itself (not a wrapped one)."""
    return encode({"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": text}})


def initialize_method(schema: ModuleType) -> str:
    """The agent's request that takes the params of `proxy/initialize` (ACP's `initialize`)."""
    requests = schema.methods.REQUESTS
    params = requests[INITIALIZE_PROXY].params
    for method, info in requests.items():
        if info.side == "agent" and info.params is params:
            return method  # type: ignore[no-any-return]
    raise ValueError(f"{schema.__name__} has no agent request taking {INITIALIZE_PROXY}'s params")
