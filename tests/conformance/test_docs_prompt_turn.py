"""docs/protocol/v1/prompt-turn.mdx: the prompt turn, its updates, tool calls and cancellation."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from acp_runtime import NotInitializedError, ProtocolError
from tests.runtime.bounded import within

from .docs_peers import (
    CWD,
    SESSION,
    agent_serving,
    as_wire,
    chunk,
    client_against_raw_agent,
    client_serving,
    connect,
    eventually,
    goes_out,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_agent,
    raw_client,
    text,
    typed,
    update,
)
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement

PROMPT = {"sessionId": SESSION, "prompt": [text("Fix the failing test")]}
TOOL_CALL = {
    "sessionUpdate": "tool_call",
    "toolCallId": "t1",
    "title": "Run tests",
    "kind": "execute",
    "status": "pending",
}
PERMISSION_OPTIONS = [
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]


def prompt_params(pkg: Any, data: Any = None) -> Any:
    return typed(pkg, "session/prompt", data or PROMPT)


def permission(pkg: Any) -> Any:
    return typed(
        pkg,
        "session/request_permission",
        {
            "sessionId": SESSION,
            "toolCall": {"toolCallId": "t1", "title": "Run tests"},
            "options": PERMISSION_OPTIONS,
        },
    )


class Turn:
    """A session/prompt handler that reports `updates`, then waits until cancelled (or returns
    `stop_reason` when `wait` is False). On cancellation it reports `on_cancel` updates and then
    raises `on_cancel_raise` (default: the CancelledError)."""

    def __init__(
        self,
        pkg: Any,
        updates: list[dict[str, Any]] | None = None,
        *,
        wait: bool = True,
        stop_reason: str = "end_turn",
        on_cancel: list[dict[str, Any]] | None = None,
        on_cancel_raise: Exception | None = None,
    ) -> None:
        self.pkg, self.updates, self.wait, self.stop_reason = pkg, updates or [], wait, stop_reason
        self.on_cancel, self.on_cancel_raise = on_cancel or [], on_cancel_raise
        self.agent: Any = None
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()

    async def __call__(self, params: Any) -> Any:
        for data in self.updates:
            await self.agent.client.session_update(update(self.pkg, data, params.session_id))
        self.started.set()
        try:
            if self.wait:
                await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.set()
            for data in self.on_cancel:
                await self.agent.client.session_update(update(self.pkg, data, params.session_id))
            if self.on_cancel_raise is not None:
                raise self.on_cancel_raise from None
            raise
        return {"stopReason": self.stop_reason}


async def turn_pair(
    pkg: Any, turn: Turn, client: Any = None, **capabilities: Any
) -> tuple[Any, Any]:
    agent, conn = await connect(pkg, agent_serving(pkg, capabilities, session_prompt=turn), client)
    turn.agent = agent
    return agent, conn


async def cancel(pkg: Any, client: Any) -> None:
    await client.agent.session_cancel(typed(pkg, "session/cancel", {"sessionId": SESSION}))


# --- before the turn ------------------------------------------------------------------------------


@requirement("ACP-V1-PROMPT-INIT-AND-SETUP-FIRST")
async def test_client_cannot_prompt_before_initialize(pkg: Any) -> None:
    client, peer = raw_agent(pkg)
    await refused(peer, client.agent.session_prompt(prompt_params(pkg)), NotInitializedError)


@requirement("ACP-V1-PROMPT-INIT-AND-SETUP-FIRST")
async def test_client_cannot_prompt_a_session_it_has_not_set_up(pkg: Any) -> None:
    client, peer = await client_against_raw_agent(pkg, session=False)
    await refused(
        peer, client.agent.session_prompt(prompt_params(pkg)), ProtocolError, "not set up"
    )


@requirement("ACP-V1-PROMPT-INIT-AND-SETUP-FIRST")
async def test_client_prompts_once_the_session_is_set_up(pkg: Any) -> None:
    client, peer = await client_against_raw_agent(pkg)
    assert await goes_out(client, peer, "session/prompt", prompt_params(pkg))


BLOCKS = {
    "image": ({"type": "image", "data": "aGk=", "mimeType": "image/png"}, "image"),
    "audio": ({"type": "audio", "data": "aGk=", "mimeType": "audio/wav"}, "audio"),
    "resource": (
        {"type": "resource", "resource": {"uri": "file:///a", "text": "x"}},
        "embeddedContext",
    ),
}


@requirement("ACP-V1-PROMPT-CLIENT-RESTRICT-CONTENT")
@pytest.mark.parametrize("kind", list(BLOCKS))
async def test_client_sends_prompt_content_only_within_the_prompt_capabilities(
    pkg: Any, kind: str
) -> None:
    block, capability = BLOCKS[kind]
    params = prompt_params(pkg, {"sessionId": SESSION, "prompt": [text("look"), block]})
    client, peer = await client_against_raw_agent(pkg, {"promptCapabilities": {capability: False}})
    assert not await goes_out(client, peer, "session/prompt", params)
    client, peer = await client_against_raw_agent(pkg, {"promptCapabilities": {capability: True}})
    assert await goes_out(client, peer, "session/prompt", params)


# --- reporting output -----------------------------------------------------------------------------


@requirement("ACP-V1-PROMPT-MESSAGE-ID-MAY")
async def test_agent_may_tag_message_chunks_with_a_message_id(pkg: Any) -> None:
    chunks = [
        chunk("Hel", messageId="m1"),
        chunk("lo", messageId="m1"),
        chunk("Next", messageId="m2"),
    ]
    agent, client = await turn_pair(pkg, Turn(pkg, chunks, wait=False))
    await client.agent.session_prompt(prompt_params(pkg))
    assert [u["messageId"] for u in client.handler.updates()] == ["m1", "m1", "m2"]


@requirement("ACP-V1-PROMPT-USAGE-UPDATE-MAY")
async def test_agent_may_report_context_usage_and_cost(pkg: Any) -> None:
    usage = {
        "sessionUpdate": "usage_update",
        "used": 53000,
        "size": 200000,
        "cost": {"amount": 0.045, "currency": "USD"},
    }
    agent, client = await turn_pair(pkg, Turn(pkg, [usage], wait=False))
    await client.agent.session_prompt(prompt_params(pkg))
    assert client.handler.updates() == [usage]


@requirement("ACP-V1-PROMPT-RESPOND-WITH-STOP-REASON")
async def test_the_prompt_is_answered_with_a_stop_reason(pkg: Any) -> None:
    agent, client = await turn_pair(pkg, Turn(pkg, [chunk("done")], wait=False))
    answer = await client.agent.session_prompt(prompt_params(pkg))
    assert answer.stop_reason.value == "end_turn"


@requirement("ACP-V1-PROMPT-RESPOND-WITH-STOP-REASON")
async def test_agent_never_answers_a_prompt_without_a_stop_reason(pkg: Any) -> None:
    async def no_answer(params: Any) -> Any:
        return None

    agent, peer = await raw_client(pkg, agent_serving(pkg, session_prompt=no_answer))
    reply = await peer.call(1, "session/prompt", PROMPT)
    assert reply["error"]["code"] == -32603


@requirement("ACP-V1-PROMPT-AGENT-MAY-STOP")
@pytest.mark.parametrize(
    "reason", ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"]
)
async def test_agent_may_end_the_turn_with_any_stop_reason(pkg: Any, reason: str) -> None:
    agent, client = await turn_pair(pkg, Turn(pkg, wait=False, stop_reason=reason))
    answer = await client.agent.session_prompt(prompt_params(pkg))
    assert answer.stop_reason.value == reason


@requirement("ACP-V1-PROMPT-PERMISSION-MAY")
async def test_agent_may_ask_permission_in_the_middle_of_a_turn(pkg: Any) -> None:
    async def prompt(params: Any) -> Any:
        answer = await agent.client.session_request_permission(permission(pkg))
        return {"stopReason": "end_turn" if answer.outcome.option_id == "yes" else "refusal"}

    async def allow(params: Any) -> Any:
        return {"outcome": {"outcome": "selected", "optionId": "yes"}}

    client_handler = client_serving(pkg, session_request_permission=allow)
    agent, client = await connect(pkg, agent_serving(pkg, session_prompt=prompt), client_handler)
    answer = await client.agent.session_prompt(prompt_params(pkg))
    assert answer.stop_reason.value == "end_turn"
    assert client.handler.of("session/request_permission")[0].tool_call.tool_call_id == "t1"


@requirement(
    "ACP-V1-PROMPT-TOOL-IN-PROGRESS",
    carried="the tool_call_update is carried; reporting it is the application's",
)
async def test_agent_reports_a_tool_call_in_progress(pkg: Any) -> None:
    """The library carries the tool_call_update with status in_progress; invoking the tool and
    reporting it is the agent application's part."""
    running = {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "in_progress"}
    agent, client = await turn_pair(pkg, Turn(pkg, [TOOL_CALL, running], wait=False))
    await client.agent.session_prompt(prompt_params(pkg))
    assert client.handler.updates() == [TOOL_CALL, running]


