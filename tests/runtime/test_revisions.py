"""The runtime runs packages generated from other schema revisions, unchanged: rules whose method
or capability a revision lacks are skipped, and its own capabilities are honoured."""

from __future__ import annotations

import asyncio
import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

from acp_runtime import (
    AgentSideConnection,
    CapabilityError,
    ClientSideConnection,
    memory_pipe,
    rules,
    wire,
)
from acp_runtime.protocol import guards

SCHEMAS = Path(__file__).parents[1] / "fixtures" / "schemas"
V1 = ["v1-stable-2025-10-28", "v1-stable-2026-08-20"]


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Any:
    from acpgen.pipeline import generate_files
    from acpgen.write import write_package

    root = tmp_path_factory.mktemp("revisions")
    sys.path.insert(0, str(root))
    cache: dict[str, Any] = {}

    def load(revision: str) -> Any:
        if revision not in cache:
            name = "acp_runtime_test_" + revision.replace("-", "_")
            write_package(root / name, generate_files(SCHEMAS / f"{revision}.json", name))
            cache[revision] = importlib.import_module(name)
        return cache[revision]

    yield load
    sys.path.remove(str(root))


def build(pkg: Any, method: str, data: dict[str, Any], part: str = "params") -> Any:
    info = pkg.METHODS[method]
    return wire.build(pkg, data, getattr(info, part))


class WireAgent:
    """An agent written against wire names only, so it serves any revision."""

    def __init__(
        self, conn: AgentSideConnection, new_session: dict[str, Any] | None = None
    ) -> None:
        self.conn, self.pkg = conn, conn.schema
        self.new_session = new_session or {"sessionId": "s1"}

    async def initialize(self, params: Any) -> Any:
        return build(self.pkg, "initialize", {"protocolVersion": 1}, "result")

    async def session_new(self, params: Any) -> Any:
        return build(self.pkg, "session/new", self.new_session, "result")

    async def session_prompt(self, params: Any) -> Any:
        for block in wire.items(params, "prompt"):
            text = wire.get(block, "text")
            update = {
                "sessionUpdate": "agent_message_chunk",
                "content": {"type": "text", "text": text},
            }
            note = wire.build(
                self.pkg,
                {"sessionId": wire.get(params, "sessionId"), "update": update},
                self.pkg.NOTIFICATIONS["session/update"].params,
            )
            await self.conn.notify("session/update", note)
            if text == "wait":
                await asyncio.Event().wait()
        return build(self.pkg, "session/prompt", {"stopReason": "end_turn"}, "result")


class WireClient:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.holding = asyncio.Event()  # the agent streamed "wait": it holds that turn open

    async def session_update(self, params: Any) -> None:
        text = wire.get(params, "update", "content", "text")
        self.texts.append(text)
        if text == "wait":
            self.holding.set()


async def connect(
    pkg: Any, client_capabilities: dict[str, Any], **agent_kwargs: Any
) -> tuple[Any, Any, WireClient]:
    (a_in, a_out), (c_in, c_out) = memory_pipe()
    agent = AgentSideConnection(
        lambda conn: WireAgent(conn, **agent_kwargs), a_in, a_out, schema=pkg
    )
    handler = WireClient()
    client = ClientSideConnection(handler, c_in, c_out, schema=pkg)
    await client.request(
        "initialize",
        build(pkg, "initialize", {"protocolVersion": 1, "clientCapabilities": client_capabilities}),
    )
    return agent, client, handler


