"""The conformance report tells tested, carried and gap rows apart, and counts no gap as met."""

from __future__ import annotations

from .conftest import BY_ID, status_of

ROW = BY_ID["ACP-V1-SETUP-CWD-IN-ROOT-SET"]
APPLICATION_ROW = BY_ID["ACP-V1-SETUP-ROOT-SET-BOUNDARY"]


def outcome(
    test: str, status: str, reason: str = "", **keywords: str
) -> tuple[str, str, str, tuple[tuple[str, str], ...]]:
    return (test, status, reason, tuple(sorted(keywords.items())))


def test_a_row_whose_tests_prove_the_library_is_tested() -> None:
    assert (
        status_of(ROW, [outcome("a", "pass"), outcome("b", "pass", carried="passes it on")])[0]
        == "tested"
    )


def test_a_row_whose_every_test_only_carries_is_carried_and_says_what_is_carried() -> None:
    status, _, why = status_of(
        ROW, [outcome("a", "pass", carried="passes cwd on"), outcome("b", "pass", carried="x")]
    )
    assert (status, why) == ("carried", "passes cwd on; x")


def test_an_expected_failure_makes_the_row_a_gap_with_its_reason_never_a_pass() -> None:
    status, _, why = status_of(
        ROW, [outcome("a", "pass"), outcome("b", "xfail", "false is dropped")]
    )
    assert (status, why) == ("gap", "false is dropped")
    assert status_of(ROW, [outcome("b", "xfail", "only this")])[0] == "gap"


def test_a_passing_test_may_declare_the_rest_of_the_row_a_gap() -> None:
    status, _, why = status_of(ROW, [outcome("a", "pass", gap="the false half is not sent")])
    assert (status, why) == ("gap", "the false half is not sent")


def test_a_failing_test_fails_the_row_and_a_skipped_one_proves_nothing() -> None:
    assert status_of(ROW, [outcome("a", "pass"), outcome("b", "fail", "boom | bang")])[:3:2] == (
        "fail",
        "boom \\| bang",
    )
    assert status_of(ROW, [outcome("a", "skip")])[0] == "missing"
    assert status_of(ROW, [])[0] == "missing"


def test_notes_say_how_a_tested_row_is_read() -> None:
    assert status_of(ROW, [outcome("a", "pass", note="per connection")])[::2] == (
        "tested",
        "per connection",
    )


def test_an_application_row_without_tests_is_not_the_librarys() -> None:
    assert status_of(APPLICATION_ROW, [])[0] == "not the library's"
