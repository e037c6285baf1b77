"""Real revisions (tests/fixtures/schemas): what changed, checked by reading both schemas.

Sides, as the schemas say: `fs/*` and `terminal/*` are received by the client (the agent calls
them); `authenticate`, `session/*` requests and `initialize` are received by the agent.
"""

from __future__ import annotations

from acpgen.diff.model import Change
from tests.diff.helpers import fixture_diff, fixture_revision

OCT, JAN = "v1-stable-2025-10-28", "v1-stable-2026-01-15"
STABLE_APR, UNSTABLE_APR = "v1-stable-2026-04-23", "v1-unstable-2026-04-23"
V1_AUG, V2_AUG = "v1-stable-2026-08-20", "v2-stable-2026-08-20"


def changes(old: str, new: str, rule: str) -> dict[str, Change]:
    return {c.subject: c for c in fixture_diff(old, new).changes if c.rule == rule}


def levels(c: Change) -> tuple[str, str]:
    return c.severity.agent.value, c.severity.client.value


# ---------------------------------------------------------------- 2025-10-28 -> 2026-01-15


def test_jan_drops_the_unstable_set_model_method_which_breaks_the_client_that_calls_it() -> None:
    removed = changes(OCT, JAN, "method-removed")
    assert list(removed) == ["session/set_model"]
    assert levels(removed["session/set_model"]) == ("compatible", "breaking")
    assert "UNSTABLE" in removed["session/set_model"].detail


def test_jan_names_the_inline_tool_call_of_permission_requests_ToolCallUpdate() -> None:
    renamed = changes(OCT, JAN, "type-renamed")
    assert renamed["ToolCallUpdate"].detail == "renamed from RequestPermissionRequestToolCall"
    assert levels(renamed["ToolCallUpdate"]) == ("python-api", "python-api")


def test_jan_types_error_codes_as_an_open_enum_which_breaks_nobody() -> None:
    added = changes(OCT, JAN, "open-enum-value-added")
    assert set(added) == {
        f"Error.code[{code}]" for code in (-32700, -32600, -32601, -32602, -32603, -32000, -32002)
    }
    assert {levels(c) for c in added.values()} == {("compatible", "compatible")}
    assert not changes(OCT, JAN, "type-changed")


def test_jan_removes_the_unstable_models_of_session_responses_which_the_agent_sends() -> None:
    removed = changes(OCT, JAN, "field-removed-optional")
    assert set(removed) == {"NewSessionResponse.models", "LoadSessionResponse.models"}
    assert levels(removed["NewSessionResponse.models"]) == ("warning", "python-api")


def test_jan_narrows_meta_from_any_value_to_an_object_which_breaks_its_senders() -> None:
    narrowed = changes(OCT, JAN, "type-narrowed")
    assert levels(narrowed["AgentCapabilities._meta"]) == (
        "breaking",
        "compatible",
    )  # initialize result
    assert levels(narrowed["ClientCapabilities._meta"]) == (
        "compatible",
        "breaking",
    )  # initialize params
    assert all(subject.endswith("._meta") for subject in narrowed)


# ---------------------------------------------------------------- stable -> unstable, 2026-04-23


def test_unstable_only_adds_to_stable() -> None:
    rules = {c.rule for c in fixture_diff(STABLE_APR, UNSTABLE_APR).changes}
    assert rules == {
        "method-added",
        "type-added",
        "field-added-optional",
        "union-variant-added",
        "open-union-variant-added",
        "open-enum-value-added",
        "object-became-union",
    }


def test_unstable_adds_these_methods() -> None:
    assert set(changes(STABLE_APR, UNSTABLE_APR, "method-added")) == {
        "$/cancel_request", "document/didChange", "document/didClose", "document/didFocus",
        "document/didOpen", "document/didSave", "elicitation/complete", "elicitation/create",
        "logout", "nes/accept", "nes/close", "nes/reject", "nes/start", "nes/suggest",
        "providers/disable", "providers/list", "providers/set", "session/fork", "session/set_model",
    }  # fmt: skip


