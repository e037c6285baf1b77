"""Elicitation (requirements 97-114, 181-182, 186, 237), over connections of the v1 package.

Modes, property schemas and actions the package does not know decode as `UnknownVariant` (`.raw` is
the JSON as it came, re-encoded unchanged), never as a known one. The runtime checks modes against
the client's capabilities on both sides, checks accepted form content against the requested schema
on both sides, and ties URL elicitation ids to the connection they were opened on.
"""

from __future__ import annotations

import asyncio
from typing import Any

import msgspec
import pytest

from acp_runtime import CapabilityError, ProtocolError

from .refusal import refused
from .sides import Client, pair, raw_agent, raw_client, typed

pytest_plugins = ("tests.runtime.aio",)
requirement = pytest.mark.requirement

BOTH_MODES = {"elicitation": {"form": {}, "url": {}}}
FORM = {
    "sessionId": "s1",
    "mode": "form",
    "message": "How should I approach this refactoring?",
    "requestedSchema": {
        "type": "object",
        "properties": {
            "strategy": {"type": "string", "enum": ["conservative", "balanced", "aggressive"]},
            "count": {"type": "integer", "minimum": 1, "maximum": 5},
            "ratio": {"type": "number", "maximum": 1},
            "confirm": {"type": "boolean"},
            "name": {"type": "string", "minLength": 2, "maxLength": 10},
            "tags": {
                "type": "array",
                "items": {"type": "string", "enum": ["a", "b"]},
                "maxItems": 2,
            },
            "level": {
                "type": "string",
                "oneOf": [{"const": "low", "title": "Low"}, {"const": "high", "title": "High"}],
            },
        },
        "required": ["strategy"],
    },
}
GOOD_CONTENT = {
    "strategy": "balanced",
    "count": 3,
    "ratio": 0.5,
    "confirm": True,
    "name": "Ada",
    "tags": ["a"],
    "level": "low",
}
BAD_CONTENTS = [
    {"count": 3},  # the required strategy missing
    {"strategy": "reckless"},  # not among the enum
    {"strategy": "balanced", "count": "3"},  # not an integer
    {"strategy": "balanced", "count": 2.5},  # not an integer
    {"strategy": "balanced", "count": 9},  # above the maximum
    {"strategy": "balanced", "confirm": "yes"},  # not a boolean
    {"strategy": "balanced", "ratio": True},  # a boolean is not a number
    {"strategy": "balanced", "name": "A"},  # shorter than minLength
    {"strategy": "balanced", "tags": ["a", "b", "a"]},  # more than maxItems
    {"strategy": "balanced", "tags": ["c"]},  # an item not among the enum
    {"strategy": "balanced", "level": "medium"},  # not among the oneOf consts
]


def url_elicitation(elicitation_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "requestId": 12,
        "mode": "url",
        "elicitationId": elicitation_id,
        "url": f"https://agent.example.com/connect?elicitationId={elicitation_id}",
        "message": "Please authorize access to your repositories.",
        **extra,
    }


def known_modes(pkg: Any) -> tuple[type, ...]:
    return (
        pkg.CreateElicitationRequestFormSession,
        pkg.CreateElicitationRequestFormRequest,
        pkg.CreateElicitationRequestUrlSession,
        pkg.CreateElicitationRequestUrlRequest,
    )


async def answer_next(peer: Any, result: Any) -> Any:
    """Read the next request the raw peer gets and answer it with `result`; returns the request."""
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": result})
    return request


# --- 97, 237: modes the client advertised ---------------------------------------------------------


@requirement("ACP-V1-ELIC-AGENT-NO-UNADVERTISED-MODE")
async def test_an_agent_never_requests_a_mode_the_client_did_not_advertise(acp_v1: Any) -> None:
    form, url = typed(acp_v1, "elicitation/create", FORM), typed(
        acp_v1, "elicitation/create", url_elicitation("e1")
    )
    for capabilities, not_advertised in [
        ({}, (form, url)),
        ({"elicitation": None}, (form, url)),
        ({"elicitation": {}}, (form, url)),
        ({"elicitation": {"form": None, "url": None}}, (form, url)),
        ({"elicitation": {"form": {}}}, (url,)),
        ({"elicitation": {"url": {}}}, (form,)),
    ]:
        conn, peer = await raw_client(acp_v1, client_capabilities=capabilities)
        for params in not_advertised:
            await refused(
                peer, conn.client.elicitation_create(params), CapabilityError, "elicitation"
            )
    conn, peer = await raw_client(acp_v1, client_capabilities={"elicitation": {"form": {}}})
    call = asyncio.ensure_future(conn.client.elicitation_create(form))
    assert (await answer_next(peer, {"action": "decline"}))["params"]["mode"] == "form"
    assert isinstance(await call, acp_v1.CreateElicitationResponseDecline)


