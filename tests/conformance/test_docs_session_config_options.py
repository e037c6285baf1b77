"""docs/protocol/v1/session-config-options.mdx: config options offered at setup, boolean options
only when the client supports them, categories for UX only, defaults, and setting values."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from acp_runtime import CapabilityError, ProtocolError

from .docs_peers import (
    CWD,
    SESSION,
    agent_serving,
    as_wire,
    client_against_raw_agent,
    connect,
    eventually,
    pkg,  # noqa: F401  (fixture: acp_v1, then acp_default)
    raw_client,
    typed,
    update,
)
from .refusal import refused

pytest_plugins = ["tests.runtime.aio"]

requirement = pytest.mark.requirement

MODE = {
    "id": "mode",
    "name": "Session Mode",
    "category": "mode",
    "type": "select",
    "currentValue": "ask",
    "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}],
}
MODEL = {
    "id": "model",
    "name": "Model",
    "type": "select",
    "currentValue": "model-1",
    "options": [
        {"group": "fast", "name": "Fast", "options": [{"value": "model-1", "name": "Model 1"}]},
        {"group": "smart", "name": "Smart", "options": [{"value": "model-2", "name": "Model 2"}]},
    ],
}
BRAVE = {"id": "brave_mode", "name": "Brave Mode", "type": "boolean", "currentValue": True}
BOOLEAN_SUPPORT = {"session": {"configOptions": {"boolean": {}}}}
NEW = {"cwd": CWD, "mcpServers": []}


def offering(pkg: Any, options: list[dict[str, Any]], **serves: Any) -> Any:
    async def new_session(params: Any) -> Any:
        return {"sessionId": SESSION, "configOptions": options}

    async def set_option(params: Any) -> Any:
        return {"configOptions": options}

    return agent_serving(
        pkg, session_new=new_session, session_set_config_option=set_option, **serves
    )


def set_value(pkg: Any, config_id: str, value: Any) -> Any:
    params = {"sessionId": SESSION, "configId": config_id, "value": value}
    return typed(
        pkg,
        "session/set_config_option",
        {**params, "type": "boolean"} if isinstance(value, bool) else params,
    )


@requirement("ACP-V1-CONFIG-INITIAL-STATE-MAY")
async def test_agent_may_return_config_options_when_a_session_is_set_up(pkg: Any) -> None:
    agent, client = await connect(pkg, offering(pkg, [MODE, MODEL]), session=False)
    answer = await client.agent.session_new(typed(pkg, "session/new", NEW))
    assert [as_wire(pkg, option) for option in answer.config_options] == [MODE, MODEL]


@requirement("ACP-V1-CONFIG-BOOLEAN-ONLY-AFTER-CAPABILITY-MAY")
async def test_agent_may_offer_a_boolean_option_to_a_client_that_supports_it(acp_v1: Any) -> None:
    pkg = acp_v1
    agent, client = await connect(
        pkg, offering(pkg, [MODE, BRAVE]), client_capabilities=BOOLEAN_SUPPORT, session=False
    )
    answer = await client.agent.session_new(typed(pkg, "session/new", NEW))
    assert as_wire(pkg, answer.config_options[1]) == BRAVE


@requirement("ACP-V1-CONFIG-NO-BOOLEAN-WITHOUT-CAPABILITY")
async def test_agent_never_answers_a_boolean_option_to_a_client_without_support(
    acp_v1: Any,
) -> None:
    pkg = acp_v1
    agent, peer = await raw_client(pkg, offering(pkg, [MODE, BRAVE]))
    reply = await peer.call(1, "session/new", NEW)
    assert reply["error"]["code"] == -32603


@requirement("ACP-V1-CONFIG-NO-BOOLEAN-WITHOUT-CAPABILITY")
async def test_agent_never_notifies_a_boolean_option_to_a_client_without_support(
    acp_v1: Any,
) -> None:
    pkg = acp_v1
    agent, peer = await raw_client(pkg)
    await refused(
        peer,
        agent.client.session_update(
            update(pkg, {"sessionUpdate": "config_option_update", "configOptions": [BRAVE]})
        ),
        CapabilityError,
        "configOptions.boolean",
    )


@requirement("ACP-V1-CONFIG-CATEGORY-MAY")
@pytest.mark.parametrize(
    "category", ["mode", "model", "model_config", "thought_level", "_my_custom_category"]
)
async def test_agent_may_give_an_option_a_category(pkg: Any, category: str) -> None:
    agent, client = await connect(
        pkg, offering(pkg, [{**MODE, "category": category}]), session=False
    )
    answer = await client.agent.session_new(typed(pkg, "session/new", NEW))
    assert as_wire(pkg, answer.config_options[0])["category"] == category


@requirement("ACP-V1-CONFIG-CATEGORY-NOT-REQUIRED-FOR-CORRECTNESS")
async def test_options_without_a_category_work_end_to_end(pkg: Any) -> None:
    plain = {k: v for k, v in MODE.items() if k != "category"}
    agent, client = await connect(pkg, offering(pkg, [plain, MODEL]))
    answer = await client.agent.session_set_config_option(set_value(pkg, "mode", "code"))
    assert [option.category for option in answer.config_options] == [msgspec.UNSET, msgspec.UNSET]
    assert agent.handler.of("session/set_config_option")[0].value == "code"


@requirement("ACP-V1-CONFIG-CLIENT-UNKNOWN-CATEGORY")
async def test_client_takes_options_with_unknown_or_missing_categories(pkg: Any) -> None:
    options = [
        {**MODE, "category": "future_category"},
        {**MODE, "id": "x", "category": "_vendor"},
        MODEL,
    ]
    client, peer = await client_against_raw_agent(
        pkg, session_result={"sessionId": SESSION, "configOptions": options}
    )
    offered = client.sessions[SESSION]["configOptions"]
    assert [as_wire(pkg, o).get("category") for o in offered] == [
        "future_category",
        "_vendor",
        None,
    ]
    assert [o.category.is_unknown for o in offered[:2]] == [True, True]


@requirement("ACP-V1-CONFIG-AGENT-DEFAULTS")
async def test_an_option_cannot_be_built_without_its_current_value(pkg: Any) -> None:
    """The generated option types require currentValue; choosing each option's default is the
    agent application's part."""
    update_params = {"sessionUpdate": "config_option_update", "configOptions": [MODE]}
    select = type(
        typed(
            pkg, "session/update", {"sessionId": SESSION, "update": update_params}
        ).update.config_options[0]
    )
    with pytest.raises(TypeError, match="current_value"):
        select(id="mode", name="Session Mode", options=[])


