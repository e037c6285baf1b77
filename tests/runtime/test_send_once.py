"""The strict check of what is sent costs one encoding (issue 28): the JSON the check encoded and
decoded is the JSON that goes out, put into its message as it is (`wire.to_send`,
`sending.Envelopes`), never encoded a second time inside the envelope; the bytes on the wire are
the package's own encoding of the message, as before. And the send guards of known paths
(`guards.Check.holds`) are dropped where a method's type cannot hold them and asked behind one
`wire.Reach` (tests/runtime/test_capabilities.py and test_v2_rules.py show they still refuse).
"""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import Any

import msgspec
import pytest

import acp_schema as acp
from acp_runtime import wire
from acp_runtime.jsonrpc.sending import Envelopes
from acp_runtime.protocol import guards
from acpgen.instances import valid_instances_with_defaults

from .helpers import Agent, pair, text_update
from .test_send_strict import CASES, SCHEMAS, SEED, def_of, schema_of


class _Counted(ModuleType):
    """A copy of the package whose `encode_message` records what it was given."""

    def __init__(self, package: ModuleType) -> None:
        super().__init__(f"counted_{package.__name__}")
        self.__dict__.update(
            {k: v for k, v in vars(package).items() if not k.startswith("__acp_runtime")}
        )
        self.encoded: list[Any] = []
        encode = package.encode_message

        def encode_message(value: Any) -> bytes:
            self.encoded.append(value)
            data: bytes = encode(value)
            return data

        self.encode_message = encode_message


def _envelopes_holding(counted: _Counted, value: Any) -> list[Any]:
    """The messages encoded with `value` itself (not its JSON) as their params or result."""
    kinds = (counted.Request, counted.Notification, counted.Response)
    return [
        m
        for m in counted.encoded
        if isinstance(m, kinds)
        and value in (getattr(m, "params", None), getattr(m, "result", None))
    ]


class _Prompted(Agent):
    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


async def test_a_checked_value_is_encoded_once_and_goes_out_as_the_package_encodes_it() -> None:
    agent_package, client_package = _Counted(acp), _Counted(acp)
    seen: list[bytes] = []
    received: list[bytes] = []

    def watch(direction: str, line: bytes, message: Any) -> None:
        (seen if direction == "out" else received).append(line)

    agent, client = await pair(
        _Prompted,
        agent_options={"schema": agent_package},
        client_options={"schema": client_package, "observer": watch},
    )
    try:
        # a generated object, notified
        update = text_update("s1", "hello")
        agent_package.encoded.clear()
        await agent.notify("session/update", update)
        assert [m for m in agent_package.encoded if m is update] == [update]  # the check's
        assert not _envelopes_holding(agent_package, update)  # and no second one
        # wire JSON, notified: typed and checked once, its typed JSON sent
        chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
        agent_package.encoded.clear()
        await agent.notify("session/update", {"sessionId": "s1", "update": chunk})
        typed = [m for m in agent_package.encoded if isinstance(m, acp.SessionNotification)]
        assert len(typed) == 1 and not _envelopes_holding(agent_package, typed[0])
        # a generated object as request params, and a handler's generated answer
        prompt = acp.PromptRequest(session_id="s1", prompt=[acp.TextContent(text="hi")])
        client_package.encoded.clear()
        agent_package.encoded.clear()
        answer = await client.agent.session_prompt(prompt)
        assert answer.stop_reason == acp.StopReason.END_TURN
        assert [m for m in client_package.encoded if m is prompt] == [prompt]
        assert not _envelopes_holding(client_package, prompt)
        answers = [m for m in agent_package.encoded if isinstance(m, acp.PromptResponse)]
        assert len(answers) == 1 and not _envelopes_holding(agent_package, answers[0])
        await asyncio.sleep(0.01)
    finally:
        await client.close()
        await agent.close()
    # what went out is the package's own encoding of each message, byte for byte
    expected = [
        acp.encode_message(acp.Notification(method="session/update", params=update)),
        acp.encode_message(
            acp.Notification(
                method="session/update",
                params=acp.SessionNotification(
                    session_id="s1",
                    update=acp.SessionUpdateAgentMessageChunk(content=acp.TextContent(text="x")),
                ),
            )
        ),
    ]
    assert [line for line in received if b'"session/update"' in line] == expected
    sent_prompt = [line for line in seen if b'"session/prompt"' in line]
    assert len(sent_prompt) == 1
    assert msgspec.json.decode(sent_prompt[0]) == msgspec.json.decode(
        acp.encode_message(
            acp.Request(
                id=msgspec.json.decode(sent_prompt[0])["id"], method="session/prompt", params=prompt
            )
        )
    )
    assert sent_prompt[0] == acp.encode_message(
        acp.Request(
            id=msgspec.json.decode(sent_prompt[0])["id"], method="session/prompt", params=prompt
        )
    )
    # the handler's answer, enveloped in place (`Sender.response`), is the package's encoding too
    prompt_id = msgspec.json.decode(sent_prompt[0])["id"]
    answered = [line for line in received if b'"stopReason"' in line]
    assert answered == [
        acp.encode_message(
            acp.Response(
                id=prompt_id, result=acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)
            )
        )
    ]


