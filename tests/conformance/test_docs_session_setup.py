"""docs/protocol/v1/session-setup.mdx: creating, loading, resuming and closing sessions; cwd,
additional roots and MCP servers."""

from __future__ import annotations

import asyncio
import os
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from acp_runtime import CapabilityError, NotInitializedError, ProtocolError, spawn_agent

from ..runtime.bounded import within
from .docs_peers import (
    CWD,
    SESSION,
    agent_serving,
    as_wire,
    chunk,
    client_against_raw_agent,
    client_serving,
    connect,
    goes_out,
    nothing_sent,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_agent,
    raw_client,
    typed,
    update,
)
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement

STDIO = {"name": "files", "command": "/usr/local/bin/mcp-files", "args": ["--root", CWD], "env": []}
HTTP = {"type": "http", "name": "web", "url": "https://mcp.example/web", "headers": []}
SSE = {"type": "sse", "name": "feed", "url": "https://mcp.example/feed", "headers": []}
LOAD = {"sessionId": SESSION, "cwd": CWD, "mcpServers": []}
RESUME = {"sessionId": SESSION, "cwd": CWD}
ONE_CONNECTION = (
    "unique among the sessions this connection knows; across connections the application's"
)


async def next_request(peer: Any) -> dict[str, Any]:
    return await within(peer.recv(), "the client sent no request")


# --- initialization first -------------------------------------------------------------------------


@requirement("ACP-V1-SETUP-INIT-BEFORE-SESSION")
async def test_client_refuses_to_create_a_session_before_initialize(pkg: Any) -> None:
    client, peer = raw_agent(pkg)
    await refused(
        peer,
        client.agent.session_new(typed(pkg, "session/new", {"cwd": CWD, "mcpServers": []})),
        NotInitializedError,
    )


@requirement("ACP-V1-SETUP-INIT-BEFORE-SESSION")
async def test_agent_refuses_session_new_before_initialize(pkg: Any) -> None:
    agent, peer = await raw_client(pkg, initialize=False)
    reply = await peer.call(1, "session/new", {"cwd": CWD, "mcpServers": []})
    assert reply["error"]["code"] == -32600
    assert agent.handler.of("session/new") == []


# --- session/new ----------------------------------------------------------------------------------


@requirement("ACP-V1-SETUP-NEW-SESSION-ID")
async def test_new_session_answer_always_carries_a_session_id(pkg: Any) -> None:
    async def no_answer(params: Any) -> Any:
        return None

    agent, peer = await raw_client(pkg, agent_serving(pkg, session_new=no_answer))
    reply = await peer.call(1, "session/new", {"cwd": CWD, "mcpServers": []})
    assert reply["error"]["code"] == -32603  # never a session/new answer without a sessionId
    agent, client = await connect(pkg, session=False)
    answer = await client.agent.session_new(
        typed(pkg, "session/new", {"cwd": CWD, "mcpServers": []})
    )
    assert answer.session_id == "s1"


@requirement("ACP-V1-SETUP-NEW-SESSION-ID", note=ONE_CONNECTION)
async def test_agent_refuses_to_answer_a_session_id_twice(pkg: Any) -> None:
    async def always_s1(params: Any) -> Any:
        return {"sessionId": "s1"}

    agent, client = await connect(pkg, agent_serving(pkg, session_new=always_s1))  # s1 set up
    with pytest.raises(pkg.RpcError) as raised:
        await client.agent.session_new(typed(pkg, "session/new", {"cwd": CWD, "mcpServers": []}))
    assert raised.value.code == -32603
    assert list(client.sessions) == ["s1"]


FORKS = {"loadSession": True, "sessionCapabilities": {"fork": {}, "list": {}}}


@pytest.fixture(params=["acp_v1_unstable", "acp_default"])
def forking(request: pytest.FixtureRequest) -> Any:
    """A package with session/fork: the unstable v1 one, then the committed default."""
    return request.getfixturevalue(request.param)


async def fork_answering(pkg: Any, fork_id: str) -> Any:
    """A raw client facing an agent whose session/fork handler answers `fork_id`; session s1 is
    created, x9 loaded and x7 listed before any fork."""

    async def fork(params: Any) -> Any:
        return {"sessionId": fork_id}

    async def listed(params: Any) -> Any:
        return {"sessions": [{"sessionId": "x7", "cwd": CWD}]}

    agent, peer = await raw_client(
        pkg,
        agent_serving(
            pkg, FORKS, session_fork=fork, session_load=lambda p: _empty(), session_list=listed
        ),
    )
    assert "result" in await peer.call(1, "session/new", {"cwd": CWD, "mcpServers": []})
    assert "result" in await peer.call(
        2, "session/load", {"sessionId": "x9", "cwd": CWD, "mcpServers": []}
    )
    assert "result" in await peer.call(3, "session/list", {})
    return agent, peer