@requirement("ACP-V1-CONFIG-AGENT-DEFAULTS")
async def test_a_received_option_without_a_current_value_is_not_offered(acp_v1: Any) -> None:
    pkg = acp_v1
    without = {k: v for k, v in MODE.items() if k != "currentValue"}
    new_session = {"sessionId": SESSION, "configOptions": [without, MODEL]}
    client, peer = await client_against_raw_agent(pkg, session_result=new_session)
    assert [o.id for o in client.sessions[SESSION]["configOptions"]] == ["model"]


@requirement("ACP-V1-CONFIG-CLIENT-IGNORE-UNKNOWN-TYPE")
@pytest.mark.parametrize("lenient", [False, True])
async def test_client_ignores_an_option_of_an_unknown_type(acp_v1: Any, lenient: bool) -> None:
    """The rest of the answer is taken: strictly the unknown option is dropped, leniently it is
    kept as an `UnknownVariant` (raw JSON) that no known option type matches. (The default
    package's schema does not mark configOptions items as skippable, so there only lenient
    decoding keeps the answer.)"""
    pkg = acp_v1
    slider = {"id": "temperature", "name": "Temperature", "type": "slider", "currentValue": 0.7}
    new_session = {"sessionId": SESSION, "configOptions": [slider, MODE]}
    client, peer = await client_against_raw_agent(pkg, session_result=new_session, lenient=lenient)
    offered = client.sessions[SESSION]["configOptions"]
    known = [o for o in offered if not isinstance(o, pkg.UnknownVariant)]
    assert [o.id for o in known] == ["mode"]
    assert [o.raw for o in offered if isinstance(o, pkg.UnknownVariant)] == (
        [slider] if lenient else []
    )