def test_unstable_turns_set_config_option_params_into_a_union_that_keeps_the_stable_shape() -> None:
    change = changes(STABLE_APR, UNSTABLE_APR, "object-became-union")[
        "SetSessionConfigOptionRequest"
    ]
    assert "value_id" in change.detail
    assert levels(change) == (
        "breaking",
        "python-api",
    )  # the agent receives the new boolean variant


def test_unstable_variants_warn_only_the_client_which_receives_them() -> None:
    added = changes(STABLE_APR, UNSTABLE_APR, "union-variant-added")
    assert set(added) == {"SessionConfigOption[boolean]", "SessionUpdate[usage_update]"}
    assert {levels(c) for c in added.values()} == {("compatible", "warning")}


def test_unstable_auth_methods_are_read_by_the_stable_untagged_agent_variant() -> None:
    """Stable's AuthMethod reads any `type` as its untagged `agent` variant, whose fields the new
    variants all have: an old client still reads them (as --prove's exchanges show)."""
    added = changes(STABLE_APR, UNSTABLE_APR, "open-union-variant-added")
    assert set(added) == {"AuthMethod[env_var]", "AuthMethod[terminal]"}
    assert {levels(c) for c in added.values()} == {("compatible", "compatible")}


# ---------------------------------------------------------------- v1 -> v2, 2026-08-20


def test_v2_removes_eleven_methods_and_adds_auth_login_and_logout() -> None:
    assert set(changes(V1_AUG, V2_AUG, "method-removed")) == {
        "authenticate", "logout", "session/load", "session/set_mode", "fs/read_text_file",
        "fs/write_text_file", "terminal/create", "terminal/kill", "terminal/output",
        "terminal/release", "terminal/wait_for_exit",
    }  # fmt: skip
    assert set(changes(V1_AUG, V2_AUG, "method-added")) == {"auth/login", "auth/logout"}


def test_v2_dropping_fs_and_terminal_breaks_the_agent_which_calls_them() -> None:
    removed = changes(V1_AUG, V2_AUG, "method-removed")
    for wire in ("fs/read_text_file", "terminal/create"):
        assert levels(removed[wire]) == ("breaking", "compatible")


def test_v2_dropping_authenticate_load_and_set_mode_breaks_the_client_which_calls_them() -> None:
    removed = changes(V1_AUG, V2_AUG, "method-removed")
    for wire in ("authenticate", "session/load", "session/set_mode"):
        assert levels(removed[wire]) == ("compatible", "breaking")


def test_v2_renames_the_session_notifications_without_changing_their_methods() -> None:
    renamed = changes(V1_AUG, V2_AUG, "type-renamed")
    assert renamed["UpdateSessionNotification"].detail == "renamed from SessionNotification"
    assert renamed["CancelSessionNotification"].detail == "renamed from CancelNotification"
    assert not changes(V1_AUG, V2_AUG, "method-params-changed")


def test_v2_initialize_requires_client_info_under_a_new_name() -> None:
    assert levels(changes(V1_AUG, V2_AUG, "field-added-required")["InitializeRequest.info"]) == (
        "compatible",
        "breaking",
    )
    assert "InitializeRequest.clientInfo" in changes(V1_AUG, V2_AUG, "field-removed-optional")


def test_v2_prompt_response_loses_its_stop_reason_which_breaks_the_client_that_reads_it() -> None:
    change = changes(V1_AUG, V2_AUG, "field-removed-required")["PromptResponse.stopReason"]
    assert levels(change) == ("warning", "breaking")
    assert change.affects == ("session/prompt",)


def test_every_change_names_only_methods_of_the_two_revisions_as_affected() -> None:
    wires = {m.wire for name in (V1_AUG, V2_AUG) for m in fixture_revision(name).methods}
    assert {m for c in fixture_diff(V1_AUG, V2_AUG).changes for m in c.affects} <= wires