async def _empty() -> Any:
    return {}


@requirement("ACP-V1-SETUP-NEW-SESSION-ID", note=ONE_CONNECTION)
async def test_a_forked_session_gets_an_id_of_its_own(forking: Any) -> None:
    agent, peer = await fork_answering(forking, "f1")
    reply = await peer.call(4, "session/fork", {"sessionId": "s1", "cwd": CWD})
    assert reply["result"] == {"sessionId": "f1"}
    assert "error" in await peer.call(
        5, "session/fork", {"sessionId": "f1", "cwd": CWD}
    )  # f1 again


@requirement("ACP-V1-SETUP-NEW-SESSION-ID", note=ONE_CONNECTION)
@pytest.mark.parametrize("reused", ["s1", "x9", "x7"], ids=["created", "loaded", "listed"])
async def test_agent_refuses_a_fork_answering_the_id_of_a_known_session(
    forking: Any, reused: str
) -> None:
    agent, peer = await fork_answering(forking, reused)
    for n, source in enumerate(
        ["s1", "x9"]
    ):  # reused is then the forked session itself, or another
        reply = await peer.call(10 + n, "session/fork", {"sessionId": source, "cwd": CWD})
        assert reply["error"]["code"] == -32603, reply


@requirement("ACP-V1-SETUP-NEW-SESSION-ID", note=ONE_CONNECTION)
@pytest.mark.parametrize("reused", ["x9", "x7"], ids=["loaded", "listed"])
async def test_agent_refuses_a_new_session_answering_the_id_of_a_loaded_or_listed_one(
    forking: Any, reused: str
) -> None:
    agent, peer = await fork_answering(forking, "f1")
    agent.handler.serves["session/new"] = lambda params: _answer(reused)
    reply = await peer.call(4, "session/new", {"cwd": CWD, "mcpServers": []})
    assert reply["error"]["code"] == -32603, reply


async def _answer(session_id: str) -> Any:
    return {"sessionId": session_id}


# --- session/load ---------------------------------------------------------------------------------


@requirement(
    "ACP-V1-SETUP-CLIENT-CHECK-LOADSESSION", "ACP-V1-SETUP-CLIENT-NO-LOAD-WITHOUT-CAPABILITY"
)
@pytest.mark.parametrize("advertised", ["omitted", False])
async def test_client_never_loads_a_session_without_load_session(pkg: Any, advertised: Any) -> None:
    capabilities = {} if advertised == "omitted" else {"loadSession": advertised}
    client, peer = await client_against_raw_agent(pkg, capabilities)
    await refused(
        peer,
        client.agent.session_load(typed(pkg, "session/load", LOAD)),
        CapabilityError,
        "loadSession",
    )


@requirement("ACP-V1-SETUP-CLIENT-CHECK-LOADSESSION")
async def test_client_loads_a_session_once_load_session_is_advertised(pkg: Any) -> None:
    client, peer = await client_against_raw_agent(pkg, {"loadSession": True})
    assert await goes_out(client, peer, "session/load", typed(pkg, "session/load", LOAD))


@requirement("ACP-V1-SETUP-LOAD-REQUEST-CONTENTS")
async def test_load_request_carries_session_id_mcp_servers_and_cwd(pkg: Any) -> None:
    client, peer = await client_against_raw_agent(pkg, {"loadSession": True})
    call = asyncio.ensure_future(client.agent.session_load(typed(pkg, "session/load", LOAD)))
    request = await next_request(peer)
    assert request["params"] == {"sessionId": SESSION, "cwd": CWD, "mcpServers": []}
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
    await call
    with pytest.raises(TypeError):  # the typed request cannot be built without them
        pkg.METHODS["session/load"].params(session_id=SESSION, cwd=CWD)


