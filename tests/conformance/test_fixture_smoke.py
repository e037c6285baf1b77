"""The conformance packages generate from the revisions the requirements describe."""

from typing import Any


def test_stable_package_has_session_delete(acp_v1: Any) -> None:
    assert "session/delete" in acp_v1.REQUESTS


def test_unstable_package_is_a_superset_of_the_stable_methods(
    acp_v1: Any, acp_v1_unstable: Any
) -> None:
    assert set(acp_v1.METHODS) <= set(acp_v1_unstable.METHODS)
