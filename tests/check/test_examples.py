"""The project's own example agents pass `acpgen check` on v1 and v2: no failure, no warning, no
information but the refused v2 batch; with `--delay` the echo agent's cancelled turn is
exercised (and passes)."""

from __future__ import annotations

import pytest

from acpgen.check.model import PASS, Run

from .runs import PYTHON, REFUSED_BATCH, ROOT, SLOW_START, findings, not_exercised, run_all

ECHO = [PYTHON, str(ROOT / "examples" / "echo_agent.py")]
TARGETS = {
    "echo": (ECHO, [1, 2]),
    "echo --delay": ([*ECHO, "--delay", "1.0"], [1, 2]),
    "tidy": ([PYTHON, str(ROOT / "examples" / "tidy_agent.py")], [1]),
}


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    return run_all(TARGETS, SLOW_START)


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_the_example_passes(runs: dict[str, Run], name: str) -> None:
    run = runs[name]
    assert not run.notes, run.notes  # each version was spoken, nothing was cut short
    expected = REFUSED_BATCH if 2 in TARGETS[name][1] else set()
    assert findings(run) == expected, [r for r in run.results if r.outcome != PASS]
    assert {r.version for r in run.results} == set(TARGETS[name][1])


def test_a_slow_turn_is_cancelled_on_both_versions(runs: dict[str, Run]) -> None:
    cancels = [r for r in runs["echo --delay"].results if r.check == "cancel.cancelled"]
    assert [(r.version, r.outcome) for r in cancels] == [(1, PASS), (2, PASS)]
    # without the delay the turn is over before a cancel can land: not exercised, never a pass
    assert "cancel.cancelled" in not_exercised(runs["echo"])