@requirement(
    "ACP-V1-SETUP-LOAD-REPLAY",
    carried=(
        "a session/load handler can stream session/update; keeping and replaying history is the"
        " application's"
    ),
)
async def test_agent_replays_the_conversation_as_session_updates_during_load(pkg: Any) -> None:
    """The library lets a session/load handler stream the history as session/update
    notifications; keeping and replaying the history is the agent application's part."""
    history = [
        chunk("what is in a.py?", "user_message_chunk"),
        chunk("a.py defines main()", "agent_message_chunk"),
        {
            "sessionUpdate": "tool_call",
            "toolCallId": "t1",
            "title": "Read a.py",
            "status": "completed",
        },
    ]

    async def load(params: Any) -> Any:
        for entry in history:
            await agent.client.session_update(update(pkg, entry, params.session_id))
        return {}

    agent, client = await connect(
        pkg, agent_serving(pkg, {"loadSession": True}, session_load=load), session=False
    )
    await client.agent.session_load(typed(pkg, "session/load", LOAD))
    assert [u["sessionUpdate"] for u in client.handler.updates()] == [
        e["sessionUpdate"] for e in history
    ]
    assert client.handler.updates()[1]["content"]["text"] == "a.py defines main()"


@requirement("ACP-V1-SETUP-LOAD-RESPOND-AFTER-REPLAY")
async def test_load_answer_goes_out_after_every_replayed_update(pkg: Any) -> None:
    """Updates a session/load handler sends before it returns are written before its answer;
    replaying before answering is the agent application's part."""

    async def load(params: Any) -> Any:
        for n in range(3):
            await agent.client.session_update(update(pkg, chunk(f"entry {n}"), params.session_id))
        return {}

    agent, peer = await raw_client(
        pkg, agent_serving(pkg, {"loadSession": True}, session_load=load)
    )
    peer.send({"jsonrpc": "2.0", "id": 1, "method": "session/load", "params": LOAD})
    seen = [await next_request(peer) for _ in range(4)]
    assert [m.get("method") for m in seen] == ["session/update"] * 3 + [None]
    assert seen[3] == {"jsonrpc": "2.0", "id": 1, "result": {}}


@requirement("ACP-V1-SETUP-LOAD-RESPOND-AFTER-REPLAY")
async def test_load_returns_only_after_the_client_handled_every_update_sent_before_the_answer(
    pkg: Any,
) -> None:
    """The answer arrives while the client's handler is still busy with the first replayed update:
    session/load must not return until every update that arrived before the answer is handled."""
    held = asyncio.Event()
    handled: list[str] = []

    async def slow_update(params: Any) -> None:
        await held.wait()
        handled.append(as_wire(pkg, params)["update"]["content"]["text"])

    client, peer = await client_against_raw_agent(
        pkg,
        {"loadSession": True},
        session=False,
        client=client_serving(pkg, session_update=slow_update),
    )
    call = asyncio.ensure_future(client.agent.session_load(typed(pkg, "session/load", LOAD)))
    request = await next_request(peer)
    for n in range(3):
        notification = as_wire(pkg, update(pkg, chunk(f"entry {n}")))
        peer.send({"jsonrpc": "2.0", "method": "session/update", "params": notification})
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
    assert await nothing_sent(peer)  # a round trip: the client has read the answer by now
    assert not call.done()
    when_answered: list[list[str]] = []
    call.add_done_callback(lambda _: when_answered.append(list(handled)))
    held.set()
    await call
    assert when_answered == [["entry 0", "entry 1", "entry 2"]]


# --- session/resume -------------------------------------------------------------------------------


@requirement("ACP-V1-SETUP-CLIENT-CHECK-RESUME", "ACP-V1-SETUP-CLIENT-NO-RESUME-WITHOUT-CAPABILITY")
@pytest.mark.parametrize("advertised", ["omitted", None])
async def test_client_never_resumes_a_session_without_the_resume_capability(
    pkg: Any, advertised: Any
) -> None:
    capabilities = (
        {} if advertised == "omitted" else {"sessionCapabilities": {"resume": advertised}}
    )
    client, peer = await client_against_raw_agent(pkg, capabilities)
    await refused(
        peer,
        client.agent.session_resume(typed(pkg, "session/resume", RESUME)),
        CapabilityError,
        "sessionCapabilities.resume",
    )


@requirement("ACP-V1-SETUP-CLIENT-CHECK-RESUME")
async def test_client_resumes_a_session_once_resume_is_advertised(pkg: Any) -> None:
    client, peer = await client_against_raw_agent(pkg, {"sessionCapabilities": {"resume": {}}})
    assert await goes_out(client, peer, "session/resume", typed(pkg, "session/resume", RESUME))


