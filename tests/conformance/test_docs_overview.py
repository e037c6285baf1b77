"""docs/protocol/v1/overview.mdx: every file path in the protocol is absolute."""

from __future__ import annotations

from typing import Any

import pytest

from acp_runtime import CapabilityError

from .docs_peers import (
    CWD,
    SESSION,
    agent_serving,
    client_against_raw_agent,
    goes_out,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_client,
    typed,
)
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement

AGENT_CAN_DO_EVERYTHING = {
    "loadSession": True,
    "sessionCapabilities": {"list": {}, "resume": {}, "additionalDirectories": {}},
}
CLIENT_CAN_DO_EVERYTHING = {"fs": {"readTextFile": True, "writeTextFile": True}, "terminal": True}


def stdio_server(command: str) -> dict[str, Any]:
    return {"name": "files", "command": command, "args": [], "env": []}


def tool_call(**fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Edit", **fields}


# (method, params with a relative path); the client sends the first ones, the agent the others
CLIENT_PATHS = {
    "new cwd": ("session/new", {"cwd": "project", "mcpServers": []}),
    "new additionalDirectories": (
        "session/new",
        {"cwd": CWD, "mcpServers": [], "additionalDirectories": ["lib"]},
    ),
    "MCP server command": ("session/new", {"cwd": CWD, "mcpServers": [stdio_server("bin/mcp")]}),
    "load cwd": ("session/load", {"sessionId": SESSION, "cwd": ".", "mcpServers": []}),
    "resume cwd": ("session/resume", {"sessionId": SESSION, "cwd": "../project"}),
    "list cwd": ("session/list", {"cwd": "project"}),
}
AGENT_PATHS = {
    "read path": ("fs/read_text_file", {"sessionId": SESSION, "path": "a.py"}),
    "write path": ("fs/write_text_file", {"sessionId": SESSION, "path": "./a.py", "content": ""}),
    "terminal cwd": ("terminal/create", {"sessionId": SESSION, "command": "ls", "cwd": "src"}),
    "tool location": (
        "session/update",
        {"sessionId": SESSION, "update": tool_call(locations=[{"path": "src/a.py"}])},
    ),
    "diff path": (
        "session/update",
        {
            "sessionId": SESSION,
            "update": tool_call(content=[{"type": "diff", "path": "a.py", "newText": "x"}]),
        },
    ),
    "permission location": (
        "session/request_permission",
        {
            "sessionId": SESSION,
            "toolCall": {"toolCallId": "t1", "locations": [{"path": "a.py"}]},
            "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
        },
    ),
}


@requirement("ACP-V1-OVERVIEW-ABSOLUTE-PATHS")
@pytest.mark.parametrize("field", list(CLIENT_PATHS))
async def test_client_never_sends_a_relative_path(pkg: Any, field: str) -> None:
    method, params = CLIENT_PATHS[field]
    client, peer = await client_against_raw_agent(pkg, AGENT_CAN_DO_EVERYTHING)
    await refused(
        peer, client.request(method, typed(pkg, method, params)), CapabilityError, "absolute"
    )


@requirement("ACP-V1-OVERVIEW-ABSOLUTE-PATHS")
@pytest.mark.parametrize("field", list(AGENT_PATHS))
async def test_agent_never_sends_a_relative_path(pkg: Any, field: str) -> None:
    method, params = AGENT_PATHS[field]
    agent, peer = await raw_client(pkg, client_capabilities=CLIENT_CAN_DO_EVERYTHING)
    send = agent.notify if method in pkg.NOTIFICATIONS else agent.request
    await refused(peer, send(method, typed(pkg, method, params)), CapabilityError, "absolute")


@requirement("ACP-V1-OVERVIEW-ABSOLUTE-PATHS")
async def test_agent_never_lists_a_session_with_a_relative_path(pkg: Any) -> None:
    listing = {"sessions": [{"sessionId": SESSION, "cwd": CWD, "additionalDirectories": ["lib"]}]}
    agent, peer = await raw_client(
        pkg, agent_serving(pkg, AGENT_CAN_DO_EVERYTHING, session_list=listing)
    )
    reply = await peer.call(1, "session/list", {})
    assert reply["error"]["code"] == -32603


@requirement("ACP-V1-OVERVIEW-ABSOLUTE-PATHS")
@pytest.mark.parametrize(
    "path", ["/work/project", "C:\\Users\\me\\project", "\\\\server\\share\\project"]
)
async def test_absolute_posix_and_windows_paths_go_out(pkg: Any, path: str) -> None:
    client, peer = await client_against_raw_agent(pkg, AGENT_CAN_DO_EVERYTHING)
    params = {
        "cwd": path,
        "mcpServers": [stdio_server(path + "/mcp")],
        "additionalDirectories": [path],
    }
    assert await goes_out(client, peer, "session/new", typed(pkg, "session/new", params))
