"""docs/protocol/v1/session-list.mdx: listing sessions, pagination and opaque cursors."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from acp_runtime import CapabilityError, NotInitializedError

from .docs_peers import (
    CWD,
    agent_serving,
    as_wire,
    client_against_raw_agent,
    connect,
    goes_out,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_agent,
    raw_client,
    typed,
)
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement

LISTS = {"sessionCapabilities": {"list": {}}}


def info(session_id: str, **extra: Any) -> dict[str, Any]:
    return {"sessionId": session_id, "cwd": CWD, **extra}


def paged(pages: dict[Any, dict[str, Any]]) -> Any:
    """A session/list handler answering the page stored under the request's cursor."""

    async def serve(params: Any) -> Any:
        return pages[None if params.cursor is msgspec.UNSET else params.cursor]

    return serve


@requirement("ACP-V1-LIST-INIT-FIRST")
async def test_client_cannot_list_sessions_before_initialize(pkg: Any) -> None:
    client, peer = raw_agent(pkg)
    await refused(
        peer, client.agent.session_list(typed(pkg, "session/list", {})), NotInitializedError
    )


@requirement("ACP-V1-LIST-CLIENT-CHECK-CAPABILITY", "ACP-V1-LIST-CLIENT-NO-LIST-WITHOUT-CAPABILITY")
@pytest.mark.parametrize("advertised", ["omitted", None])
async def test_client_never_lists_sessions_without_the_list_capability(
    pkg: Any, advertised: Any
) -> None:
    capabilities = {} if advertised == "omitted" else {"sessionCapabilities": {"list": advertised}}
    client, peer = await client_against_raw_agent(pkg, capabilities)
    await refused(
        peer,
        client.agent.session_list(typed(pkg, "session/list", {})),
        CapabilityError,
        "sessionCapabilities.list",
    )


@requirement("ACP-V1-LIST-CLIENT-CHECK-CAPABILITY")
async def test_client_lists_sessions_once_list_is_advertised(pkg: Any) -> None:
    client, peer = await client_against_raw_agent(pkg, LISTS)
    assert await goes_out(client, peer, "session/list", typed(pkg, "session/list", {}))


@requirement("ACP-V1-LIST-AGENT-RESPONSE")
async def test_agent_answers_a_list_of_sessions_with_pagination_metadata(pkg: Any) -> None:
    page = {
        "sessions": [info("s1", title="Fix the build", updatedAt="2026-08-20T10:00:00Z")],
        "nextCursor": "c2",
    }
    agent, client = await connect(pkg, agent_serving(pkg, LISTS, session_list=page), session=False)
    answer = await client.agent.session_list(typed(pkg, "session/list", {}))
    assert as_wire(pkg, answer) == page


@requirement("ACP-V1-LIST-AGENT-RESPONSE")
async def test_agent_never_answers_a_list_without_sessions(pkg: Any) -> None:
    async def nothing(params: Any) -> Any:
        return None

    agent, peer = await raw_client(pkg, agent_serving(pkg, LISTS, session_list=nothing))
    reply = await peer.call(1, "session/list", {})
    assert reply["error"]["code"] == -32603


@requirement("ACP-V1-LIST-ADDITIONAL-DIRS-MAY")
async def test_agent_may_report_each_sessions_additional_roots(pkg: Any) -> None:
    capabilities = {"sessionCapabilities": {"list": {}, "additionalDirectories": {}}}
    page = {"sessions": [info("s1", additionalDirectories=["/work/lib", "/work/docs"]), info("s2")]}
    agent, client = await connect(
        pkg, agent_serving(pkg, capabilities, session_list=page), session=False
    )
    answer = await client.agent.session_list(typed(pkg, "session/list", {}))
    assert [s.additional_directories or [] for s in answer.sessions] == [
        ["/work/lib", "/work/docs"],
        [],
    ]