@requirement("ACP-V1-SETUP-RESUME-REQUEST-CONTENTS")
async def test_resume_request_carries_session_id_mcp_servers_and_cwd(pkg: Any) -> None:
    client, peer = await client_against_raw_agent(pkg, {"sessionCapabilities": {"resume": {}}})
    params = {**RESUME, "mcpServers": [STDIO]}
    call = asyncio.ensure_future(client.agent.session_resume(typed(pkg, "session/resume", params)))
    request = await next_request(peer)
    assert request["params"] == params
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
    await call


def replaying_resume(pkg: Any, refused: list[Exception]) -> tuple[Any, dict[str, Any]]:
    """A session/resume handler that sends a history chunk, keeping the refusal in `refused`; it
    sends through the agent connection put in the dict it returns (under "agent")."""
    peer: dict[str, Any] = {}

    async def resume(params: Any) -> Any:
        client = peer["agent"].client
        try:
            await client.session_update(update(pkg, chunk("old answer"), params.session_id))
        except ProtocolError as err:
            refused.append(err)
        return {}

    return resume, peer


@requirement("ACP-V1-SETUP-RESUME-NO-REPLAY")
async def test_agent_cannot_replay_history_while_resuming(pkg: Any) -> None:
    """The runtime refuses (ProtocolError, nothing sent) a history session/update (message
    chunks, tool calls) for a session while its session/resume is being served; restoring the
    session without replaying it is the agent application's part."""
    refused: list[Exception] = []
    resume, peer = replaying_resume(pkg, refused)
    capabilities = {"sessionCapabilities": {"resume": {}}}
    agent, client = await connect(
        pkg, agent_serving(pkg, capabilities, session_resume=resume), session=False
    )
    peer["agent"] = agent
    await client.agent.session_resume(typed(pkg, "session/resume", RESUME))
    assert len(refused) == 1 and "resumed" in str(refused[0])
    assert client.handler.updates() == []


@requirement("ACP-V1-SETUP-RESUME-NO-REPLAY")
async def test_agent_cannot_replay_history_while_resuming_after_updates_went_out(pkg: Any) -> None:
    """The same refusal when session/update already went out before the first session/resume
    came (the agent's checks of session/update are worked out at its first send, without the
    history check while no resume came; the first resume brings it in)."""
    refused: list[Exception] = []
    resume, peer = replaying_resume(pkg, refused)
    capabilities = {"sessionCapabilities": {"resume": {}}}
    agent, client = await connect(pkg, agent_serving(pkg, capabilities, session_resume=resume))
    peer["agent"] = agent
    await agent.client.session_update(update(pkg, chunk("before")))
    await client.agent.session_resume(typed(pkg, "session/resume", RESUME))
    assert len(refused) == 1 and "resumed" in str(refused[0])
    assert [u["content"]["text"] for u in client.handler.updates()] == ["before"]


@requirement("ACP-V1-SETUP-RESUME-NO-REPLAY")
async def test_agent_streams_history_again_once_the_resume_is_answered(pkg: Any) -> None:
    capabilities = {"sessionCapabilities": {"resume": {}}}
    agent, client = await connect(
        pkg, agent_serving(pkg, capabilities, session_resume={}), session=False
    )
    await client.agent.session_resume(typed(pkg, "session/resume", RESUME))
    await agent.client.session_update(update(pkg, chunk("new answer")))
    await client.request("session/resume", typed(pkg, "session/resume", RESUME))  # a round trip
    assert [u["content"]["text"] for u in client.handler.updates()] == ["new answer"]


@requirement("ACP-V1-SETUP-RESUME-RESPONSE-STATE-MAY")
async def test_resume_answer_may_carry_modes_and_config_options(pkg: Any) -> None:
    state = {
        "modes": {"currentModeId": "ask", "availableModes": [{"id": "ask", "name": "Ask"}]},
        "configOptions": [
            {
                "type": "select",
                "id": "model",
                "name": "Model",
                "currentValue": "fast",
                "options": [{"value": "fast", "name": "Fast"}],
            }
        ],
    }
    capabilities = {"sessionCapabilities": {"resume": {}}}
    agent, client = await connect(
        pkg, agent_serving(pkg, capabilities, session_resume=state), session=False
    )
    answer = await client.agent.session_resume(typed(pkg, "session/resume", RESUME))
    assert as_wire(pkg, answer) == state