@pytest.mark.parametrize("revision", V1)
async def test_a_prompt_turn_and_its_cancel_work_on_other_revisions(package, revision) -> None:
    pkg = package(revision)
    agent, client, handler = await connect(pkg, {})
    session = await client.request(
        "session/new", build(pkg, "session/new", {"cwd": "/w", "mcpServers": []})
    )
    sid = wire.get(session, "sessionId")
    answer = await client.request(
        "session/prompt",
        build(
            pkg, "session/prompt", {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
        ),
    )
    assert wire.get(answer, "stopReason") == "end_turn" and handler.texts == ["hi"]
    turn = asyncio.ensure_future(
        client.request(
            "session/prompt",
            build(
                pkg,
                "session/prompt",
                {"sessionId": sid, "prompt": [{"type": "text", "text": "wait"}]},
            ),
        )
    )
    await handler.holding.wait()
    await client.notify("session/cancel", build(pkg, "session/cancel", {"sessionId": sid}))
    assert wire.get(await turn, "stopReason") == "cancelled"


async def test_the_oldest_revision_has_no_guards_for_methods_it_lacks(package) -> None:
    pkg = package("v1-stable-2025-10-28")
    assert "session/list" not in pkg.METHODS and rules.CANCEL_REQUEST not in pkg.METHODS
    table = guards.guards_for(pkg, "client", "send")
    assert "session/load" in table and "session/list" not in table and "logout" not in table
    agent, client, handler = await connect(pkg, {})
    with pytest.raises(CapabilityError, match="loadSession"):
        await client.request(
            "session/load",
            build(pkg, "session/load", {"sessionId": "s", "cwd": "/w", "mcpServers": []}),
        )


async def test_session_delete_is_guarded_where_it_exists(package) -> None:
    pkg = package("v1-stable-2026-08-20")
    agent, client, handler = await connect(pkg, {})
    with pytest.raises(CapabilityError, match="sessionCapabilities.delete"):
        await client.request("session/delete", build(pkg, "session/delete", {"sessionId": "s1"}))


BOOLEAN_OPTION = {"type": "boolean", "id": "fast", "name": "Fast mode", "currentValue": False}


async def test_boolean_config_options_need_the_clients_capability_where_it_exists(
    package, caplog
) -> None:
    pkg = package("v1-stable-2026-08-20")
    agent, client, handler = await connect(
        pkg, {}, new_session={"sessionId": "s1", "configOptions": [BOOLEAN_OPTION]}
    )
    with pytest.raises(pkg.RpcError) as info:
        await client.request(
            "session/new", build(pkg, "session/new", {"cwd": "/w", "mcpServers": []})
        )
    assert info.value.code == -32603 and "configOptions.boolean" in caplog.text
    capability = {"session": {"configOptions": {"boolean": {}}}}
    agent, client, handler = await connect(
        pkg, capability, new_session={"sessionId": "s1", "configOptions": [BOOLEAN_OPTION]}
    )
    session = await client.request(
        "session/new", build(pkg, "session/new", {"cwd": "/w", "mcpServers": []})
    )
    assert wire.get(session, "sessionId") == "s1"


def test_without_that_capability_in_the_schema_boolean_options_are_not_limited(package) -> None:
    pkg = package("v1-stable-2025-10-28")
    assert not wire.declares(
        pkg.InitializeRequest, "clientCapabilities", "session", "configOptions", "boolean"
    )
    assert "session/new" not in guards.guards_for(pkg, "agent", "result")


async def test_a_v2_package_negotiates_version_2(package) -> None:
    pkg = package("v2-stable-2026-08-20")
    (a_in, a_out), (c_in, c_out) = memory_pipe()

    class V2Agent:
        async def initialize(self, params: Any) -> Any:
            return build(
                pkg,
                "initialize",
                {"protocolVersion": 2, "info": {"name": "v2-agent", "version": "1"}},
                "result",
            )

        async def session_new(self, params: Any) -> Any:
            return build(pkg, "session/new", {"sessionId": "v2"}, "result")

    AgentSideConnection(V2Agent(), a_in, a_out, schema=pkg, protocol_versions=(2,))
    client = ClientSideConnection(WireClient(), c_in, c_out, schema=pkg, protocol_versions=(2,))
    init = await client.request(
        "initialize",
        build(pkg, "initialize", {"protocolVersion": 2, "info": {"name": "c", "version": "1"}}),
    )
    assert client.protocol_version == 2 and wire.get(init, "info", "name") == "v2-agent"
    assert (
        wire.get(
            await client.request("session/new", build(pkg, "session/new", {"cwd": "/w"})),
            "sessionId",
        )
        == "v2"
    )
    assert rules.turn_cancels_for(pkg, "agent") == {}  # a v2 PromptResponse has no stopReason
