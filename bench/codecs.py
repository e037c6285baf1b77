"""The codec contenders: for each corpus message, how each library turns its bytes into typed,
validated objects (decode) and a decoded message back into wire bytes (encode).

- `acpgen`: the generated `acp_schema`. Decode: one `MessageDecoder` per receiving side, as a
  connection keeps it, given the pending request and its result type as acp_runtime gives them (so
  responses and error answers take the path a real connection takes). Encode: `encode_message`
  of the decoded message.
- `sdk`: the official Python SDK (`agent-client-protocol`, pydantic). Decode is what its stdio
  connection does on receipt: `json.loads` of the line (`NdjsonTransport.receive`), then the
  method's model `.model_validate(params)` (`MessageRouter`) or, for a response, the result model
  `.model_validate(result)` (`request_model`); an error answer becomes a `RequestError`
  (`Connection._handle_response`). Encode is what it does when sending: `model_dump(mode="json",
  by_alias=True, exclude_none=True, exclude_defaults=True)` for params (`serialize_params`),
  `exclude_unset=True` instead for results (`Connection._execute_request`), the envelope dict, then
  `(json.dumps(payload, separators=(",", ":")) + "\\n").encode("utf-8")` (`MessageSender.send`).
- `dcg`: datamodel-code-generator's msgspec output for the same schema, decoded in one pass
  through a msgspec envelope whose params/result field has the def's generated type (how a user
  of that output would do it); n/a where msgspec cannot build a decoder for the type. The
  envelope is chosen knowing the message's method and kind in advance: no dispatch cost.
- `jsonschema`: `json.loads`, then the def's validator (built once) on the params / result /
  error object. Validation only: it builds no typed objects.
- floors: untyped `msgspec.json.decode` and `orjson.loads` of the same bytes; `orjson.dumps` (and
  `msgspec.json.encode`) of the same untyped dict.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Union

import msgspec
import orjson

from .corpus import SCHEMA_PATH, Message, def_validator
from .harness import Case

DECODERS = ("acpgen", "sdk", "dcg", "jsonschema", "msgspec", "orjson")
ENCODERS = ("acpgen", "sdk", "dcg", "orjson", "msgspec")
DECODE_FLOOR = ("msgspec", "orjson")
"""The decode floor is the faster of these two untyped decoders, per message."""
ENCODE_FLOOR = ("orjson",)
"""The encode floor is `orjson.dumps` of the untyped dict, as the issue defines it."""

DCG_ARGS = ("--input-file-type", "jsonschema", "--output-model-type", "msgspec.Struct")


@dataclass
class Contenders:
    """The cases of one message: a `Case` per contender, or the reason it cannot take part."""

    decode: dict[str, Case | str] = field(default_factory=dict)
    encode: dict[str, Case | str] = field(default_factory=dict)
    encode_equal: dict[str, bool] = field(default_factory=dict)
    """Whether each encoder's output is the same JSON value as the corpus message."""


# ------------------------------------------------------------------------ datamodel-code-generator


def generate_dcg(out_dir: Path) -> tuple[Path, float]:
    """Run datamodel-codegen on the schema into out_dir; returns the module path and the seconds."""
    exe = Path(sys.executable).with_name("datamodel-codegen")
    out = out_dir / "dcg_models.py"
    argv = [str(exe), "--input", str(SCHEMA_PATH), *DCG_ARGS, "--output", str(out)]
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    return out, time.perf_counter() - start


def load_module(path: Path, name: str = "bench_dcg_models") -> Any:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_ID = Union[int, str, None]


def _dcg_envelope(msg: Message, tp: Any) -> type:
    fields: list[tuple[str, Any]] = [("jsonrpc", str)]
    if msg.kind == "request":
        fields += [("id", _ID), ("method", str), ("params", tp)]
    elif msg.kind == "notification":
        fields += [("method", str), ("params", tp)]
    else:
        fields += [("id", _ID), (msg.body_key, tp)]
    return msgspec.defstruct(f"DcgEnvelope_{msg.def_name}", fields)


def _dcg_cases(msg: Message, module: Any | None, out: Contenders) -> None:
    if module is None:
        out.decode["dcg"] = out.encode["dcg"] = "not generated"
        return
    tp = getattr(module, msg.def_name, None)
    if tp is None:
        out.decode["dcg"] = out.encode["dcg"] = f"no class named {msg.def_name}"
        return
    try:
        decoder: msgspec.json.Decoder[Any] = msgspec.json.Decoder(_dcg_envelope(msg, tp))
    except TypeError as exc:
        out.decode["dcg"] = out.encode["dcg"] = (
            f"msgspec cannot build a decoder: {_first_line(exc)}"
        )
        return
    try:
        decoded = decoder.decode(msg.data)
    except msgspec.MsgspecError as exc:
        out.decode["dcg"] = out.encode["dcg"] = f"decode fails: {_first_line(exc)}"
        return
    out.decode["dcg"] = (decoder.decode, msg.data)
    out.encode["dcg"] = (msgspec.json.encode, decoded)


def _first_line(exc: BaseException) -> str:
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return text if len(text) <= 160 else text[:157] + "..."