# --- session/close --------------------------------------------------------------------------------


@requirement("ACP-V1-SETUP-CLIENT-CHECK-CLOSE", "ACP-V1-SETUP-CLIENT-NO-CLOSE-WITHOUT-CAPABILITY")
@pytest.mark.parametrize("advertised", ["omitted", None])
async def test_client_never_closes_a_session_without_the_close_capability(
    pkg: Any, advertised: Any
) -> None:
    capabilities = {} if advertised == "omitted" else {"sessionCapabilities": {"close": advertised}}
    client, peer = await client_against_raw_agent(pkg, capabilities)
    await refused(
        peer,
        client.agent.session_close(typed(pkg, "session/close", {"sessionId": SESSION})),
        CapabilityError,
        "sessionCapabilities.close",
    )


@requirement("ACP-V1-SETUP-CLIENT-CHECK-CLOSE")
async def test_client_closes_a_session_once_close_is_advertised(pkg: Any) -> None:
    client, peer = await client_against_raw_agent(pkg, {"sessionCapabilities": {"close": {}}})
    assert await goes_out(
        client, peer, "session/close", typed(pkg, "session/close", {"sessionId": SESSION})
    )


@requirement("ACP-V1-SETUP-CLOSE-REQUEST")
async def test_close_request_names_the_session_which_then_takes_no_prompt(pkg: Any) -> None:
    client, peer = await client_against_raw_agent(pkg, {"sessionCapabilities": {"close": {}}})
    call = asyncio.ensure_future(
        client.agent.session_close(typed(pkg, "session/close", {"sessionId": SESSION}))
    )
    request = await next_request(peer)
    assert (request["method"], request["params"]) == ("session/close", {"sessionId": SESSION})
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
    await call
    await refused(
        peer,
        client.agent.session_prompt(
            typed(pkg, "session/prompt", {"sessionId": SESSION, "prompt": []})
        ),
        ProtocolError,
        "not set up",
    )


@requirement("ACP-V1-SETUP-CLOSE-CANCELS-AND-FREES")
async def test_closing_a_session_cancels_its_running_prompt(pkg: Any) -> None:
    """The runtime cancels the session's running session/prompt as session/cancel does (answered
    `cancelled`) before the close handler runs; freeing the session's resources is the agent
    application's part, in its session/close handler."""
    started = asyncio.Event()
    events: list[str] = []

    async def prompt(params: Any) -> Any:
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            events.append("prompt cancelled")
            raise
        return {"stopReason": "end_turn"}

    async def close(params: Any) -> Any:
        events.append("close handler")
        return {}

    capabilities = {"sessionCapabilities": {"close": {}}}
    agent, client = await connect(
        pkg, agent_serving(pkg, capabilities, session_prompt=prompt, session_close=close)
    )
    turn = asyncio.ensure_future(
        client.agent.session_prompt(
            typed(pkg, "session/prompt", {"sessionId": SESSION, "prompt": []})
        )
    )
    await within(started.wait(), "the prompt never reached the agent")
    await client.agent.session_close(typed(pkg, "session/close", {"sessionId": SESSION}))
    answer = await within(turn, "turn not cancelled by session/close: the prompt is unanswered")
    assert answer.stop_reason.value == "cancelled"
    assert events == ["prompt cancelled", "close handler"]


@requirement("ACP-V1-SETUP-CLOSE-MAY-ERROR")
async def test_agent_may_answer_close_of_an_unknown_session_with_an_error(pkg: Any) -> None:
    async def close(params: Any) -> Any:
        raise pkg.error_for(
            -32602, "Invalid params", {"message": f"no active session {params.session_id}"}
        )

    capabilities = {"sessionCapabilities": {"close": {}}}
    agent, client = await connect(pkg, agent_serving(pkg, capabilities, session_close=close))
    with pytest.raises(pkg.RpcError) as raised:
        await client.agent.session_close(typed(pkg, "session/close", {"sessionId": "gone"}))
    assert (raised.value.code, raised.value.data) == (-32602, {"message": "no active session gone"})


# --- working directory and additional roots -------------------------------------------------------

ROOTS = {"sessionCapabilities": {"additionalDirectories": {}, "resume": {}}, "loadSession": True}


