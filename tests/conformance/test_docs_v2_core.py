"""docs/protocol/v2 rows carried by the v2 core of the runtime (version routing, the v2 rules as
guards, `AgentSession.turn`, batches, examples/echo_agent.py): their tests live in tests/runtime
and run here again under the rows they prove (the table names the test where it is written), plus
the rows' own tests where none existed."""

from __future__ import annotations

import asyncio
import functools
import inspect
from pathlib import Path
from typing import Any, Callable

import pytest

import acp_schema as v1
import acp_schema_v2 as v2
from acp_runtime import memory_pipe, wire
from acp_runtime.helpers import AgentSession
from acp_runtime.session import Session
from acp_runtime.versions import ClientRoute, ClientVersions

from ..runtime import test_v2_batches as batches
from ..runtime import test_v2_echo as echo
from ..runtime import test_v2_routing as routing
from ..runtime import test_v2_rules as v2rules
from ..runtime.helpers import RawPeer
from ..runtime.v2peers import AgentV2, both_agents, connected, v2_initialize

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement


def traced(test: Callable[..., Any], *ids: str, **marker: str) -> Callable[..., Any]:
    """`test` (a test of another module), run here again as a test of the requirements `ids`."""
    if inspect.iscoroutinefunction(test):

        async def run(*args: Any, **kwargs: Any) -> None:
            await test(*args, **kwargs)

    else:

        def run(*args: Any, **kwargs: Any) -> None:
            test(*args, **kwargs)

    functools.update_wrapper(run, test)
    run.__traced_from__ = f"{Path(inspect.getfile(test)).name}::{test.__name__}"  # type: ignore[attr-defined]
    return requirement(*ids, **marker)(run)  # type: ignore[no-any-return]


# --- initialization: version negotiation, info, auth ----------------------------------------------

test_v2_routing_agrees = traced(
    routing.test_a_v2_client_gets_the_v2_package_handler_and_proxy,
    "ACP-V2-INIT-VERSION-AGREEMENT",
    "ACP-V2-INIT-AGENT-SAME-VERSION",
)
test_v1_routing_agrees = traced(
    routing.test_a_v1_client_of_the_same_agent_gets_the_v1_package,
    "ACP-V2-INIT-VERSION-AGREEMENT",
    "ACP-V2-INIT-AGENT-SAME-VERSION",
)
test_fallback_agrees = traced(
    routing.test_a_client_of_both_versions_falls_back_to_v1_with_a_v1_only_agent,
    "ACP-V2-INIT-VERSION-AGREEMENT",
)
test_v2_only_client_refuses_v1 = traced(
    routing.test_a_v2_only_client_refuses_a_v1_answer, "ACP-V2-INIT-VERSION-AGREEMENT"
)
test_newer_version_answered_latest = traced(
    routing.test_an_agent_answers_a_newer_version_than_it_speaks_with_its_latest,
    "ACP-V2-INIT-AGENT-LATEST-VERSION",
)
test_initialize_without_info_refused = traced(
    routing.test_a_bad_v2_initialize_is_answered_by_the_v2_package_and_may_be_retried,
    "ACP-V2-INIT-INFO",
)
test_initialize_answer_rules = traced(
    v2rules.test_an_initialize_answer_breaking_a_v2_rule_is_refused,
    "ACP-V2-INIT-INFO",
    "ACP-V2-AUTH-AGENT-LOGIN-LOGOUT",
    "ACP-V2-SESSION-LIST-BASELINE",
)
test_client_initialize_rules = traced(
    v2rules.test_a_client_refuses_to_send_an_initialize_breaking_a_v2_rule, "ACP-V2-INIT-INFO"
)
test_baseline_advertised = traced(
    v2rules.test_an_agent_serving_the_baseline_may_advertise_capabilities_session,
    "ACP-V2-SESSION-LIST-BASELINE",
)
test_no_auth_without_methods = traced(
    v2rules.test_a_client_never_calls_auth_login_or_logout_without_auth_methods,
    "ACP-V2-AUTH-CLIENT-NO-AUTH-WITHOUT-METHODS",
)


