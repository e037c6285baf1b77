"""docs/protocol/v1/file-system.mdx: the agent reads and writes client files only when allowed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from acp_runtime import CapabilityError

from .docs_peers import (
    CWD,
    SESSION,
    client_serving,
    connect,
    goes_out,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_client,
    typed,
)
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement

CALLS = {
    "fs/read_text_file": (
        "readTextFile",
        {"sessionId": SESSION, "path": f"{CWD}/a.py", "line": 1, "limit": 10},
    ),
    "fs/write_text_file": (
        "writeTextFile",
        {"sessionId": SESSION, "path": f"{CWD}/a.py", "content": "x = 1\n"},
    ),
}


@requirement("ACP-V1-FS-AGENT-CHECK-CAPABILITY")
@pytest.mark.parametrize("method", list(CALLS))
async def test_agent_calls_a_filesystem_method_once_the_client_advertises_it(
    pkg: Any, method: str
) -> None:
    capability, params = CALLS[method]
    agent, peer = await raw_client(pkg, client_capabilities={"fs": {capability: True}})
    assert await goes_out(agent, peer, method, typed(pkg, method, params))


@requirement("ACP-V1-FS-AGENT-NO-CALL-WITHOUT-CAPABILITY")
@pytest.mark.parametrize("advertised", ["omitted", False])
@pytest.mark.parametrize("method", list(CALLS))
async def test_agent_never_calls_a_filesystem_method_the_client_did_not_advertise(
    pkg: Any, method: str, advertised: Any
) -> None:
    capability, params = CALLS[method]
    other = "writeTextFile" if capability == "readTextFile" else "readTextFile"
    fs = {other: True} if advertised == "omitted" else {other: True, capability: False}
    agent, peer = await raw_client(pkg, client_capabilities={"fs": fs})
    await refused(
        peer, agent.request(method, typed(pkg, method, params)), CapabilityError, f"fs.{capability}"
    )


@requirement(
    "ACP-V1-FS-CLIENT-CREATE-FILE",
    carried=(
        "path and content reach the client handler intact; creating the file is the application's"
    ),
)
async def test_a_write_to_a_missing_file_reaches_the_client_handler_intact(
    pkg: Any, tmp_path: Path
) -> None:
    """The runtime hands the client's fs/write_text_file handler the absolute path and the
    content untouched, and answers the agent when it returns; creating the file when it does not
    exist is the client application's part (its handler, shown here, does)."""

    async def write(params: Any) -> Any:
        path = Path(params.path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(params.content, encoding="utf-8")
        return None

    agent, client = await connect(
        pkg,
        client=client_serving(pkg, fs_write_text_file=write),
        client_capabilities={"fs": {"writeTextFile": True}},
    )
    target = tmp_path / "new dir" / "notes é.md"
    content = "# Notes\n\nline 2 — ünïcode\n"
    params = typed(
        pkg, "fs/write_text_file", {"sessionId": SESSION, "path": str(target), "content": content}
    )
    await agent.client.fs_write_text_file(params)
    assert target.read_text(encoding="utf-8") == content
