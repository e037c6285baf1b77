"""The JSON-RPC layer's outgoing values: each checked strictly against the package's types and
encoded once, its checked JSON going into its envelope as it is (`sending.Envelopes`).

A `Sender` belongs to one engine bound to one package. `params` / `typed` check a value and keep
its JSON; the envelope made next (`request`, `notification`, `response`) takes that JSON when the
value is still the one checked (not a copy made since, such as the trace context's).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Callable, cast

import msgspec

from . import INTERNAL_ERROR, wire
from .errors import ProtocolError

if TYPE_CHECKING:
    from . import RequestId
    from .package import Package, RequestMessage, RpcException, TypeForm

log = logging.getLogger("acp_runtime")


class Sender:
    __slots__ = ("schema", "envelopes", "sending", "_types", "_checks", "_results")

    def __init__(self, schema: Any = None, envelopes: Envelopes | None = None) -> None:
        # what `typed` last checked, and its JSON (None: nothing; the engine resets it per message)
        self.sending: tuple[Any, bytes] | None = None
        if envelopes is not None:
            self.bind(schema, envelopes)

    def bind(self, schema: Package, envelopes: Envelopes) -> None:
        """Check and encode with `schema` from now on (its envelopes made once, with its plan)."""
        self.schema = schema
        self.envelopes = envelopes
        # the package's methods: the type their params are checked against (None: not checked)
        self._types: dict[str, TypeForm] = {
            method: info.params
            for method, info in schema.METHODS.items()
            if not method.startswith("rpc.")
        }
        # the strict check of each method's params' JSON and of each request's result's JSON
        # (`strict_check`), looked up once per package, not once per message
        self._checks: dict[str, Callable[[bytes], Any]] = {
            method: strict_check(schema, tp) for method, tp in self._types.items() if tp is not None
        }
        self._results: dict[str, Callable[[bytes], Any]] = {
            method: strict_check(schema, info.result)
            for method, info in schema.REQUESTS.items()
            if info.result is not None
        }

    def params(self, method: str, params: Any) -> Any:
        """Outgoing params as JSON-RPC and the package's types allow them: no `rpc.` method, params
        an object or an array, a method's params checked strictly against its type (`typed`)."""
        tp = self._types.get(method, _NOT_KNOWN)  # one lookup for a method of the package
        if tp is _NOT_KNOWN:
            if method.startswith("rpc."):
                raise ProtocolError(
                    f"{method}: names starting with 'rpc.' are reserved by JSON-RPC"
                )
            tp = None
        if not wire.structured(params):  # 226
            raise ProtocolError(
                f"{method}: params must be an object or an array, not {type(params).__name__}"
            )
        if tp is None or params is None or params is msgspec.UNSET:
            return params
        return self.typed(method, params, tp, "params")  # 164

    def typed(self, method: str, value: Any, tp: TypeForm, at: str) -> Any:
        """An outgoing value of a protocol type (`at`: "params" or "result"), checked strictly: a
        generated object is sent as it is, wire JSON (a dict) decoded into its type. One that does
        not fit, or a dict with a key the schema does not declare (custom data belongs in `_meta`),
        raises `SchemaMismatchError` naming the path and the value."""
        if tp is None:
            return value
        schema = self.schema
        if type(value) is dict:
            value, data = wire.to_send(schema, value, tp, method=method, at=at)
        else:
            check = (self._checks if at == "params" else self._results).get(method)
            try:  # a value that fits: its JSON, checked by the method's own check when it has one
                data = schema.encode_message(value)
                if check is not None:
                    check(data)
                else:
                    schema.decode(data, tp, strict=True)
            except (TypeError, ValueError, msgspec.EncodeError):  # ValidationError is a ValueError
                value, data = wire.to_send(schema, value, tp, method=method, at=at)  # raises
        self.sending = (value, data)  # its envelope takes these bytes (`sent_json`)
        return value

    def sent_json(self, value: Any) -> bytes | None:
        """The JSON `typed` checked of `value`, when `value` is what it checked; taken once."""
        sending, self.sending = self.sending, None
        return sending[1] if sending is not None and sending[0] is value else None

    def request(self, request_id: RequestId, method: str, params: Any) -> bytes:
        checked = self.sent_json(params)
        if checked is not None:  # its JSON goes in as it is
            return self.envelopes.request(request_id, method, checked)
        schema = self.schema
        return schema.encode_message(
            schema.Request(id=request_id, method=method, params=_omit_none(params))
        )

    def notification(self, method: str, params: Any) -> bytes:
        checked = self.sent_json(params)
        if checked is not None:  # its JSON goes in as it is
            return self.envelopes.notification(method, checked)
        schema = self.schema
        return schema.encode_message(schema.Notification(method=method, params=_omit_none(params)))

    def response(self, request: RequestMessage, result: Any, *, strict: bool) -> bytes:
        """The answer to `request` with the handler's `result` (checked when `strict`)."""
        schema = self.schema
        if result is None:
            info = schema.REQUESTS.get(request.method)
            if info is not None and info.result is not None:
                try:
                    schema.decode(b"{}", info.result)
                except Exception:
                    raise TypeError(
                        f"the {request.method} handler returned None, but its result has required"
                        " fields"
                    ) from None
            result = {}
        elif strict and request.method in schema.REQUESTS:
            self.sending = None
            tp = schema.REQUESTS[request.method].result
            result = self.typed(request.method, result, tp, "result")
            checked = self.sent_json(result)
            if checked is not None:  # its JSON goes in as it is
                return self.envelopes.response(request.id, checked)
        return schema.encode_message(schema.Response(id=request.id, result=result))