@requirement("ACP-V2-INIT-REQUEST-LATEST-VERSION")
async def test_a_client_of_both_versions_asks_for_its_latest_whatever_it_was_given() -> None:
    (client_in, client_out), (peer_in, peer_out) = memory_pipe()
    routes = ClientVersions(
        ClientRoute(1, v1, v1.ClientHandler()), ClientRoute(2, v2, v2.ClientHandler())
    )
    conn = routes.connect(client_in, client_out)
    peer = RawPeer(peer_in, peer_out)
    written = {"protocolVersion": 1, "info": {"name": "c", "version": "1"}}
    call = asyncio.ensure_future(conn.request("initialize", written))
    assert (await peer.recv())["params"]["protocolVersion"] == 2
    call.cancel()
    peer.close()


# --- the prompt turn ------------------------------------------------------------------------------

test_message_id_required = traced(
    v2rules.test_a_message_chunk_without_a_message_id_is_refused, "ACP-V2-PROMPT-MESSAGE-ID"
)
test_turn_not_ended_before_answer = traced(
    v2rules.test_a_turn_ended_before_the_prompt_is_answered_is_refused,
    "ACP-V2-PROMPT-AGENT-RESPOND-ON-ACCEPT",
)
test_user_message_acknowledged = traced(
    v2rules.test_the_user_message_carries_the_id_the_prompt_answer_acknowledged,
    "ACP-V2-PROMPT-AGENT-USER-MESSAGE",
)
test_echo_v2_turn = traced(
    echo.test_in_memory_the_same_echo_agent_runs_a_v2_turn,
    "ACP-V2-PROMPT-AGENT-RESPOND-ON-ACCEPT",
    "ACP-V2-PROMPT-AGENT-USER-MESSAGE",
    "ACP-V2-PROMPT-AGENT-RUNNING",
    "ACP-V2-PROMPT-AGENT-IDLE-STOP-REASON",
    "ACP-V2-PROMPT-MESSAGE-ID",
)

# --- cancellation ---------------------------------------------------------------------------------

test_cancel_confirmed = traced(
    v2rules.test_after_session_cancel_the_turn_ends_idle_cancelled,
    "ACP-V2-CANCEL-AGENT-IDLE-CANCELLED",
)

# --- batches --------------------------------------------------------------------------------------

test_empty_batch = traced(
    batches.test_an_empty_batch_is_one_invalid_request, "ACP-V2-TRANSPORT-BATCH-NON-EMPTY"
)
test_batch_notifications_unanswered = traced(
    batches.test_notifications_in_a_batch_get_no_answer_entries,
    "ACP-V2-TRANSPORT-BATCH-NO-NOTIFICATION-REPLY",
)
test_batch_of_notifications_only = traced(
    batches.test_a_batch_of_notifications_only_gets_no_answer,
    "ACP-V2-TRANSPORT-BATCH-NO-NOTIFICATION-REPLY",
    "ACP-V2-TRANSPORT-BATCH-NO-EMPTY-ARRAY",
)


# --- a whole v2 turn, both sides of the library: AgentSession.turn and the client's Session ------


class Stopping(AgentV2):
    """A turn that says "working", waits, and when cancelled says "stopping" before it ends."""

    async def session_prompt(self, params: v2.PromptRequest) -> v2.PromptResponse:
        session = AgentSession(self.conn, params.session_id)

        async def work() -> str:
            await session.say("working")
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                await session.say("stopping")
                raise
            return "end_turn"

        return await session.turn(list(params.prompt), work)  # type: ignore[no-any-return]


@requirement(
    "ACP-V2-CANCEL-AGENT-IDLE-CANCELLED",
    "ACP-V2-CANCEL-AGENT-CATCH-ABORT",
    "ACP-V2-CANCEL-AGENT-UPDATES-BEFORE-IDLE",
)
async def test_updates_sent_while_a_cancelled_turn_stops_go_before_its_idle_cancelled() -> None:
    agent, client = await connected(agent=both_agents(Stopping))
    await client.agent.initialize(v2_initialize())
    session = await Session.new(client, "/w")
    turn = asyncio.ensure_future(session.prompt("go"))
    seen: list[tuple[str, Any]] = []
    async for update in session.updates():
        text = wire.get(update, "content", "text")
        seen.append((wire.get(update, "sessionUpdate"), text or wire.get(update, "state")))
        if text == "working":
            await session.cancel()
    outcome = await turn
    assert outcome.stop_reason == "cancelled"
    assert seen == [
        ("user_message", None),
        ("state_update", "running"),
        ("agent_message_chunk", "working"),
        ("agent_message_chunk", "stopping"),
        ("state_update", "idle"),
    ]
    await client.close()
