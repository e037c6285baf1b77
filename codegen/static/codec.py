"""Encoding and decoding: typed values, and whole JSON-RPC messages in one pass where possible.

`decode(data, T)` and `encode(obj)` work for every type of the package. `decode_message` turns one
incoming message into a `Request`, `Notification`, `Response` or `ErrorResponse` with typed params
or result, and raises an `RpcError` carrying the answer (-32700, -32600, -32601, -32602) when the
message cannot be taken. Requests and notifications of known methods are decoded in a single pass
through a union of per-method envelopes tagged by `method`; the rest take a careful second path.
"""

from __future__ import annotations

from types import GenericAlias
from typing import Any, Callable, Generic, Literal, Mapping, TypeVar, Union, overload

import msgspec
from msgspec import UNSET, UnsetType

from . import errors
from ._lenient import convert, forgiving, locate, repair, split_error
from ._support import dec_hook, enc_hook
from .errors import INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST, METHOD_NOT_FOUND, PARSE_ERROR
from .methods import NOTIFICATIONS, REQUESTS, SIDES, MethodInfo

__all__ = [
    "RequestId",
    "ErrorObject",
    "Request",
    "Notification",
    "Response",
    "ErrorResponse",
    "Message",
    "decode",
    "Decoder",
    "encode",
    "decode_message",
    "MessageDecoder",
    "encode_message",
]

T = TypeVar("T")

RequestId = Union[int, float, str, None]
"""A JSON-RPC request id (JSON-RPC allows any number; fractional ones SHOULD NOT be sent)."""

# Bytes that are not JSON: msgspec 0.22 raises UnicodeDecodeError for invalid UTF-8 inside a
# string, later releases a DecodeError; both are a parse error (-32700) to us.
_NOT_JSON: tuple[type[Exception], ...] = (msgspec.DecodeError, UnicodeDecodeError)


class ErrorObject(msgspec.Struct, kw_only=True):
    """The JSON-RPC error object."""

    code: int
    message: str
    data: Any = UNSET


class Request(msgspec.Struct, kw_only=True):
    """A JSON-RPC request. `params` holds the method's params type (untyped for extensions)."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId
    method: str
    params: Any = UNSET


class Notification(msgspec.Struct, kw_only=True):
    """A JSON-RPC notification."""

    jsonrpc: Literal["2.0"] = "2.0"
    method: str
    params: Any = UNSET


class Response(msgspec.Struct, kw_only=True):
    """A JSON-RPC success answer. `result` holds the method's result type."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId
    result: Any


class ErrorResponse(msgspec.Struct, kw_only=True):
    """A JSON-RPC error answer."""

    jsonrpc: Literal["2.0"] = "2.0"
    id: RequestId
    error: ErrorObject


Message = Union[Request, Notification, Response, ErrorResponse]

# ---------------------------------------------------------------- typed values

_encoder = msgspec.json.Encoder(enc_hook=enc_hook)
_decoders: dict[Any, msgspec.json.Decoder[Any]] = {}


encode: Callable[[Any], bytes] = _encoder.encode
"""encode(obj) -> bytes: JSON of any value of the package (Structs, enums, unions, unknown variants,
messages). It is the prebuilt encoder's own method: no Python call on the way."""


def decoder(tp: Any) -> msgspec.json.Decoder[Any]:
    """The prebuilt decoder of a type (built on first use, then kept)."""
    dec = _decoders.get(tp)
    if dec is None:
        dec = _decoders[tp] = msgspec.json.Decoder(tp, dec_hook=dec_hook)
    return dec


@overload
def decode(
    data: bytes | str, type: type[T], *, lenient: bool = False, strict: bool = False
) -> T: ...
@overload
def decode(
    data: bytes | str, type: object, *, lenient: bool = False, strict: bool = False
) -> object: ...
def decode(data: bytes | str, type: Any, *, lenient: bool = False, strict: bool = False) -> Any:
    """Decode JSON into a type of the package, validating it as the schema says.

    Typed for a checker where `type` is a class (a Struct, an enum). A union alias passed as a value
    is no class a checker can read, so the value is an `object` to it (narrow it with `isinstance`);
    `Decoder[SessionUpdate](SessionUpdate).decode(data)` gives it the union.

    With `lenient=True`, values the schema does not list (enum values, union variants) decode into
    their unknown forms instead of failing, for receivers that must survive a newer peer.
    With `strict=True`, nothing is forgiven, not even where the schema marks a field
    `x-deserialize-default-on-error` or a list `x-deserialize-skip-invalid-items` (those are for
    receivers): how a sender checks what it is about to send. It decodes the value as it is, or
    raises a `msgspec.ValidationError` naming the path of the first place that breaks the schema.
    """
    try:
        return decoder(type).decode(data)
    except msgspec.ValidationError as exc:
        if strict:
            raise (locate(msgspec.json.decode(data), type, forgive=False) or exc) from None
        if not (lenient or forgiving(type)):
            # msgspec cannot tell where in a hook-decoded union the error is: find the full path.
            raise (locate(msgspec.json.decode(data), type) or exc) from None
        value = msgspec.json.decode(data)
        if not lenient:
            repaired = repair(value, type, exc)  # the places msgspec names, then natively again
            if repaired is not None:
                return repaired
            value = msgspec.json.decode(data)
    return convert(value, type, unknown=lenient)