@requirement("ACP-V1-PROMPT-TOOL-UPDATES-MAY")
async def test_agent_may_stream_progress_of_a_running_tool(pkg: Any) -> None:
    progress = [
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "in_progress"},
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "content": [{"type": "content", "content": text("3 passed")}],
            "locations": [{"path": f"{CWD}/test_a.py", "line": 12}],
        },
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"},
    ]
    agent, client = await turn_pair(pkg, Turn(pkg, [TOOL_CALL, *progress], wait=False))
    await client.agent.session_prompt(prompt_params(pkg))
    assert client.handler.updates() == [TOOL_CALL, *progress]


@requirement("ACP-V1-PROMPT-TOOLS-MAY-USE-CLIENT-CAPABILITIES")
async def test_agent_may_read_client_files_while_a_tool_runs(pkg: Any) -> None:
    async def prompt(params: Any) -> Any:
        read = typed(pkg, "fs/read_text_file", {"sessionId": SESSION, "path": f"{CWD}/a.py"})
        content = (await agent.client.fs_read_text_file(read)).content
        await agent.client.session_update(
            update(pkg, chunk(f"a.py has {len(content.splitlines())} lines"))
        )
        return {"stopReason": "end_turn"}

    async def read_file(params: Any) -> Any:
        return {"content": "import os\nprint(os.getcwd())\n"}

    client_handler = client_serving(pkg, fs_read_text_file=read_file)
    agent, client = await connect(
        pkg,
        agent_serving(pkg, session_prompt=prompt),
        client_handler,
        client_capabilities={"fs": {"readTextFile": True}},
    )
    await client.agent.session_prompt(prompt_params(pkg))
    assert client.handler.updates()[0]["content"]["text"] == "a.py has 2 lines"