# ------------------------------------------------------------------------------ the official SDK


def _sdk_error_cases(msg: Message, out: Contenders) -> None:
    from acp.exceptions import RequestError

    loads, dumps = json.loads, json.dumps
    mid = msg.id

    def decode_error(data: bytes) -> Any:
        message = loads(data)
        error = message.get("error") or {}
        return RequestError(
            error.get("code", -32603), error.get("message", "Error"), error.get("data")
        )

    def encode_error(err: Any) -> bytes:
        payload = {"jsonrpc": "2.0", "id": mid, "error": err.to_error_obj()}
        return (dumps(payload, separators=(",", ":")) + "\n").encode("utf-8")

    out.decode["sdk"] = (decode_error, msg.data)
    out.encode["sdk"] = (encode_error, decode_error(msg.data))


def _sdk_cases(msg: Message, out: Contenders) -> None:
    import acp.schema as sdk

    if msg.kind == "error":
        _sdk_error_cases(msg, out)
        return
    loads, dumps = json.loads, json.dumps
    model = getattr(sdk, msg.def_name, None)
    if model is None:
        out.decode["sdk"] = out.encode["sdk"] = f"the SDK has no model {msg.def_name}"
        return
    key = msg.body_key
    validate = model.model_validate

    def decode(data: bytes) -> Any:
        return validate(loads(data).get(key))

    try:
        obj = decode(msg.data)
    except Exception as exc:  # pydantic.ValidationError: the SDK's schema revision differs
        out.decode["sdk"] = out.encode["sdk"] = f"SDK model rejects it: {_first_line(exc)}"
        return
    head: dict[str, Any] = {"jsonrpc": "2.0"}
    if msg.kind != "notification":
        head["id"] = msg.id
    if msg.kind in ("request", "notification"):
        head["method"] = msg.method
        dump_options = {
            "mode": "json",
            "by_alias": True,
            "exclude_none": True,
            "exclude_defaults": True,
        }
    else:
        dump_options = {
            "mode": "json",
            "by_alias": True,
            "exclude_none": True,
            "exclude_unset": True,
        }

    def encode(obj: Any) -> bytes:
        payload = dict(head)
        payload[key] = obj.model_dump(**dump_options)
        return (dumps(payload, separators=(",", ":")) + "\n").encode("utf-8")

    out.decode["sdk"], out.encode["sdk"] = (decode, msg.data), (encode, obj)


# ------------------------------------------------------------------------------------ acpgen


def acpgen_decoder(msg: Message) -> Callable[[bytes], Any]:
    """The `MessageDecoder.decode` a connection on the receiving side would use for this message."""
    import acp_schema

    info = acp_schema.REQUESTS.get(msg.method)
    result = info.result if info is not None and msg.kind in ("response", "error") else None
    pending = (
        {msg.id: result} if result is not None else {}
    )  # as acp_runtime passes its pending calls
    return acp_schema.MessageDecoder(msg.side, pending).decode


def _acpgen_cases(msg: Message, out: Contenders) -> None:
    import acp_schema

    decode = acpgen_decoder(msg)
    decoded = decode(msg.data)
    out.decode["acpgen"] = (decode, msg.data)
    out.encode["acpgen"] = (acp_schema.encode_message, decoded)


# ----------------------------------------------------------------------------------- the rest


def contenders(msg: Message, dcg_module: Any | None) -> Contenders:
    out = Contenders()
    _acpgen_cases(msg, out)
    _sdk_cases(msg, out)
    _dcg_cases(msg, dcg_module, out)

    validator = def_validator(msg.def_name)
    key = msg.body_key

    def schema_validate(data: bytes) -> Any:
        message = json.loads(data)
        validator.validate(message[key])
        return message

    out.decode["jsonschema"] = (schema_validate, msg.data)
    out.decode["msgspec"] = (msgspec.json.decode, msg.data)
    out.decode["orjson"] = (orjson.loads, msg.data)
    untyped = orjson.loads(msg.data)
    out.encode["orjson"] = (orjson.dumps, untyped)
    out.encode["msgspec"] = (msgspec.json.encode, untyped)

    expected = json.loads(msg.data)
    for name, case in out.encode.items():
        if not isinstance(case, str):
            fn, arg = case
            out.encode_equal[name] = keeps(expected, json.loads(fn(arg)))
    return out


def keeps(sent: Any, again: Any) -> bool:
    """Whether re-encoded JSON keeps every field that was sent, with its value. Fields the sender
    left out may come back with their schema defaults (acpgen always writes those)."""
    if isinstance(sent, dict):
        return isinstance(again, dict) and all(
            k in again and keeps(v, again[k]) for k, v in sent.items()
        )
    if isinstance(sent, list):
        return (
            isinstance(again, list)
            and len(sent) == len(again)
            and all(keeps(a, b) for a, b in zip(sent, again, strict=True))
        )
    return (
        bool(sent == again)
        and type(sent) is type(again)
        or isinstance(sent, (int, float))
        and not isinstance(sent, bool)
        and sent == again
    )


def runnable(cases: dict[str, Case | str]) -> dict[str, Case]:
    return {name: case for name, case in cases.items() if not isinstance(case, str)}