class Decoder(Generic[T]):
    """A decoder of one type of the package, typed for a checker: `Decoder[U](U)` for a union alias
    `U`, which a checker cannot read from the value alone (name it twice: once for the checker, once
    for the decoder). `decode(data)` is `decode(data, U)`, typed as the union, so code that reads a
    field only some of its variants have is flagged.
    """

    __slots__ = ("type",)

    def __init__(self, type: object) -> None:
        self.type = type

    def decode(self, data: bytes | str, *, lenient: bool = False, strict: bool = False) -> T:
        value: T = decode(data, self.type, lenient=lenient, strict=strict)  # type: ignore[assignment]
        return value


# ---------------------------------------------------------------- one-pass envelopes


def _envelope(info: MethodInfo) -> type[msgspec.Struct]:
    """A request or notification of one method as a Struct tagged by `method`: a union of these
    decodes every call a side receives in one pass."""
    id_field: tuple[str, Any] | tuple[str, Any, Any] = (
        ("id", RequestId) if info.kind == "request" else ("id", RequestId | UnsetType, UNSET)
    )
    cls = msgspec.defstruct(
        f"{info.handler}_envelope",
        [("jsonrpc", Literal["2.0"]), id_field, ("params", info.params)],
        kw_only=True,
        tag_field="method",
        tag=info.method,
        module=__name__,
    )
    cls.info = info  # type: ignore[attr-defined]
    return cls


def _side_calls(side: str) -> tuple[Any, dict[str, MethodInfo], Any]:
    """The union of the envelopes of every request and notification `side` receives (tagged by
    method), the method of each, and the union in a box (`_box`)."""
    found = _SIDE_CALLS.get(side)
    if found is None:
        infos: dict[str, MethodInfo] = {}
        members = []
        for info in (*REQUESTS.values(), *NOTIFICATIONS.values()):
            if (info.side == side or info.side not in SIDES) and info.method not in infos:
                infos[info.method] = info
                members.append(_envelope(info))
        if not members:  # a schema without methods: nothing takes the one-pass path
            members.append(
                msgspec.defstruct(
                    "no_envelope",
                    [("params", Literal["never"])],
                    tag_field="method",
                    tag="",
                    kw_only=True,
                )
            )
        union: Any = Union[tuple(members)]
        found = _SIDE_CALLS[side] = (union, infos, _box(union))
    return found


_SIDE_CALLS: dict[str, tuple[Any, dict[str, MethodInfo], Any]] = {}


def _side_decoder(side: str) -> msgspec.json.Decoder[Any]:
    """One decoder for every request and notification `side` receives, tagged by method."""
    key = ("envelopes", side)
    dec = _decoders.get(key)
    if dec is None:
        dec = _decoders[key] = msgspec.json.Decoder(_side_calls(side)[0], dec_hook=dec_hook)
    return dec


def _params_of(boxed: Any) -> Any:
    return boxed["message"]["params"]


def _box(union: Any) -> Any:
    """A one-field Struct around a union: msgspec keeps a Struct's type information, so converting
    into it does not rebuild that of the union on every call (as converting into the union would).
    """
    return msgspec.defstruct("_CallBox", [("message", union)], module=__name__)


# ---------------------------------------------------------------- whole messages


class _Envelope(msgspec.Struct):
    """Any JSON-RPC message, with params and result left raw for a second, typed pass."""

    jsonrpc: Any = UNSET
    id: Any = UNSET
    method: Any = UNSET
    params: msgspec.Raw | UnsetType = UNSET
    result: msgspec.Raw | UnsetType = UNSET
    error: Any = UNSET