@pytest.mark.parametrize("name,method,at,tp", CASES)
def test_every_envelope_around_checked_json_is_the_package_encoding(
    name: str, method: str, at: str, tp: Any
) -> None:
    """For every method of both packages and valid values drawn from the schema: the envelope
    around the JSON `wire.to_send` checked is byte for byte the package's encoding of the
    message holding the typed value (notifications by concatenation, the rest through Raw)."""
    package = SCHEMAS[name][0]
    envelopes = Envelopes(package)
    def_name = def_of(name, method, tp)
    assert def_name is not None
    for instance, _ in valid_instances_with_defaults(schema_of(name), def_name, count=3, seed=SEED):
        for given in (instance, wire.build(package, instance, tp)):  # wire JSON, generated object
            typed, data = wire.to_send(package, given, tp, method=method, at=at)
            assert data == package.encode(typed)
            if at == "result":
                for request_id in (7, 'a-"quoted"-id'):
                    assert envelopes.response(request_id, data) == package.encode_message(
                        package.Response(id=request_id, result=typed)
                    )
            elif method in package.NOTIFICATIONS:
                assert envelopes.notification(method, data) == package.encode_message(
                    package.Notification(method=method, params=typed)
                )
            else:
                assert envelopes.request(3, method, data) == package.encode_message(
                    package.Request(id=3, method=method, params=typed)
                )


def test_a_call_of_a_method_the_package_lacks_is_enveloped_too() -> None:
    envelopes = Envelopes(acp)
    for method in ('_vendor/odd "name"\u0001', "_x"):
        data = acp.encode({"a": [1, "\u0000"]})
        assert envelopes.notification(method, data) == acp.encode_message(
            acp.Notification(method=method, params={"a": [1, "\u0000"]})
        )
        for request_id in (4, "a-\u0001-id"):  # a request of it, with any id
            assert envelopes.request(request_id, method, data) == acp.encode_message(
                acp.Request(id=request_id, method=method, params={"a": [1, "\u0000"]})
            )


def _recorder(calls: list[str], name: str, reason: str | None = None) -> Any:
    def fn(value: Any, initialize: Any) -> str | None:
        calls.append(name)
        return reason

    return fn


def test_guards_of_paths_the_type_cannot_hold_are_dropped_and_the_rest_gated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[str] = []
    table_of = (
        guards.Guard(
            "agent",
            "send",
            ("session/update",),
            guards.Check(_recorder(calls, "never"), holds=("update.noSuchField",)),
            "t",
        ),
        guards.Guard(
            "agent", "send", ("session/update",), guards.Check(_recorder(calls, "always")), "t"
        ),
        guards.Guard(
            "agent",
            "send",
            ("session/update",),
            guards.Check(_recorder(calls, "locations", "bad"), holds=("update.locations.*.path",)),
            "t",
        ),
        guards.Guard(
            "agent",
            "send",
            ("session/update",),
            guards.Check(_recorder(calls, "content"), holds=("update.content.*.path",)),
            "t",
        ),
    )
    monkeypatch.setattr(guards, "GUARDS", table_of)
    table = guards.guards_for(acp, "agent", "send")
    checks = table["session/update"]
    assert len(checks) == 2  # "never" dropped; "locations" and "content" behind one gate

    def run(params: Any) -> list[str | None]:
        calls.clear()
        return [check(params, None) for check in checks]

    assert run(text_update("s1", "hi")) == [None, None]  # no list of locations: not asked
    assert calls == ["always"]
    call = acp.ToolCall(
        tool_call_id="t1", title="Edit", locations=[acp.ToolCallLocation(path="/a")]
    )
    assert run(acp.SessionNotification(session_id="s1", update=call)) == [None, "bad"]
    assert calls == ["always", "locations"]  # the first reason is the gate's answer
    assert run({"sessionId": "s1", "update": {"sessionUpdate": "plan", "entries": []}}) == [
        None,
        "bad",
    ]  # wire JSON: its types say nothing, every check is asked


def _typed_response(sender: Any, request: Any, result: Any) -> bytes:
    """A handler's answer the way `Sender.response` made it through `typed` and `sent_json`."""
    package = sender.schema
    sender.sending = None
    typed = sender.typed(request.method, result, package.REQUESTS[request.method].result, "result")
    sent = sender.sent_json(typed)
    if sent is not None:
        return sender.envelopes.response(request.id, sent)  # type: ignore[no-any-return]
    return package.encode_message(package.Response(id=request.id, result=typed))  # type: ignore[no-any-return]


