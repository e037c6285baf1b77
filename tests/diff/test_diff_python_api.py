"""The Python API section: the names of the old generated package the new one renames or removes."""

from __future__ import annotations

from acpgen.diff.model import ApiChange
from tests.diff.helpers import fixture_diff

OCT, JAN = "v1-stable-2025-10-28", "v1-stable-2026-01-15"
UNSTABLE_APR, UNSTABLE_AUG = "v1-unstable-2026-04-23", "v1-preview-pr-2026-08-21"


def test_a_class_the_diff_recognises_as_renamed_is_listed_with_its_new_name() -> None:
    api = fixture_diff(OCT, JAN).python_api
    assert ApiChange("class", "RequestPermissionRequestToolCall", "ToolCallUpdate") in api


def test_a_removed_method_is_listed_on_the_handler_and_the_proxy_that_had_it() -> None:
    api = fixture_diff(OCT, JAN).python_api
    methods = [a for a in api if a.kind == "method"]
    assert methods == [
        ApiChange("method", "AgentHandler.session_set_model"),
        ApiChange("method", "AgentProxy.session_set_model"),
    ]


def test_removed_classes_attributes_and_enum_members_are_listed_by_their_python_names() -> None:
    api = fixture_diff(UNSTABLE_APR, UNSTABLE_AUG).python_api
    assert ApiChange("class", "SetSessionModelRequest") in api
    assert ApiChange("attribute", "PromptRequest.message_id") in api
    assert ApiChange("member", "ErrorCode.URL_ELICITATION_REQUIRED") in api


def test_a_revision_compared_with_itself_changes_no_python_name() -> None:
    assert fixture_diff(JAN, JAN).python_api == ()