# --- cancellation ---------------------------------------------------------------------------------


@requirement("ACP-V1-PROMPT-CLIENT-CANCEL-MAY")
async def test_client_may_cancel_during_a_turn_or_when_idle(pkg: Any) -> None:
    turn = Turn(pkg)
    agent, client = await turn_pair(pkg, turn)
    await cancel(pkg, client)  # idle: nothing to cancel, still allowed
    running = asyncio.ensure_future(client.agent.session_prompt(prompt_params(pkg)))
    await turn.started.wait()
    await cancel(pkg, client)
    assert (await running).stop_reason.value == "cancelled"
    await eventually(
        lambda: len(agent.handler.of("session/cancel")) == 2,
        "the agent handler did not get both session/cancel notifications (idle and in a turn)",
    )


@requirement(
    "ACP-V1-PROMPT-CLIENT-MARK-CANCELLED",
    carried=(
        "session_cancel returns while the turn runs; marking tool calls cancelled is the"
        " application's"
    ),
)
async def test_the_client_learns_of_its_cancel_before_the_turn_ends(pkg: Any) -> None:
    """`session_cancel` returns as soon as the notification is written, while the turn is still
    running and its tool calls still open: the moment for the application to mark them
    cancelled (marking them is the client application's part)."""
    turn = Turn(pkg, [TOOL_CALL])
    release = asyncio.Event()

    async def slow_updates(params: Any) -> None:
        await release.wait()

    agent, client = await turn_pair(pkg, turn, client_serving(pkg, session_update=slow_updates))
    running = asyncio.ensure_future(client.agent.session_prompt(prompt_params(pkg)))
    await turn.started.wait()
    await cancel(pkg, client)
    assert not running.done()
    release.set()
    assert (await running).stop_reason.value == "cancelled"