@pytest.mark.parametrize("name,method,at,tp", [c for c in CASES if c.values[2] == "result"])
def test_a_checked_answer_is_the_one_typed_makes_or_the_error_it_raises(
    name: str, method: str, at: str, tp: Any
) -> None:
    """`Sender.response` writes out `typed` for a generated object: for valid results (as
    generated objects and as wire JSON) and broken ones, it gives the same bytes or raises the
    same error as the way through `typed`."""
    from acp_runtime.jsonrpc.sending import Sender
    from acpgen.instances import mutations

    package = SCHEMAS[name][0]
    sender = Sender(package, Envelopes(package))
    request = package.Request(id=7, method=method, params=None)
    def_name = def_of(name, method, tp)
    assert def_name is not None
    values: list[Any] = []
    for instance, _ in valid_instances_with_defaults(schema_of(name), def_name, count=3, seed=SEED):
        values += [instance, wire.build(package, instance, tp)]
    for m in mutations(schema_of(name), def_name, count=4, seed=SEED):
        values.append(m.instance)
        try:  # a broken generated object, where one can be built without a check
            values.append(msgspec.convert(m.instance, tp, strict=False))
        except (msgspec.ValidationError, TypeError):
            pass
    for value in values:
        if value is None:  # answered before the check (`{}`, or refused for its required fields)
            continue
        try:
            expected: Any = _typed_response(sender, request, value)
        except Exception as exc:  # the error, by kind and text
            expected = (type(exc), str(exc))
        try:
            got: Any = sender.response(request, value, strict=True)
        except Exception as exc:
            got = (type(exc), str(exc))
        assert got == expected, value


@pytest.mark.parametrize("name,method,at,tp", [c for c in CASES if c.values[2] == "params"])
def test_thestrict_check_of_params_refuses_what_the_strict_decode_refuses(
    name: str, method: str, at: str, tp: Any
) -> None:
    """`Sender.params` checks a generated object's JSON with the codec's prebuilt decoder
    (`sending.strict_check`), not through `decode(..., strict=True)`: over valid and broken
    values of every method's params (generated objects built without a check, and their JSON),
    the check passes exactly the JSON the strict decode passes, and `params` returns the same
    value or raises the same error as `typed`."""
    from acp_runtime.jsonrpc.sending import Sender, strict_check
    from acpgen.instances import mutations

    package = SCHEMAS[name][0]
    check = strict_check(package, tp)
    assert check is not None and getattr(check, "__name__", "") == "decode"  # the decoder's own
    def_name = def_of(name, method, tp)
    assert def_name is not None
    values: list[Any] = []
    for instance, _ in valid_instances_with_defaults(schema_of(name), def_name, count=3, seed=SEED):
        values.append(wire.build(package, instance, tp))
    for m in mutations(schema_of(name), def_name, count=BROKEN_PARAMS, seed=SEED):
        try:  # a mutated instance, where the lax conversion still builds an object of it
            values.append(msgspec.convert(m.instance, tp, strict=False))
        except (msgspec.ValidationError, TypeError):
            pass
    values += [broken for value in list(values) for broken in _broken(value, 2)]
    refused = checked = 0
    for value in values:
        if value is None or type(value) is dict:  # wire JSON: `typed`'s way, not this check's
            continue
        try:
            data = package.encode_message(value)
        except (TypeError, ValueError, msgspec.EncodeError):
            continue  # refused before either check
        try:
            package.decode(data, tp, strict=True)
            expected = True
        except (TypeError, ValueError):
            expected = False
        try:
            check(data)
            got = True
        except (TypeError, ValueError):
            got = False
        assert got == expected, value
        refused += not expected
        checked += 1
        sender = Sender(package, Envelopes(package))
        try:
            want: Any = sender.typed(method, value, tp, "params")
        except Exception as exc:
            want = (type(exc), str(exc))
        sender.sending = None
        try:
            have: Any = sender.params(method, value)
        except Exception as exc:
            have = (type(exc), str(exc))
        assert have == want, value
    assert refused or not checked, "no broken value reached the check"


BROKEN_PARAMS = 8
_JUNK = (5, 2.5, "x", None, True, [], {}, [1], msgspec.UNSET)


def _broken(value: Any, depth: int) -> list[Any]:
    """Copies of a generated object with one field (at most `depth` objects down) set to a value
    of another kind, built without any check (`msgspec.structs.replace`)."""
    if not isinstance(value, msgspec.Struct) or depth == 0:
        return []
    out: list[Any] = []
    for field in value.__struct_fields__:
        current = getattr(value, field)
        out += [msgspec.structs.replace(value, **{field: junk}) for junk in _JUNK]
        out += [
            msgspec.structs.replace(value, **{field: inner})
            for inner in _broken(current, depth - 1)
        ]
    return out


def test_a_package_without_the_codec_gets_its_strict_decode() -> None:
    """`strict_check` of a package whose `decode` is not its codec's calls that `decode`."""
    from acp_runtime.jsonrpc.sending import strict_check

    calls: list[tuple[bytes, Any, bool]] = []
    package = ModuleType("custom")
    package.decode = lambda data, tp, *, strict=False: calls.append((data, tp, strict))  # type: ignore[attr-defined]
    strict_check(package, acp.SessionNotification)(b"{}")
    assert calls == [(b"{}", acp.SessionNotification, True)]
