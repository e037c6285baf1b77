"""docs/protocol/v1/agent-plan.mdx: plans are reported whole, every time."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from .docs_peers import (
    connect,
    eventually,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_agent,
    update,
)

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement


def plan(*entries: tuple[str, str]) -> dict[str, Any]:
    return {
        "sessionUpdate": "plan",
        "entries": [
            {"content": content, "priority": "medium", "status": status}
            for content, status in entries
        ],
    }


async def report(pkg: Any, plans: list[dict[str, Any]]) -> list[Any]:
    """Send `plans` from an agent; the plan updates the client handler saw, as wire JSON."""
    agent, client = await connect(pkg)
    for data in plans:
        await agent.client.session_update(update(pkg, data))
    await eventually(
        lambda: len(client.handler.of("session/update")) == len(plans),
        f"the client handler did not get the {len(plans)} plan updates sent",
    )
    return client.handler.updates()


@requirement(
    "ACP-V1-PLAN-REPORT",
    carried="the plan update is carried; making and reporting the plan is the application's",
)
async def test_agent_reports_its_plan_to_the_client(pkg: Any) -> None:
    """The library carries the plan session update; making and reporting the plan is the agent
    application's part."""
    first = plan(("Check for syntax errors", "pending"), ("Identify type issues", "pending"))
    assert await report(pkg, [first]) == [first]


@requirement(
    "ACP-V1-PLAN-REPORT-UPDATES",
    carried=(
        "plan updates are carried in order; sending them as work progresses is the application's"
    ),
)
async def test_agent_reports_progress_as_more_plan_updates(pkg: Any) -> None:
    """Each further plan update arrives in order with the same structure; sending them as the
    work progresses is the agent application's part."""
    plans = [
        plan(("Check for syntax errors", "pending"), ("Identify type issues", "pending")),
        plan(("Check for syntax errors", "in_progress"), ("Identify type issues", "pending")),
        plan(("Check for syntax errors", "completed"), ("Identify type issues", "in_progress")),
    ]
    assert await report(pkg, plans) == plans


@requirement("ACP-V1-PLAN-COMPLETE-LIST")
async def test_a_plan_update_cannot_leave_out_the_entry_list(pkg: Any) -> None:
    """A plan update always carries its entries: the typed update cannot be built without them and
    a received one without them never reaches the client handler; listing every entry with its
    status is the agent application's part."""
    with pytest.raises(msgspec.ValidationError, match="entries"):
        update(pkg, {"sessionUpdate": "plan"})
    client, peer = raw_agent(pkg)
    peer.send(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s1", "update": {"sessionUpdate": "plan"}},
        }
    )
    peer.send(
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s1", "update": plan()},
        }
    )
    await eventually(
        lambda: client.handler.of("session/update"), "the plan update never reached the client"
    )
    assert client.handler.updates() == [plan()]


@requirement(
    "ACP-V1-PLAN-CLIENT-REPLACE",
    carried=(
        "each plan reaches the client handler as sent, with no plan state kept; replacing the shown"
        " plan is the application's"
    ),
)
async def test_each_plan_reaches_the_client_whole_never_merged(pkg: Any) -> None:
    """The runtime keeps no plan state: every update reaches the client handler exactly as sent,
    so replacing the shown plan with it is all the client application has to do."""
    plans = [
        plan(("A", "completed"), ("B", "pending"), ("C", "pending")),
        plan(("B", "in_progress")),
    ]
    seen = await report(pkg, plans)
    assert [[e["content"] for e in p["entries"]] for p in seen] == [["A", "B", "C"], ["B"]]


@requirement("ACP-V1-PLAN-DYNAMIC-MAY")
async def test_agent_may_add_remove_and_change_plan_entries(pkg: Any) -> None:
    plans = [
        plan(("Read the code", "in_progress"), ("Fix the bug", "pending")),
        plan(
            ("Read the code", "completed"),
            ("Reproduce it", "in_progress"),
            ("Fix the bug", "pending"),
        ),
        plan(("Fix the off-by-one", "completed")),
    ]
    assert await report(pkg, plans) == plans