@requirement("ACP-V1-SETUP-ADDITIONAL-DIRS-ABSOLUTE")
@pytest.mark.parametrize("method", ["session/new", "session/load", "session/resume"])
async def test_client_refuses_a_relative_additional_directory(pkg: Any, method: str) -> None:
    client, peer = await client_against_raw_agent(pkg, ROOTS)
    params = {**LOAD, "additionalDirectories": ["/work/lib", "docs"]}
    if method == "session/new":
        del params["sessionId"]
    await refused(
        peer, client.request(method, typed(pkg, method, params)), CapabilityError, "absolute"
    )


@requirement("ACP-V1-SETUP-CLIENT-ADDITIONAL-DIRS-ONLY-WITH-CAPABILITY")
async def test_client_sends_additional_directories_only_when_advertised(pkg: Any) -> None:
    params = typed(
        pkg, "session/new", {"cwd": CWD, "mcpServers": [], "additionalDirectories": ["/work/lib"]}
    )
    client, peer = await client_against_raw_agent(pkg, {})
    assert not await goes_out(client, peer, "session/new", params)
    client, peer = await client_against_raw_agent(pkg, ROOTS)
    assert await goes_out(client, peer, "session/new", params)


@requirement("ACP-V1-SETUP-CWD-ABSOLUTE")
@pytest.mark.parametrize(
    "method", ["session/new", "session/load", "session/resume", "session/list"]
)
async def test_client_refuses_a_relative_cwd(pkg: Any, method: str) -> None:
    capabilities = {**ROOTS, "sessionCapabilities": {"resume": {}, "list": {}}}
    client, peer = await client_against_raw_agent(pkg, capabilities)
    params = {
        "session/new": {"cwd": "project", "mcpServers": []},
        "session/list": {"cwd": "./project"},
    }.get(method, {**LOAD, "cwd": "project"})
    await refused(
        peer, client.request(method, typed(pkg, method, params)), CapabilityError, "absolute"
    )


AGENT_IN_OTHER_DIR = """
import os, sys
from acp_runtime import run_agent
import {package} as acp

class Agent:
    def __init__(self, conn):
        pass

    async def session_new(self, params):
        meta = {{"cwd": params.cwd, "process": os.getcwd()}}
        return acp.decode(acp.encode({{"sessionId": "s1", "_meta": meta}}), acp.NewSessionResponse)

run_agent(Agent, schema=acp)
"""


@requirement(
    "ACP-V1-SETUP-CWD-USED-REGARDLESS-OF-SPAWN",
    carried=(
        "cwd reaches the handler untouched and the runtime never changes directory; using it is the"
        " application's"
    ),
)
async def test_agent_process_gets_the_session_cwd_wherever_it_was_spawned(
    acp_v1: Any, tmp_path: Path
) -> None:
    """Over real pipes to a child process started in another directory, the session/new handler
    gets the client's cwd untouched and the runtime never changes the process's directory; using
    it for the session is the agent application's part."""
    script = tmp_path / "agent.py"
    script.write_text(textwrap.dedent(AGENT_IN_OTHER_DIR.format(package=acp_v1.__name__)))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path(acp_v1.__file__).parents[1]), *sys.path]),
    }
    async with spawn_agent(
        client_serving(acp_v1),
        sys.executable,
        str(script),
        env=env,
        cwd=str(tmp_path),
        schema=acp_v1,
    ) as client:
        await client.agent.initialize(typed(acp_v1, "initialize", {"protocolVersion": 1}))
        answer = await client.agent.session_new(
            typed(acp_v1, "session/new", {"cwd": CWD, "mcpServers": []})
        )
    assert answer.meta == {"cwd": CWD, "process": str(tmp_path)}


@requirement("ACP-V1-SETUP-CWD-RELATIVE-BASE")
async def test_agent_resolves_relative_paths_against_the_session_cwd_before_calling(
    pkg: Any,
) -> None:
    """A relative path never crosses the wire (the runtime refuses it, so it cannot be resolved
    against the wrong directory); joining it to the session's cwd is the agent application's
    part, shown here."""
    agent, peer = await raw_client(pkg, client_capabilities={"fs": {"readTextFile": True}})
    await refused(
        peer,
        agent.client.fs_read_text_file(
            typed(pkg, "fs/read_text_file", {"sessionId": SESSION, "path": "src/a.py"})
        ),
        CapabilityError,
        "absolute",
    )
    resolved = os.path.join(CWD, "src/a.py")
    params = typed(pkg, "fs/read_text_file", {"sessionId": SESSION, "path": resolved})
    assert await goes_out(agent, peer, "fs/read_text_file", params)


