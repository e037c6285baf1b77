"""The mutation check's verdict on a failure line: a timeout is not a catch, an assertion is."""

from __future__ import annotations

import pytest

from tests.mutation.check import TIMED_OUT

NODE = "tests/conformance/test_jsonrpc.py::test_rpc_method_names_are_refused[acp_v1]"


@pytest.mark.parametrize(
    "failure",
    [
        "TimeoutError",
        "asyncio.exceptions.CancelledError",
        "Failed: Timeout >30.0s",
        "acp_runtime.jsonrpc.errors.RequestTimeoutError: rpc.discover: no answer within 5 s; the"
        " request was cancelled ($/cancel_request)",
    ],
)
def test_a_failure_that_is_only_a_timeout_does_not_count_as_caught(failure: str) -> None:
    assert TIMED_OUT.search(f"{NODE} - {failure}")


@pytest.mark.parametrize(
    "failure",
    [
        "AssertionError: sent although it must be refused: {'method': 'rpc.discover'}",
        "AssertionError: the 0.05 s timeout never fired (nothing within 3.0 s)",
        "Failed: DID NOT RAISE <class 'acp_runtime.jsonrpc.errors.RequestTimeoutError'>",
        "KeyError: 'error'",
    ],
)
def test_an_assertion_naming_the_behaviour_counts_as_caught(failure: str) -> None:
    assert not TIMED_OUT.search(f"{NODE} - {failure}")
