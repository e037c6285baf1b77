"""docs/protocol/v1/session-delete.mdx: deleting sessions only after initialize, when advertised.

The default package's schema has no session/delete, so these run on the v1 package only."""

from __future__ import annotations

from typing import Any

import pytest

from acp_runtime import CapabilityError, NotInitializedError

from .docs_peers import SESSION, client_against_raw_agent, goes_out, raw_agent, typed
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement


@requirement("ACP-V1-DELETE-INIT-FIRST")
async def test_client_cannot_delete_a_session_before_initialize(acp_v1: Any) -> None:
    client, peer = raw_agent(acp_v1)
    await refused(
        peer,
        client.agent.session_delete(typed(acp_v1, "session/delete", {"sessionId": SESSION})),
        NotInitializedError,
    )


@requirement(
    "ACP-V1-DELETE-CLIENT-CHECK-CAPABILITY", "ACP-V1-DELETE-CLIENT-NO-DELETE-WITHOUT-CAPABILITY"
)
@pytest.mark.parametrize("advertised", ["omitted", None])
async def test_client_never_deletes_a_session_without_the_delete_capability(
    acp_v1: Any, advertised: Any
) -> None:
    capabilities = (
        {} if advertised == "omitted" else {"sessionCapabilities": {"delete": advertised}}
    )
    client, peer = await client_against_raw_agent(acp_v1, capabilities)
    await refused(
        peer,
        client.agent.session_delete(typed(acp_v1, "session/delete", {"sessionId": SESSION})),
        CapabilityError,
        "sessionCapabilities.delete",
    )


@requirement("ACP-V1-DELETE-INIT-FIRST", "ACP-V1-DELETE-CLIENT-CHECK-CAPABILITY")
async def test_client_deletes_a_session_once_delete_is_advertised_as_an_empty_object(
    acp_v1: Any,
) -> None:
    client, peer = await client_against_raw_agent(acp_v1, {"sessionCapabilities": {"delete": {}}})
    params = typed(acp_v1, "session/delete", {"sessionId": SESSION})
    assert await goes_out(client, peer, "session/delete", params)
