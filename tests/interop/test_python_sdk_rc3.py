"""Interop with the official Python SDK 1.0.0rc3 (PyPI agent-client-protocol, pinned in
tests/interop/requirements-rc3.txt, run from its own venv: rc3.py), over real pipes, both
directions, on v1 and on v2 through its protocol router (`AgentProtocolRouter`). Unlike 0.12.1 it
implements `$/cancel_request`, so every run has that step. Where it and the spec disagree
(docs/runtime.md, "Where the official SDKs and the spec differ"), what it really sends is tested
here too."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import acp_schema as acp
import acp_schema_v2 as acp2
from acp_runtime import spawn_agent
from acp_runtime.versions import ClientRoute, ClientVersions

from .rc3 import rc3_peer
from .scenario import HERE, PYTHON, ScenarioClient, expected, run_scenario
from .scenario_v2 import ScenarioClientV2, expected_v2, run_scenario_v2

RC3_AGENT = "python-sdk-rc3-agent"
OUR_AGENT = "acp-runtime-interop-agent"
CLIENT = str(HERE.parents[1] / "examples" / "client.py")
OUR_AGENT_V1_V2 = [PYTHON, str(HERE / "runtime_agent_v2.py")]


def rc3_client(version: int, path: str, agent: list[str]) -> Any:
    command = rc3_peer("rc3_client.py", str(version), path, *agent)
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def our_example_client(version: int, agent: list[str]) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, CLIENT, "--protocol-version", str(version), "--prompt", "hi there"]
    return subprocess.run([*command, "--", *agent], capture_output=True, text=True, timeout=60)


# --- v1 ---


async def test_our_client_drives_the_rc3_agent_on_v1(tmp_path) -> None:
    path = str(tmp_path / "file.txt")
    report = await run_scenario(rc3_peer("rc3_agent.py"), path)  # behind its router, asking 1
    assert report == expected(RC3_AGENT, path)


def test_the_rc3_client_drives_our_agent_on_v1(tmp_path) -> None:
    path = str(tmp_path / "file.txt")
    assert rc3_client(1, path, OUR_AGENT_V1_V2) == expected(OUR_AGENT, path)


# --- v2, and the choice between the versions ---


async def test_our_v2_client_drives_the_rc3_router_on_v2() -> None:
    agent = rc3_peer("rc3_agent.py")
    async with spawn_agent(ScenarioClientV2(), *agent, schema=acp2, protocol_versions=(2,)) as conn:
        report = await run_scenario_v2(conn)
    assert report == expected_v2(RC3_AGENT)


def test_the_rc3_v2_client_drives_our_agent_on_v2(tmp_path) -> None:
    assert rc3_client(2, str(tmp_path / "f"), OUR_AGENT_V1_V2) == expected_v2(OUR_AGENT)


async def test_our_client_asking_v2_takes_v1_from_the_rc3_router_without_its_v2() -> None:
    # (asking 2 from the router serving both, it gets 2: test_our_v2_client_drives_the_rc3_router)
    routes = ClientRoute(1, acp, ScenarioClient()), ClientRoute(2, acp2, ScenarioClientV2())
    async with ClientVersions(*routes).spawn(*rc3_peer("rc3_agent.py", "--versions", "1")) as conn:
        init = {"protocolVersion": 2, "info": {"name": "t", "version": "1"}, "capabilities": {}}
        answer = await conn.request("initialize", init)
        assert answer.protocol_version == 1 and conn.schema is acp
        session = await conn.agent.session_new(acp.NewSessionRequest(cwd="/tmp", mcp_servers=[]))
        assert session.session_id == "rc3-session"


def test_the_rc3_router_refuses_an_older_version_instead_of_answering_its_latest() -> None:
    # The spec: an agent that does not speak the requested version answers the latest it speaks.
    # The rc3 router, serving only v2, refuses a client asking for 1 with -32600 instead; our
    # client shows that error (it would have closed on the answer 2 all the same, speaking v1).
    result = our_example_client(1, rc3_peer("rc3_agent.py", "--versions", "2"))
    assert result.returncode == 1 and result.stdout == ""
    assert result.stderr.startswith("error: the agent answered -32600: Invalid request")
    assert "Unsupported ACP protocol 1" in result.stderr


# --- an agent written as the SDK's examples/echo_agent.py ---


def test_an_agent_echoing_the_asked_version_fails_our_v2_client_clearly() -> None:
    # It answers initialize with the version it was asked for (2), in v1's shape: our client takes
    # the answer at its word and refuses it as v2, naming what is missing (asked for 1, all is well:
    # the next test).
    agent = rc3_peer("rc3_agent.py", "--example")
    v2 = our_example_client(2, agent)
    assert v2.returncode == 1, v2.stdout
    assert v2.stderr == (
        "error: the initialize result does not fit protocol version 2: "
        "Object missing required field `info`\n"
    )


async def test_an_agent_written_as_the_examples_answers_unknown_extensions_with_null() -> None:
    # The spec: an unknown extension method is answered "Method not found" (-32601). An agent
    # inheriting `acp.Agent`'s bodiless `ext_method` (as the SDK's examples do) answers result null.
    # Our client accepts that (an extension's result is any JSON), and the session works on.
    client = ScenarioClient()
    async with spawn_agent(client, *rc3_peer("rc3_agent.py", "--example")) as conn:
        await conn.agent.initialize(acp.InitializeRequest(protocol_version=1))
        assert await conn.request("_interop/unknown", {"n": 1}) is None
        session = await conn.agent.session_new(acp.NewSessionRequest(cwd="/tmp", mcp_servers=[]))
        prompt = [acp.TextContent(text="still here")]
        answer = await conn.agent.session_prompt(
            acp.PromptRequest(session_id=session.session_id, prompt=prompt)
        )
        assert answer.stop_reason == acp.StopReason.END_TURN and client.chunks == ["still here"]