_raw_envelope = msgspec.json.Decoder(_Envelope)
_NULL = b"null"
_EMPTY_OBJECT = b"{}"


def _error(
    code: int,
    message: str,
    data: Any = UNSET,
    id: Any = None,
    method: Any = None,
    notification: bool = False,
) -> errors.RpcError:
    exc = errors.error_for(code, message, data)
    exc.id = id
    exc.method = method if isinstance(method, str) else None
    exc.notification = notification
    return exc


def _invalid_params(exc: msgspec.ValidationError, where: str) -> tuple[str, dict[str, str]]:
    message, path = split_error(exc)
    path = where + path[1:] if path is not None else where
    return f"Invalid params: {message}", {"path": path, "message": message}


def _untyped(data: bytes) -> Any:
    try:
        return msgspec.json.decode(data)
    except _NOT_JSON as exc:
        raise _error(PARSE_ERROR, f"Parse error: {exc}") from None


def _typed(raw: msgspec.Raw | UnsetType, tp: Any, lenient: bool) -> Any:
    data = _EMPTY_OBJECT if isinstance(raw, UnsetType) or bytes(raw) == _NULL else bytes(raw)
    return decode(data, tp, lenient=lenient)


_PEEK = 128
"""How far into a long answer the fast path looks for its `"id":`."""
_SMALL = 1024
"""Answers up to this size skim their envelope, then type their result; longer ones peek the id."""


class _Reply(msgspec.Struct, Generic[T], kw_only=True):
    """An answer to a request whose result type is known before decoding: one pass over bytes."""

    jsonrpc: Literal["2.0"]
    id: RequestId
    result: T | UnsetType = UNSET
    error: ErrorObject | UnsetType = UNSET


class _RawAnswer(msgspec.Struct, kw_only=True):
    jsonrpc: Literal["2.0"]
    id: RequestId
    result: msgspec.Raw | UnsetType = UNSET
    error: ErrorObject | UnsetType = UNSET


_raw_answer = msgspec.json.Decoder(_RawAnswer)


def _reply_decoder(tp: Any) -> msgspec.json.Decoder[Any]:
    """The one-pass decoder of an answer whose result has type `tp`."""
    # `_Reply[tp]` spelled as the alias it builds: `tp` is a value, not a type expression
    return msgspec.json.Decoder(GenericAlias(_Reply, (tp,)), dec_hook=dec_hook)


_FAST_FAILURES: tuple[type[Exception], ...] = (msgspec.ValidationError, *_NOT_JSON)


def _message(env: Any) -> Request | Notification | None:
    """The public message of a call's envelope; None for a notification that carries an id."""
    info = env.info
    if info.kind == "request":
        return Request(id=env.id, method=info.method, params=env.params)
    if env.id is UNSET:
        return Notification(method=info.method, params=env.params)
    return None


