"""docs/protocol/v1/authentication.mdx: logout only when advertised; terminal methods never go
through authenticate."""

from __future__ import annotations

from typing import Any

import pytest

from acp_runtime import CapabilityError

from .docs_peers import (
    answered,
    client_against_raw_agent,
    goes_out,
    initialize_params,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_agent,
    typed,
)
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement


@requirement("ACP-V1-AUTH-CLIENT-NO-LOGOUT-WITHOUT-CAPABILITY")
@pytest.mark.parametrize("advertised", ["omitted", None])
async def test_client_never_logs_out_without_the_logout_capability(
    pkg: Any, advertised: Any
) -> None:
    capabilities = {"auth": {}} if advertised == "omitted" else {"auth": {"logout": advertised}}
    client, peer = await client_against_raw_agent(pkg, capabilities)
    await refused(
        peer, client.request("logout", typed(pkg, "logout", {})), CapabilityError, "auth.logout"
    )


@requirement("ACP-V1-AUTH-CLIENT-NO-LOGOUT-WITHOUT-CAPABILITY")
async def test_client_logs_out_once_logout_is_advertised_as_an_empty_object(pkg: Any) -> None:
    client, peer = await client_against_raw_agent(pkg, {"auth": {"logout": {}}})
    assert await goes_out(client, peer, "logout", typed(pkg, "logout", {}))


AUTH_METHODS = [
    {"id": "browser", "name": "Log in with a browser"},
    {"type": "terminal", "id": "tui", "name": "Log in in a terminal", "args": ["--login"]},
]


async def client_with_auth_methods(pkg: Any) -> Any:
    client, peer = raw_agent(pkg)
    initialize = initialize_params(pkg, {"auth": {"terminal": True}})
    await answered(
        peer,
        client.agent.initialize(initialize),
        {"protocolVersion": 1, "authMethods": AUTH_METHODS},
    )
    return client, peer


@requirement("ACP-V1-AUTH-CLIENT-NO-TERMINAL-METHOD-ID")
async def test_client_never_authenticates_with_a_terminal_method(pkg: Any) -> None:
    client, peer = await client_with_auth_methods(pkg)
    await refused(
        peer,
        client.agent.authenticate(typed(pkg, "authenticate", {"methodId": "tui"})),
        CapabilityError,
        "terminal auth method",
    )


@requirement("ACP-V1-AUTH-CLIENT-NO-TERMINAL-METHOD-ID")
async def test_client_authenticates_with_an_agent_method(pkg: Any) -> None:
    client, peer = await client_with_auth_methods(pkg)
    assert await goes_out(
        client, peer, "authenticate", typed(pkg, "authenticate", {"methodId": "browser"})
    )