@requirement("ACP-V1-ELIC-CLIENT-UNADVERTISED-MODE-INVALID-PARAMS")
async def test_a_client_answers_invalid_params_to_a_mode_it_did_not_advertise(acp_v1: Any) -> None:
    for capabilities, params in [
        ({}, FORM),
        ({"elicitation": {"url": {}}}, FORM),
        ({"elicitation": {"form": {}}}, url_elicitation("e1")),
        ({"elicitation": {"form": None, "url": None}}, url_elicitation("e1")),
    ]:
        client = Client()
        conn, peer = await raw_agent(acp_v1, client, client_capabilities=capabilities)
        answer = await peer.call(7, "elicitation/create", params)
        assert answer["id"] == 7 and answer["error"]["code"] == -32602, answer
        assert client.seen == []


# --- 181, 182, 186: what the package does not know is kept raw ------------------------------------


@requirement("ACP-V1-ELIC-CLIENT-UNKNOWN-MODE-NOT-RENDERED-AS-KNOWN")
async def test_an_unknown_mode_reaches_the_client_raw_and_never_as_a_known_mode(
    acp_v1: Any,
) -> None:
    client = Client()
    conn, peer = await raw_agent(acp_v1, client, client_capabilities=BOTH_MODES)
    wizard = {
        "sessionId": "s1",
        "mode": "wizard",
        "message": "Step through",
        "steps": [{"id": 1, "ask": "name"}],
    }
    answer = await peer.call(1, "elicitation/create", wizard)
    assert answer["result"] == {"action": "decline"}
    ((method, params),) = client.seen
    assert isinstance(params, acp_v1.UnknownVariant) and not isinstance(params, known_modes(acp_v1))
    assert params.raw == wizard and msgspec.json.decode(acp_v1.encode(params)) == wizard


@requirement("ACP-V1-ELIC-CLIENT-UNKNOWN-MODE-NOT-RENDERED-AS-KNOWN")
async def test_an_unknown_mode_is_forwarded_unchanged(acp_v1: Any) -> None:
    """A proxy between a client and an agent passes an elicitation of a mode it does not know on
    as it came: the raw payload, not a rendering of it as form or url."""
    wizard = {
        "sessionId": "s1",
        "mode": "wizard",
        "message": "Step through",
        "steps": [{"id": 1}],
        "_meta": {"k": [1]},
    }
    upstream, upstream_peer = await raw_agent(acp_v1, Client(), client_capabilities=BOTH_MODES)
    downstream, downstream_peer = await raw_client(acp_v1, client_capabilities=BOTH_MODES)

    class Proxy(Client):
        async def elicitation_create(self, params: Any) -> Any:
            return await downstream.client.elicitation_create(params)

    upstream.handler = Proxy()
    upstream_peer.send(
        {"jsonrpc": "2.0", "id": 1, "method": "elicitation/create", "params": wizard}
    )
    forwarded = await answer_next(
        downstream_peer, {"action": "accept", "content": {"step": "done"}}
    )
    assert forwarded["params"] == wizard
    assert (await upstream_peer.recv())["result"] == {
        "action": "accept",
        "content": {"step": "done"},
    }


@requirement("ACP-V1-ELIC-CLIENT-UNKNOWN-PROPERTY-SCHEMA-NOT-RENDERED-AS-KNOWN")
async def test_an_unknown_property_schema_reaches_the_client_raw_and_never_as_a_known_control(
    acp_v1: Any,
) -> None:
    client = Client({"action": "accept", "content": {"name": "Ada", "when": "2026-09-01"}})
    conn, peer = await raw_agent(acp_v1, client, client_capabilities=BOTH_MODES)
    when = {"type": "date", "title": "When", "after": "2026-01-01"}
    form = {
        **FORM,
        "requestedSchema": {
            "type": "object",
            "properties": {"when": when, "name": {"type": "string"}},
        },
    }
    answer = await peer.call(1, "elicitation/create", form)
    assert answer["result"] == {
        "action": "accept",
        "content": {"name": "Ada", "when": "2026-09-01"},
    }
    ((method, params),) = client.seen
    properties = params.requested_schema.properties
    assert isinstance(properties["name"], acp_v1.StringPropertySchema)
    known = (
        acp_v1.StringPropertySchema,
        acp_v1.NumberPropertySchema,
        acp_v1.IntegerPropertySchema,
        acp_v1.BooleanPropertySchema,
        acp_v1.MultiSelectPropertySchema,
    )
    assert isinstance(properties["when"], acp_v1.UnknownVariant) and not isinstance(
        properties["when"], known
    )
    assert properties["when"].raw == when
    assert (
        msgspec.json.decode(acp_v1.encode(params))["requestedSchema"]["properties"]
        == form["requestedSchema"]["properties"]
    )