@requirement(
    "ACP-V1-SETUP-CWD-IN-ROOT-SET",
    carried=(
        "cwd and additionalDirectories reach the agent exactly, in order; the runtime has no"
        " root-set concept, building it is the application's"
    ),
)
async def test_agent_gets_the_cwd_and_every_additional_root_in_order(pkg: Any) -> None:
    """The runtime delivers cwd and additionalDirectories exactly, in order, for the agent to
    build the session's root set; making cwd part of it is the agent application's part."""
    agent, client = await connect(pkg, agent_serving(pkg, ROOTS), session=False)
    roots = ["/work/lib", "/srv/shared", "/work/docs"]
    await client.agent.session_new(
        typed(pkg, "session/new", {"cwd": CWD, "mcpServers": [], "additionalDirectories": roots})
    )
    (params,) = agent.handler.of("session/new")
    assert (params.cwd, params.additional_directories) == (CWD, roots)


@requirement("ACP-V1-SETUP-ADDITIONAL-DIRS-FULL-LIST-ON-LOAD")
@pytest.mark.parametrize("method", ["session/load", "session/resume"])
async def test_load_and_resume_send_exactly_the_roots_given_never_stored_ones(
    pkg: Any, method: str
) -> None:
    agent, client = await connect(
        pkg, agent_serving(pkg, ROOTS, session_load={}, session_resume={}), session=False
    )
    params = {"cwd": CWD, "mcpServers": []}
    await client.agent.session_new(
        typed(pkg, "session/new", {**params, "additionalDirectories": ["/a", "/b"]})
    )
    for roots in (["/c"], [], None):
        sent = {
            **params,
            "sessionId": "s1",
            **({} if roots is None else {"additionalDirectories": roots}),
        }
        await client.request(method, typed(pkg, method, sent))
        assert (agent.handler.of(method)[-1].additional_directories or []) == (roots or [])


# --- MCP servers ----------------------------------------------------------------------------------


@requirement("ACP-V1-SETUP-CLIENT-MCP-SERVERS-MAY")
async def test_client_may_pass_mcp_servers_to_a_new_session(pkg: Any) -> None:
    capabilities = {"mcpCapabilities": {"http": True, "sse": True}}
    agent, client = await connect(pkg, agent_serving(pkg, capabilities), session=False)
    servers = [STDIO, HTTP, SSE]
    await client.agent.session_new(typed(pkg, "session/new", {"cwd": CWD, "mcpServers": servers}))
    (params,) = agent.handler.of("session/new")
    assert as_wire(pkg, params)["mcpServers"] == servers


@requirement(
    "ACP-V1-SETUP-AGENT-MCP-STDIO",
    carried=(
        "stdio MCP servers are accepted without any capability and delivered typed; connecting to"
        " them is the application's"
    ),
)
async def test_stdio_mcp_servers_pass_without_any_mcp_capability(pkg: Any) -> None:
    """The runtime accepts and exposes stdio MCP server configurations unconditionally (typed,
    with command, args and env); connecting to them is the agent application's part."""
    agent, client = await connect(pkg, agent_serving(pkg, {}), session=False)
    server = {**STDIO, "env": [{"name": "TOKEN", "value": "x"}]}
    await client.agent.session_new(typed(pkg, "session/new", {"cwd": CWD, "mcpServers": [server]}))
    (params,) = agent.handler.of("session/new")
    (stdio,) = params.mcp_servers
    assert (stdio.command, stdio.args, stdio.env[0].name) == (
        STDIO["command"],
        STDIO["args"],
        "TOKEN",
    )


@requirement("ACP-V1-SETUP-CLIENT-CHECK-MCP-TRANSPORT")
@pytest.mark.parametrize("server", [HTTP, SSE], ids=["http", "sse"])
async def test_client_uses_http_and_sse_mcp_servers_only_when_advertised(
    pkg: Any, server: dict[str, Any]
) -> None:
    params = typed(pkg, "session/new", {"cwd": CWD, "mcpServers": [server]})
    client, peer = await client_against_raw_agent(pkg, {"mcpCapabilities": {server["type"]: False}})
    assert not await goes_out(client, peer, "session/new", params)
    client, peer = await client_against_raw_agent(pkg, {"mcpCapabilities": {server["type"]: True}})
    assert await goes_out(client, peer, "session/new", params)