class MessageDecoder:
    """Decodes the messages one side of a connection receives. Keep one per connection.

    `result_type` says what the result of a pending request is: a function of the request id, or
    a mapping from pending ids to result types (faster: with one request pending, its answer is
    decoded in one pass before its id is even read). None keeps a result untyped.
    `decode` raises an `RpcError` whose code is the JSON-RPC answer the message deserves.

    Requests and notifications of known methods take one pass through a union of envelopes tagged
    by method; answers take one pass with their result type where it is known up front. The decoder
    tries first the kind of message that came last (a stream of notifications, a run of answers),
    and anything those passes reject takes the careful path, which says exactly what is wrong.
    """

    __slots__ = (
        "side",
        "result_type",
        "lenient",
        "_calls",
        "_replies",
        "_results",
        "_pending",
        "_calls_first",
        "_calls_box",
        "_infos",
    )

    def __init__(
        self,
        side: str,
        result_type: Callable[[RequestId], Any] | Mapping[Any, Any] = lambda id: None,
        *,
        lenient: bool = False,
    ) -> None:
        if side not in SIDES:
            raise ValueError(f"side must be one of {SIDES}, not {side!r}")
        self.side = side
        self._pending: Mapping[Any, Any] | None = (
            result_type if isinstance(result_type, Mapping) else None
        )
        self.result_type: Callable[[RequestId], Any] = (
            result_type.get if isinstance(result_type, Mapping) else result_type
        )
        self.lenient = lenient
        self._calls = _side_decoder(side)
        _, self._infos, self._calls_box = _side_calls(side)
        self._replies: dict[Any, msgspec.json.Decoder[Any]] = {}
        self._results: dict[Any, msgspec.json.Decoder[Any]] = {}
        self._calls_first = True

    def decode(self, data: bytes) -> Message:
        message: Message | None
        if self._calls_first:
            message = self._call(data)
            if message is None:
                message = self._answer(data)
                self._calls_first = message is None
        else:
            message = self._answer(data)
            if message is None:
                message = self._call(data)
                self._calls_first = message is not None
        if message is None:
            return _decode_carefully(data, self.side, self.result_type, self.lenient)
        return message

    def _call(self, data: bytes) -> Request | Notification | None:
        try:
            env = self._calls.decode(data)
        except msgspec.ValidationError as exc:
            return self._repair_call(data, exc)
        except _NOT_JSON:
            return None
        return _message(env)

    def _repair_call(
        self, data: bytes, error: msgspec.ValidationError
    ) -> Request | Notification | None:
        """A call whose params break only where the schema forgives (a bad item of a
        skip-invalid-items list, a bad default-on-error field): the places msgspec names are
        dropped and the whole message converted natively again, without the careful path's
        second pass. None when that does not do it (the careful path then decides, and says
        what is wrong). The lenient option keeps the careful path, whose rules are wider."""
        if self.lenient or "` - at `$.params" not in str(error):
            return None
        try:
            value = msgspec.json.decode(data)
            method = value.get("method") if type(value) is dict else None
            info = self._infos.get(method) if isinstance(method, str) else None
        except _NOT_JSON:
            return None
        if info is None or not forgiving(info.params) or type(value.get("params")) is not dict:
            return None
        boxed = repair(
            {"message": value},
            info.params,
            error,
            root=self._calls_box,
            prefixes=("$.params", "$.message.params"),
            at=_params_of,
        )
        return None if boxed is None else _message(boxed.message)

    def _answer(self, data: bytes) -> Response | ErrorResponse | None:
        pending = self._pending
        if pending is not None and len(pending) == 1:
            for id in pending:
                return self._reply(data, id, pending[id])
        if len(data) <= _SMALL:
            return self._small_answer(data)
        at = data.find(b'"id":', 0, _PEEK)
        return self._long_answer(data, at + 5) if at >= 0 else None

    def _reply(self, data: bytes, id: Any, tp: Any) -> Response | ErrorResponse | None:
        """One pass, for the answer to the one pending request `id` (or to no request at all)."""
        if tp is None:
            return None
        dec = self._replies.get(tp)
        if dec is None:
            dec = self._replies[tp] = _reply_decoder(tp)
        try:
            reply = dec.decode(data)
        except _FAST_FAILURES:
            return None
        if reply.id != id:
            return None
        if isinstance(reply.error, UnsetType):
            return (
                None
                if isinstance(reply.result, UnsetType)
                else Response(id=reply.id, result=reply.result)
            )
        return (
            ErrorResponse(id=reply.id, error=reply.error)
            if isinstance(reply.result, UnsetType)
            else None
        )

    def _small_answer(self, data: bytes) -> Response | ErrorResponse | None:
        """A short answer: the envelope with its result left raw, then the result typed."""
        try:
            ans = _raw_answer.decode(data)
        except _FAST_FAILURES:
            return None
        if not isinstance(ans.error, UnsetType):
            return (
                ErrorResponse(id=ans.id, error=ans.error)
                if isinstance(ans.result, UnsetType)
                else None
            )
        tp = self.result_type(ans.id)
        if tp is None or isinstance(ans.result, UnsetType):
            return None
        dec = self._results.get(tp)
        if dec is None:
            dec = self._results[tp] = decoder(tp)
        try:
            return Response(id=ans.id, result=dec.decode(ans.result))
        except _FAST_FAILURES:
            return None

    def _long_answer(self, data: bytes, start: int) -> Response | ErrorResponse | None:
        """A long answer: its id read off the bytes first, then one pass with its result type."""
        end = data.find(b",", start, start + 80)
        if end < 0:
            return None
        token = data[start:end].strip()
        if token.isdigit():
            id: RequestId = int(token)
        elif len(token) > 1 and token[0] == token[-1] == 0x22 and 0x5C not in token:
            id = token[1:-1].decode("utf-8", "replace")
        else:
            return None
        return self._reply(data, id, self.result_type(id))


def decode_message(
    data: bytes,
    side: str,
    result_type: Callable[[RequestId], Any] = lambda id: None,
    *,
    lenient: bool = False,
) -> Message:
    """Decode one message received by `side` ("agent" or "client"): see `MessageDecoder`."""
    return MessageDecoder(side, result_type, lenient=lenient).decode(data)