@requirement("ACP-V1-ELIC-AGENT-UNKNOWN-ACTION-NOT-TREATED-AS-KNOWN")
async def test_an_unknown_action_reaches_the_agent_raw_and_never_as_a_known_action(
    acp_v1: Any,
) -> None:
    conn, peer = await raw_client(acp_v1, client_capabilities=BOTH_MODES)
    call = asyncio.ensure_future(
        conn.client.elicitation_create(typed(acp_v1, "elicitation/create", FORM))
    )
    defer = {"action": "defer", "until": "tomorrow", "content": {"strategy": 5}}
    await answer_next(peer, defer)
    answer = await call
    known = (
        acp_v1.CreateElicitationResponseAccept,
        acp_v1.CreateElicitationResponseDecline,
        acp_v1.CreateElicitationResponseCancel,
    )
    assert isinstance(answer, acp_v1.UnknownVariant) and not isinstance(answer, known)
    assert answer.raw == defer and msgspec.json.decode(acp_v1.encode(answer)) == defer


# --- 100, 101, 107: accepted form content fits the requested schema -------------------------------


@requirement("ACP-V1-ELIC-CLIENT-VALIDATE", "ACP-V1-ELIC-ACCEPT-CONTENT-SCHEMA")
async def test_a_client_does_not_send_form_content_that_breaks_the_requested_schema(
    acp_v1: Any,
) -> None:
    """The application still owes: letting the user correct what they entered, and any check the
    runtime does not make (`pattern`, `format`, property schema types it does not know)."""
    for n, content in enumerate(BAD_CONTENTS):
        client = Client({"action": "accept", "content": content})
        conn, peer = await raw_agent(acp_v1, client, client_capabilities=BOTH_MODES)
        answer = await peer.call(n, "elicitation/create", FORM)
        error = answer["error"]
        assert (
            error["code"] == -32603 and "does not fit the request" in error["data"]["message"]
        ), answer


@requirement("ACP-V1-ELIC-ACCEPT-CONTENT-SCHEMA")
async def test_accepted_form_content_that_fits_reaches_the_agent_unchanged(acp_v1: Any) -> None:
    """The application still owes: content that means what the user chose."""
    client = Client({"action": "accept", "content": GOOD_CONTENT})
    agent_conn, client_conn, *_ = await pair(acp_v1, client=client, client_capabilities=BOTH_MODES)
    answer = await agent_conn.client.elicitation_create(typed(acp_v1, "elicitation/create", FORM))
    assert (
        isinstance(answer, acp_v1.CreateElicitationResponseAccept)
        and answer.content == GOOD_CONTENT
    )
    for action in ({"action": "decline"}, {"action": "cancel"}):  # no content to check
        client.elicitation_answer = action
        answer = await agent_conn.client.elicitation_create(
            typed(acp_v1, "elicitation/create", FORM)
        )
        assert msgspec.json.decode(acp_v1.encode(answer)) == action


@requirement("ACP-V1-ELIC-AGENT-REVALIDATE")
async def test_an_agent_refuses_form_content_that_breaks_the_requested_schema(acp_v1: Any) -> None:
    """The application still owes: checks of meaning beyond the schema, and a safe fallback when
    the call fails."""
    conn, peer = await raw_client(acp_v1, client_capabilities=BOTH_MODES)
    for content in BAD_CONTENTS:
        call = asyncio.ensure_future(
            conn.client.elicitation_create(typed(acp_v1, "elicitation/create", FORM))
        )
        await answer_next(peer, {"action": "accept", "content": content})
        with pytest.raises(acp_v1.RpcError, match="Invalid result") as failed:
            await call
        assert failed.value.code == -32603


# --- 111-114, 99: URL elicitation ids and completion ----------------------------------------------


@requirement("ACP-V1-ELIC-CLIENT-OPAQUE-ELICITATION-ID")
async def test_a_client_keeps_elicitation_ids_exactly_as_given(acp_v1: Any) -> None:
    ids = ["github-oauth-001", "  spaced  ", "ÄÖ/?&=#%20", "007", "x" * 2000, "", '{"json": 1}']
    client = Client({"action": "accept"})
    conn, peer = await raw_agent(acp_v1, client, client_capabilities=BOTH_MODES)
    for n, elicitation_id in enumerate(ids):
        assert "result" in await peer.call(n, "elicitation/create", url_elicitation(elicitation_id))
    for elicitation_id in [
        "GITHUB-OAUTH-001",
        "spaced",
        "7",
        " 007",
    ]:  # no normalizing: unknown ids
        peer.send(
            {
                "jsonrpc": "2.0",
                "method": "elicitation/complete",
                "params": {"elicitationId": elicitation_id},
            }
        )
    for elicitation_id in ids:
        peer.send(
            {
                "jsonrpc": "2.0",
                "method": "elicitation/complete",
                "params": {"elicitationId": elicitation_id},
            }
        )
    await peer.call("barrier", "_ping", {})
    assert [p.elicitation_id for m, p in client.seen if m == "elicitation/create"] == ids
    assert [p.elicitation_id for m, p in client.seen if m == "elicitation/complete"] == ids