@requirement("ACP-V1-LIST-CLIENT-NO-MERGE-ADDITIONAL-DIRS")
async def test_each_listing_reports_only_its_own_additional_roots(pkg: Any) -> None:
    """The runtime keeps no session info between listings: a later one never carries roots
    merged from an earlier one."""
    capabilities = {"sessionCapabilities": {"list": {}, "additionalDirectories": {}}}
    listings = iter(
        [
            {"sessions": [info("s1", additionalDirectories=["/a", "/b"])]},
            {"sessions": [info("s1", additionalDirectories=["/c"])]},
            {"sessions": [info("s1")]},
        ]
    )

    async def listing(params: Any) -> Any:
        return next(listings)

    agent, client = await connect(
        pkg, agent_serving(pkg, capabilities, session_list=listing), session=False
    )
    seen = []
    for _ in range(3):
        answer = await client.agent.session_list(typed(pkg, "session/list", {}))
        seen.append(answer.sessions[0].additional_directories or [])
    assert seen == [["/a", "/b"], ["/c"], []]


@requirement("ACP-V1-LIST-EMPTY-ARRAY")
async def test_an_empty_listing_goes_out_as_an_empty_sessions_array(pkg: Any) -> None:
    """The library puts `"sessions": []` on the wire for an empty listing (never omits it);
    filtering the sessions is the agent application's part."""
    agent, peer = await raw_client(pkg, agent_serving(pkg, LISTS, session_list={"sessions": []}))
    reply = await peer.call(1, "session/list", {"cwd": "/nowhere"})
    assert reply["result"] == {"sessions": []}


@requirement("ACP-V1-LIST-CLIENT-MISSING-CURSOR-IS-END")
async def test_pages_end_at_the_first_page_without_a_next_cursor(pkg: Any) -> None:
    pages = {
        None: {"sessions": [info("s1")], "nextCursor": "p2"},
        "p2": {"sessions": [info("s2")], "nextCursor": "p3"},
        "p3": {"sessions": [info("s3")]},
        "p4": {"sessions": [info("never")]},
    }
    agent, client = await connect(
        pkg, agent_serving(pkg, LISTS, session_list=paged(pages)), session=False
    )
    listed = [s.session_id async for page in client.pages("session/list") for s in page.sessions]
    assert listed == ["s1", "s2", "s3"]
    assert [p.cursor for p in agent.handler.of("session/list")] == [msgspec.UNSET, "p2", "p3"]


@requirement("ACP-V1-LIST-CLIENT-OPAQUE-CURSOR")
async def test_cursors_go_back_untouched_and_are_not_kept(pkg: Any) -> None:
    opaque = " eyJvZmZzZXQiOjUwfQ==/+ ünï\n "
    pages = {None: {"sessions": [], "nextCursor": opaque}, opaque: {"sessions": [info("s9")]}}
    agent, client = await connect(
        pkg, agent_serving(pkg, LISTS, session_list=paged(pages)), session=False
    )
    first = [
        page
        async for page in client.pages("session/list", typed(pkg, "session/list", {"cwd": CWD}))
    ]
    again = [
        page
        async for page in client.pages("session/list", typed(pkg, "session/list", {"cwd": CWD}))
    ]
    assert len(first) == len(again) == 2
    sent = [(p.cwd, p.cursor) for p in agent.handler.of("session/list")]
    assert sent == [(CWD, msgspec.UNSET), (CWD, opaque)] * 2


@requirement(
    "ACP-V1-LIST-AGENT-INVALID-CURSOR-ERROR",
    carried="a handler's error reaches the client; judging the cursor is the application's",
)
async def test_agent_can_fail_a_listing_with_an_invalid_cursor(pkg: Any) -> None:
    """A session/list handler raising the generated error answers it to the client (and ends
    `pages`); judging the cursor is the agent application's part."""

    async def listing(params: Any) -> Any:
        if params.cursor is not msgspec.UNSET:
            raise pkg.error_for(
                -32602, "Invalid params", {"message": f"unknown cursor {params.cursor!r}"}
            )
        return {"sessions": [info("s1")], "nextCursor": "stale"}

    agent, client = await connect(
        pkg, agent_serving(pkg, LISTS, session_list=listing), session=False
    )
    pages = client.pages("session/list")
    assert [s.session_id for s in (await anext(pages)).sessions] == ["s1"]
    with pytest.raises(pkg.RpcError) as raised:
        await anext(pages)
    assert (raised.value.code, raised.value.data) == (-32602, {"message": "unknown cursor 'stale'"})