def _decode_carefully(
    data: bytes, side: str, result_type: Callable[[RequestId], Any], lenient: bool
) -> Message:
    try:
        env = _raw_envelope.decode(data)
    except msgspec.ValidationError as exc:
        raise _error(
            INVALID_REQUEST, f"Invalid request: not a JSON-RPC message object ({exc})"
        ) from None
    except _NOT_JSON as exc:
        raise _error(PARSE_ERROR, f"Parse error: {exc}") from None
    has_id = not isinstance(env.id, UnsetType)
    id_ok = env.id is None or isinstance(env.id, (str, int, float)) and not isinstance(env.id, bool)
    id: RequestId = env.id if id_ok else None
    if env.jsonrpc != "2.0":
        raise _error(
            INVALID_REQUEST, 'Invalid request: "jsonrpc" must be "2.0"', id=id, method=env.method
        )
    if has_id and not id_ok:
        raise _error(
            INVALID_REQUEST,
            "Invalid request: an id must be a string, a number or null",
            method=env.method,
        )
    if env.method is not UNSET:
        return _decode_call(env, id, not has_id, side, lenient)
    if not has_id:
        raise _error(
            INVALID_REQUEST,
            "Invalid request: a message needs a method, or an id with a result or an error",
        )
    if not isinstance(env.result, UnsetType) and env.error is UNSET:
        result = bytes(env.result)
        tp = result_type(id)
        if tp is None:
            return Response(id=id, result=_untyped(result))
        if result == _NULL and tp in _EMPTY_RESULTS:
            return Response(id=id, result=tp())
        try:
            return Response(id=id, result=decode(result, tp, lenient=lenient))
        except msgspec.ValidationError as exc:
            message, detail = _invalid_params(exc, "$.result")
            raise _error(
                INTERNAL_ERROR, message.replace("params", "result"), detail, id=id
            ) from None
        except _NOT_JSON as exc:
            raise _error(PARSE_ERROR, f"Parse error: {exc}") from None
    if env.error is not UNSET and env.result is UNSET:
        try:
            return ErrorResponse(id=id, error=msgspec.convert(env.error, ErrorObject))
        except msgspec.ValidationError as exc:
            raise _error(
                INVALID_REQUEST, f"Invalid response: malformed error object ({exc})", id=id
            ) from None
    raise _error(
        INVALID_REQUEST, "Invalid response: it must carry exactly one of result and error", id=id
    )


def _decode_call(
    env: _Envelope, id: RequestId, notification: bool, side: str, lenient: bool
) -> Message:
    method = env.method
    if not isinstance(method, str):
        raise _error(
            INVALID_REQUEST,
            "Invalid request: method must be a string",
            id=id,
            notification=notification,
        )
    table = NOTIFICATIONS if notification else REQUESTS
    info = table.get(method)
    if info is not None and info.side != side and info.side in SIDES:
        info = None
    if info is None:
        params = UNSET if isinstance(env.params, UnsetType) else _untyped(bytes(env.params))
        if notification:
            return Notification(method=method, params=params)
        if method.startswith("_"):
            return Request(id=id, method=method, params=params)
        raise _error(
            METHOD_NOT_FOUND,
            f"Method not found: {method}",
            {"method": method},
            id=id,
            method=method,
        )
    try:
        params = _typed(env.params, info.params, lenient)
    except msgspec.ValidationError as exc:
        message, detail = _invalid_params(exc, "$.params")
        raise _error(
            INVALID_PARAMS, message, detail, id=id, method=method, notification=notification
        ) from None
    except _NOT_JSON as exc:  # bytes that are not UTF-8 inside a string: Raw let them by
        raise _error(PARSE_ERROR, f"Parse error: {exc}") from None
    if notification:
        return Notification(method=method, params=params)
    return Request(id=id, method=method, params=params)


def _empty_result(tp: Any) -> bool:
    """A result type with no required field: a peer's `"result": null` stands for an empty one."""
    return (
        isinstance(tp, type)
        and issubclass(tp, msgspec.Struct)
        and not any(f.required for f in msgspec.structs.fields(tp))
    )


_EMPTY_RESULTS = frozenset(info.result for info in REQUESTS.values() if _empty_result(info.result))
"""Result types with no required field: a peer's `"result": null` stands for an empty one."""


encode_message: Callable[[Message], bytes] = _encoder.encode
"""encode_message(msg) -> bytes: one message as JSON (no newline; JSON never holds a raw one)."""