@requirement("ACP-V1-ELIC-AGENT-COMPLETE-MAY")
async def test_an_agent_may_complete_a_url_elicitation(acp_v1: Any) -> None:
    client = Client({"action": "accept"})
    agent_conn, client_conn, *_ = await pair(acp_v1, client=client, client_capabilities=BOTH_MODES)
    answer = await agent_conn.client.elicitation_create(
        typed(acp_v1, "elicitation/create", url_elicitation("oauth-1"))
    )
    assert isinstance(answer, acp_v1.CreateElicitationResponseAccept)
    await agent_conn.client.elicitation_complete(
        typed(acp_v1, "elicitation/complete", {"elicitationId": "oauth-1"})
    )
    await agent_conn.request("_ping", {})
    assert (
        client.seen[-2][0] == "elicitation/complete"
        and client.seen[-2][1].elicitation_id == "oauth-1"
    )


@requirement("ACP-V1-ELIC-AGENT-COMPLETE-SAME-CLIENT")
async def test_an_agent_completes_only_elicitations_opened_on_that_connection(acp_v1: Any) -> None:
    conn_a, peer_a = await raw_client(acp_v1, client_capabilities=BOTH_MODES)
    conn_b, peer_b = await raw_client(acp_v1, client_capabilities=BOTH_MODES)
    call = asyncio.ensure_future(
        conn_a.client.elicitation_create(
            typed(acp_v1, "elicitation/create", url_elicitation("oauth-1"))
        )
    )
    await answer_next(peer_a, {"action": "accept"})
    await call
    for conn, peer, elicitation_id in [
        (conn_b, peer_b, "oauth-1"),
        (conn_a, peer_a, "oauth-2"),
        (conn_a, peer_a, "OAUTH-1"),
    ]:
        await refused(
            peer,
            conn.client.elicitation_complete(
                typed(acp_v1, "elicitation/complete", {"elicitationId": elicitation_id})
            ),
            ProtocolError,
            "never opened",
        )
    await conn_a.client.elicitation_complete(
        typed(acp_v1, "elicitation/complete", {"elicitationId": "oauth-1"})
    )
    assert (await peer_a.recv())["params"] == {"elicitationId": "oauth-1"}


@requirement("ACP-V1-ELIC-CLIENT-IGNORE-UNKNOWN-COMPLETE")
async def test_a_client_ignores_completions_of_unknown_or_completed_ids(acp_v1: Any) -> None:
    client = Client({"action": "accept"})
    conn, peer = await raw_agent(acp_v1, client, client_capabilities=BOTH_MODES)
    complete = {
        "jsonrpc": "2.0",
        "method": "elicitation/complete",
        "params": {"elicitationId": "oauth-1"},
    }
    peer.send(complete)  # unknown: never opened
    assert "result" in await peer.call(1, "elicitation/create", url_elicitation("oauth-1"))
    peer.send(complete)  # completes it
    peer.send(complete)  # already completed
    peer.send({**complete, "params": {"elicitationId": "form-ids-are-not-urls"}})
    await peer.call("barrier", "_ping", {})
    assert [m for m, p in client.seen] == ["elicitation/create", "elicitation/complete", "_ping"]


@requirement("ACP-V1-ELIC-AGENT-BIND-CONNECTION")
async def test_an_elicitation_is_bound_to_the_connection_it_was_sent_on(acp_v1: Any) -> None:
    """The library binds each elicitation, its answer and its completion to one connection; the
    application still owes binding them to the verified user when authentication exists (a
    sessionId or a client-provided identity alone is not enough)."""
    conn_a, peer_a = await raw_client(acp_v1, client_capabilities=BOTH_MODES)
    conn_b, peer_b = await raw_client(acp_v1, client_capabilities=BOTH_MODES)
    call = asyncio.ensure_future(
        conn_a.client.elicitation_create(
            typed(acp_v1, "elicitation/create", url_elicitation("oauth-1"))
        )
    )
    request = await peer_a.recv()
    peer_b.send(
        {"jsonrpc": "2.0", "id": request["id"], "result": {"action": "accept"}}
    )  # another client answers
    await peer_b.barrier()
    assert not call.done()
    peer_a.send({"jsonrpc": "2.0", "id": request["id"], "result": {"action": "decline"}})
    assert isinstance(await call, acp_v1.CreateElicitationResponseDecline)
    await refused(
        peer_b,
        conn_b.client.elicitation_complete(
            typed(acp_v1, "elicitation/complete", {"elicitationId": "oauth-1"})
        ),
        ProtocolError,
    )
