"""Errors the runtime raises on its own side of the wire.

Errors that travel over the wire (JSON-RPC error objects) are the generated package's `RpcError`
and its per-code subclasses (`schema.error_for(code, message, data)`); the runtime re-uses them and
defines none of its own. The classes here never leave the process: they tell the local caller why
a call could not even be made, or why it can no longer be answered.
"""

from __future__ import annotations

import msgspec


class AcpRuntimeError(Exception):
    """Base class of the errors raised locally by `acp_runtime`."""


class ConnectionClosedError(AcpRuntimeError, ConnectionError):
    """The connection is closed: the call was not sent, or will never be answered.

    Every call pending when the peer goes away (EOF, a dead child process, `close()`) fails at once
    with this error; `str(err)` says why.
    """


class ProtocolError(AcpRuntimeError):
    """A call that the protocol forbids at this point, refused locally; nothing was sent."""


class NotInitializedError(ProtocolError):
    """A call made before `initialize` completed."""


class SchemaMismatchError(ProtocolError, msgspec.ValidationError):
    """A value this side was about to send does not fit the schema, or holds a key the schema does
    not declare (it would not go out as written): nothing was sent.

    `method` is the call's method, `path` the JSON path of the first such place by wire names
    (`$.params.update.entries[0].status`, `$.result...` for a handler's answer), `value` the value
    found there and `reason` what is wrong with it. The schema's `x-deserialize-*` marks forgive a
    receiver, never a sender: its own bad value is refused, not repaired. It is a
    `msgspec.ValidationError` (so a `ValueError`) too.
    """

    def __init__(self, method: str, path: str, value: object, reason: str) -> None:
        self.method = method
        self.path = path
        self.value = value
        self.reason = reason
        super().__init__(
            f"{method or 'a value'}: {reason} at {path} (the value there: {_shown(value)})"
        )


def _shown(value: object, limit: int = 200) -> str:
    try:
        text = msgspec.json.encode(value).decode()
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= limit else text[:limit] + "..."


class ProtocolVersionError(ProtocolError):
    """The peer chose a protocol version this side does not speak; the connection is closed."""

    def __init__(self, chosen: object, supported: tuple[int, ...]) -> None:
        self.chosen = chosen
        self.supported = supported
        super().__init__(
            f"the agent chose ACP protocol version {chosen!r}, but this client supports only "
            f"{', '.join(map(str, supported))}; connection closed"
        )


class CapabilityError(ProtocolError):
    """An outgoing call the peer did not advertise (or that breaks a field rule); nothing was sent.

    Pass `enforce_protocol=False` to the connection to send such calls anyway.
    """

    def __init__(self, method: str, reason: str) -> None:
        self.method = method
        self.reason = reason
        super().__init__(f"{method}: {reason}")


class RequestTimeoutError(AcpRuntimeError, TimeoutError):
    """A call that got no answer within its timeout: `$/cancel_request` was sent for it and a late
    answer is dropped."""

    def __init__(self, method: str, timeout: float) -> None:
        self.method = method
        self.timeout = timeout
        super().__init__(
            f"{method}: no answer within {timeout:g} s; the request was cancelled"
            " ($/cancel_request)"
        )