@requirement("ACP-V1-PROMPT-CLIENT-RESPOND-PENDING-PERMISSIONS")
async def test_cancel_answers_the_pending_permission_requests_cancelled(pkg: Any) -> None:
    asked = asyncio.Event()

    async def ask_the_user(params: Any) -> Any:
        asked.set()
        await asyncio.Event().wait()  # the user never answers

    client, peer = await client_against_raw_agent(
        pkg, client=client_serving(pkg, session_request_permission=ask_the_user)
    )
    running = asyncio.ensure_future(client.agent.session_prompt(prompt_params(pkg)))
    assert (await peer.recv())["method"] == "session/prompt"
    for request_id in ("p1", "p2"):
        peer.send(
            {
                "jsonrpc": "2.0",
                "id": request_id,
                "method": "session/request_permission",
                "params": as_wire(pkg, permission(pkg)),
            }
        )
    await asked.wait()
    await cancel(pkg, client)
    seen = [await peer.recv() for _ in range(3)]
    assert seen[0]["method"] == "session/cancel"
    cancelled = {"outcome": {"outcome": "cancelled"}}
    assert sorted((m["id"], m["result"]) for m in seen[1:]) == [
        ("p1", cancelled),
        ("p2", cancelled),
    ]
    running.cancel()


@requirement("ACP-V1-PROMPT-CLIENT-RESPOND-PENDING-PERMISSIONS")
async def test_closing_the_session_also_answers_its_pending_permission_requests_cancelled(
    pkg: Any,
) -> None:
    asked = asyncio.Event()

    async def ask_the_user(params: Any) -> Any:
        asked.set()
        await asyncio.Event().wait()

    client, peer = await client_against_raw_agent(
        pkg,
        {"sessionCapabilities": {"close": {}}},
        client=client_serving(pkg, session_request_permission=ask_the_user),
    )
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": "p1",
            "method": "session/request_permission",
            "params": as_wire(pkg, permission(pkg)),
        }
    )
    await asked.wait()
    closing = asyncio.ensure_future(
        client.agent.session_close(typed(pkg, "session/close", {"sessionId": SESSION}))
    )
    close, answer = await peer.recv(), await peer.recv()
    assert close["method"] == "session/close"
    assert answer == {"jsonrpc": "2.0", "id": "p1", "result": {"outcome": {"outcome": "cancelled"}}}
    closing.cancel()