@requirement("ACP-V1-CONFIG-SET-RESPONSE-COMPLETE")
async def test_set_config_option_is_answered_with_the_complete_option_list(pkg: Any) -> None:
    """The answer type requires configOptions (a handler answering nothing gets -32603, never an
    empty answer); listing every option with its current value is the agent application's part."""
    agent, client = await connect(pkg, offering(pkg, [MODE, MODEL]))
    answer = await client.agent.session_set_config_option(set_value(pkg, "mode", "code"))
    assert [o.id for o in answer.config_options] == ["mode", "model"]

    async def nothing(params: Any) -> Any:
        return None

    agent, peer = await raw_client(pkg, agent_serving(pkg, session_set_config_option=nothing))
    reply = await peer.call(
        1, "session/set_config_option", {"sessionId": SESSION, "configId": "mode", "value": "code"}
    )
    assert reply["error"]["code"] == -32603


@requirement("ACP-V1-CONFIG-SET-VALUE-VALID")
@pytest.mark.parametrize(
    "config_id, value",
    [("mode", "architect"), ("model", "model-9"), ("effort", "high")],
    ids=["unlisted value", "unlisted grouped value", "unknown option"],
)
async def test_client_sets_only_values_the_option_lists(
    pkg: Any, config_id: str, value: Any
) -> None:
    """The runtime remembers each session's configOptions (setup and set_config_option answers,
    config_option_update) and refuses (ProtocolError, nothing sent) any other value; picking one
    is the client application's part."""
    agent, client = await connect(pkg, offering(pkg, [MODE, MODEL]))
    with pytest.raises(ProtocolError, match="config"):
        await client.agent.session_set_config_option(set_value(pkg, config_id, value))
    await client.agent.session_set_config_option(set_value(pkg, "model", "model-2"))
    assert [(p.config_id, p.value) for p in agent.handler.of("session/set_config_option")] == [
        ("model", "model-2")
    ]


@requirement("ACP-V1-CONFIG-SET-VALUE-VALID")
async def test_client_sets_a_boolean_option_only_to_a_boolean(acp_v1: Any) -> None:
    pkg = acp_v1
    agent, client = await connect(
        pkg, offering(pkg, [MODE, BRAVE]), client_capabilities=BOOLEAN_SUPPORT
    )
    with pytest.raises(ProtocolError, match="boolean config option"):
        await client.agent.session_set_config_option(set_value(pkg, "brave_mode", "true"))
    await client.agent.session_set_config_option(set_value(pkg, "brave_mode", False))
    assert [p.value for p in agent.handler.of("session/set_config_option")] == [False]


@requirement("ACP-V1-CONFIG-SET-VALUE-VALID")
async def test_values_the_agent_adds_later_can_be_set(pkg: Any) -> None:
    agent, client = await connect(pkg, offering(pkg, [MODE]))
    bigger = {**MODE, "options": [*MODE["options"], {"value": "architect", "name": "Architect"}]}
    await agent.client.session_update(
        update(pkg, {"sessionUpdate": "config_option_update", "configOptions": [bigger]})
    )
    await eventually(
        lambda: client.handler.of("session/update"),
        "the config_option_update never reached the client",
    )
    await client.agent.session_set_config_option(set_value(pkg, "mode", "architect"))
    assert agent.handler.of("session/set_config_option")[0].value == "architect"
