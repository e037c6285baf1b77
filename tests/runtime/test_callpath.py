"""The path of one received stdio request (tests/tools/callpath.py): it climbs the layers once on
its way in and its answer comes down them once on its way back, never back up to a layer it came
through (README, "Layout": each folder imports only from itself and the folders below it)."""

from __future__ import annotations

import asyncio

from tests.tools.callpath import drive, figures


def test_a_received_request_never_climbs_back_up() -> None:
    result = asyncio.run(drive())
    path = result["path"]
    assert any("handler:" in stop for stop in path), path  # the handler was reached
    assert path[0].startswith("jsonrpc/framing.py:"), path  # from the bytes
    assert "LineWriter.write" in path[-1] or "LineWriter.write" in path[-2], path  # to the bytes
    assert result["climbs"] == [], "\n".join(path)


def test_the_figures_name_a_climb_back_up() -> None:
    """The measure can fail: an answer that calls up into the ACP layer once the handler returned,
    and a request that dips into the transports before its handler, are climbs."""
    events = [
        ("call", "jsonrpc/serving.py:Server._serve", 0),
        ("call", "jsonrpc/framing.py:LineReader.split", 1),
        ("return", "jsonrpc/framing.py:LineReader.split", 1),
        ("call", "handler:Agent.session_new", 1),
        ("return", "handler:Agent.session_new", 1),
        ("call", "protocol/policy.py:AcpPolicy.check_result", 1),
        ("return", "protocol/policy.py:AcpPolicy.check_result", 1),
        ("return", "jsonrpc/serving.py:Server._serve", 0),
    ]
    assert figures(events)["climbs"] == [
        "jsonrpc/serving.py:Server._serve -> jsonrpc/framing.py:LineReader.split",
        "jsonrpc/serving.py:Server._serve -> protocol/policy.py:AcpPolicy.check_result",
    ]
    assert figures(events)["returns"] == 2