_MARK = b"\x00"
"""Stands for the params in a notification encoded once per method: the package's encoder writes a
`msgspec.Raw` as it is, and no JSON it writes holds a raw NUL byte (a string's is escaped)."""


class Envelopes:
    """The JSON-RPC envelopes of a package's messages around params or a result already encoded
    (the JSON its strict send check encoded, `wire.to_send`): the value is encoded once, not once
    to check it and again inside its message.

    A notification of one of the package's methods, a request of one of them and a success answer
    are plain concatenation: the package's own encoding of that message, cut where its id and its
    params (or result) go, worked out once per method with the plan. Any other message is encoded
    by the package with its member as `msgspec.Raw`.
    """

    __slots__ = ("_schema", "ends", "calls", "answer")

    @staticmethod
    def of(schema: Package) -> Envelopes:
        """The envelopes of `schema`: made at its first use, then kept (with the package, so that
        its id stays its own)."""
        kept = _KEPT.get(id(schema))
        if kept is None or kept[0] is not schema:
            kept = _KEPT[id(schema)] = (schema, Envelopes(schema))
        return kept[1]

    def __init__(self, schema: Package) -> None:
        self._schema = schema
        # method -> its notification's JSON before the params and after them
        self.ends: dict[str, tuple[bytes, bytes]] = {}
        for method in schema.NOTIFICATIONS:
            note = schema.Notification(method=method, params=msgspec.Raw(_MARK))
            head, mark, tail = schema.encode_message(note).partition(_MARK)
            if mark and _MARK not in tail:
                self.ends[method] = (head, tail)
        # method -> its request's JSON before the id, between the id and the params, after them
        # (the id a `msgspec.Raw` too: the package's encoder writes any value, typed or not)
        mark_id: Any = msgspec.Raw(_ID)
        self.calls: dict[str, tuple[bytes, bytes, bytes]] = {}
        for method in schema.REQUESTS:
            call = schema.Request(id=mark_id, method=method, params=msgspec.Raw(_MARK))
            parts = _cut(schema.encode_message(call))
            if parts is not None:
                self.calls[method] = parts
        # a success answer's JSON before the id, between the id and the result, after it
        self.answer = _cut(
            schema.encode_message(schema.Response(id=mark_id, result=msgspec.Raw(_MARK)))
        )

    def notification(self, method: str, params: bytes) -> bytes:
        """A notification of `method` whose params are the JSON `params`."""
        ends = self.ends.get(method)
        if ends is not None:
            return ends[0] + params + ends[1]
        note = self._schema.Notification(method=method, params=msgspec.Raw(params))
        return self._schema.encode_message(note)

    def request(self, request_id: RequestId, method: str, params: bytes) -> bytes:
        """A request of `method` whose params are the JSON `params`."""
        parts = self.calls.get(method)
        if parts is None:
            call = self._schema.Request(id=request_id, method=method, params=msgspec.Raw(params))
            return self._schema.encode_message(call)
        return parts[0] + self._schema.encode_message(request_id) + parts[1] + params + parts[2]

    def response(self, request_id: RequestId, result: bytes) -> bytes:
        """A success answer whose result is the JSON `result`."""
        parts = self.answer
        if parts is None:
            answer = self._schema.Response(id=request_id, result=msgspec.Raw(result))
            return self._schema.encode_message(answer)
        return parts[0] + self._schema.encode_message(request_id) + parts[1] + result + parts[2]


_ID = b"\x01"
"""Stands for the id in a request or an answer encoded once (as `_MARK` for the params)."""


def _cut(data: bytes) -> tuple[bytes, bytes, bytes] | None:
    """A message encoded with `_ID` for its id and `_MARK` for its params or result, cut there (in
    that order); None when it is not so made."""
    head, mark, rest = data.partition(_ID)
    middle, mark2, tail = rest.partition(_MARK)
    if not mark or not mark2 or _ID in rest or _MARK in head or _MARK in tail:
        return None
    return head, middle, tail


_NOT_KNOWN: Any = object()


def strict_check(schema: Any, tp: TypeForm) -> Callable[[bytes], Any]:
    """`schema.decode(data, tp, strict=True)` as one call, for a value that fits: a generated
    package's `decode` is its codec's, which returns what the codec's prebuilt decoder of `tp`
    (`codec.decoder(tp)`) decodes, and raises when it raises. Only the error differs (the strict
    decode names the path), so a refused value goes on to `Sender.typed`, which says what is
    wrong. Any other package gets its strict `decode`."""
    codec = getattr(schema, "codec", None)
    decoder = getattr(codec, "decoder", None)
    if decoder is not None and schema.decode is getattr(codec, "decode", None):
        check: Callable[[bytes], Any] = decoder(tp).decode
        return check
    return lambda data: schema.decode(data, tp, strict=True)


def _omit_none(params: Any) -> Any:
    return msgspec.UNSET if params is None else params  # "params" MAY be omitted, never null


_KEPT: dict[int, tuple[object, Envelopes]] = {}
"""Each package's envelopes (`Envelopes.of`), by the package's id."""


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