@requirement("ACP-V1-PROMPT-AGENT-STOP-ON-CANCEL")
async def test_cancel_reaches_the_running_turn_and_its_calls_to_the_client(pkg: Any) -> None:
    """The runtime cancels the prompt handler at once and, through it, the handler's own pending
    calls to the client (sent `$/cancel_request`); stopping model requests and tools is the agent
    application's part, in its handling of the cancellation."""
    reading = asyncio.Event()
    read_cancelled = asyncio.Event()

    async def prompt(params: Any) -> Any:
        read = typed(pkg, "fs/read_text_file", {"sessionId": SESSION, "path": f"{CWD}/big.log"})
        await agent.client.fs_read_text_file(read)
        return {"stopReason": "end_turn"}

    async def slow_read(params: Any) -> Any:
        reading.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            read_cancelled.set()
            raise

    client_handler = client_serving(pkg, fs_read_text_file=slow_read)
    agent, client = await connect(
        pkg,
        agent_serving(pkg, session_prompt=prompt),
        client_handler,
        client_capabilities={"fs": {"readTextFile": True}},
    )
    running = asyncio.ensure_future(client.agent.session_prompt(prompt_params(pkg)))
    await reading.wait()
    await cancel(pkg, client)
    assert (await running).stop_reason.value == "cancelled"
    await within(read_cancelled.wait(), "the client's fs read was not cancelled with the turn")


@requirement("ACP-V1-PROMPT-AGENT-CANCELLED-STOP-REASON")
async def test_a_cancelled_turn_is_answered_with_stop_reason_cancelled(pkg: Any) -> None:
    turn = Turn(pkg)
    agent, client = await turn_pair(pkg, turn)
    running = asyncio.ensure_future(client.agent.session_prompt(prompt_params(pkg)))
    await turn.started.wait()
    await cancel(pkg, client)
    assert (await running).stop_reason.value == "cancelled"
    assert turn.cancelled.is_set()


@requirement("ACP-V1-PROMPT-AGENT-CATCH-ABORT-ERRORS")
async def test_an_abort_error_after_cancel_still_answers_cancelled(pkg: Any) -> None:
    turn = Turn(pkg, on_cancel_raise=RuntimeError("model request aborted"))
    agent, client = await turn_pair(pkg, turn)
    running = asyncio.ensure_future(client.agent.session_prompt(prompt_params(pkg)))
    await turn.started.wait()
    await cancel(pkg, client)
    assert (await running).stop_reason.value == "cancelled"


LATE = [
    chunk("Stopping."),
    {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed"},
]


@requirement("ACP-V1-PROMPT-UPDATES-AFTER-CANCEL-MAY")
async def test_agent_may_send_updates_after_the_cancel(pkg: Any) -> None:
    turn = Turn(pkg, [TOOL_CALL], on_cancel=LATE)
    agent, client = await turn_pair(pkg, turn)
    running = asyncio.ensure_future(client.agent.session_prompt(prompt_params(pkg)))
    await turn.started.wait()
    await cancel(pkg, client)
    await running
    assert client.handler.updates() == [TOOL_CALL, *LATE]


@requirement("ACP-V1-PROMPT-UPDATES-BEFORE-RESPONSE")
async def test_updates_sent_while_cancelling_arrive_before_the_prompt_answer(pkg: Any) -> None:
    turn = Turn(pkg, on_cancel=LATE * 10)
    agent, peer = await raw_client(pkg, agent_serving(pkg, session_prompt=turn))
    turn.agent = agent
    await peer.call(1, "session/new", {"cwd": CWD, "mcpServers": []})
    peer.send({"jsonrpc": "2.0", "id": 2, "method": "session/prompt", "params": PROMPT})
    await turn.started.wait()
    peer.send({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SESSION}})
    seen = [await peer.recv() for _ in range(21)]
    assert [m.get("method") for m in seen[:20]] == ["session/update"] * 20
    assert seen[20] == {"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "cancelled"}}


@requirement("ACP-V1-PROMPT-CLIENT-ACCEPT-LATE-UPDATES")
async def test_client_still_takes_tool_call_updates_after_its_cancel(pkg: Any) -> None:
    turn = Turn(pkg, [TOOL_CALL], on_cancel=LATE)
    agent, client = await turn_pair(pkg, turn)
    running = asyncio.ensure_future(client.agent.session_prompt(prompt_params(pkg)))
    await turn.started.wait()
    await cancel(pkg, client)
    await running
    assert client.handler.updates()[-1] == LATE[-1]
    assert client.handler.of("session/update")[-1].update.status.value == "failed"
