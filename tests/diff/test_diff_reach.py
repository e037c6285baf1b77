"""Who sends what to whom: the directions severity is worked out from."""

from __future__ import annotations

from acpgen.diff.reach import BOTH_WAYS
from tests.diff.helpers import fixture_revision


def test_the_params_of_a_method_the_agent_receives_flow_from_client_to_agent() -> None:
    reach = fixture_revision("v2-stable-2026-08-20").reach
    assert reach.flows_of("PromptRequest") == {("client", "agent")}
    assert reach.flows_of("PromptResponse") == {("agent", "client")}


def test_a_type_reached_from_both_directions_flows_both_ways() -> None:
    reach = fixture_revision("v2-stable-2026-08-20").reach
    assert (
        reach.flows_of("ContentBlock") == BOTH_WAYS
    )  # prompts go to the agent, updates to the client
    assert {"session/prompt", "session/update"} <= reach.methods_of("ContentBlock")


def test_a_method_either_side_receives_flows_both_ways() -> None:
    assert (
        fixture_revision("v2-stable-2026-08-20").reach.flows_of("CancelRequestNotification")
        == BOTH_WAYS
    )


def test_a_type_only_the_json_rpc_envelopes_use_flows_both_ways_and_belongs_to_no_method() -> None:
    reach = fixture_revision("v2-stable-2026-08-20").reach
    assert reach.flows_of("ErrorCode") == BOTH_WAYS
    assert reach.methods_of("ErrorCode") == frozenset()


def test_a_payload_the_ir_flattened_into_a_union_is_still_reached_through_its_ref() -> None:
    reach = fixture_revision("v2-stable-2026-08-20").reach
    assert reach.methods_of("ElicitationFormMode") == {"elicitation/create"}
    assert reach.flows_of("ElicitationFormMode") == {("agent", "client")}
