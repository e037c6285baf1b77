"""One hand-made schema pair per rule (tests/diff/cases/): each proves the rule fires on that edit,
with its severity for both roles, and that nothing else is reported.

In the cases, `Thing` travels in the params of `thing/send`, a request the agent receives: the
client sends it and the agent receives it, so `client` is the rule's sender level and `agent` its
receiver level (the direction cases move it into the result, or both ways).
"""

from __future__ import annotations

import pytest

from acpgen.diff import diff_revisions
from acpgen.diff.rules import RULES
from tests.diff.helpers import case, case_names, case_revisions


@pytest.mark.parametrize("name", case_names())
def test_case_reports_exactly_its_expected_changes(name: str) -> None:
    report = diff_revisions(*case_revisions(name))
    got = sorted(
        (c.rule, c.subject, c.severity.agent.value, c.severity.client.value) for c in report.changes
    )
    want = sorted((e["rule"], e["subject"], e["agent"], e["client"]) for e in case(name)["expect"])
    assert got == want, case(name)["about"]
    assert report.descriptions_changed == case(name)["descriptions_changed"]


def test_every_rule_has_a_case_named_after_it() -> None:
    assert set(RULES) <= set(case_names())


@pytest.mark.parametrize("rule_id", sorted(RULES))
def test_a_rule_case_shows_the_rule_levels_for_sender_and_receiver(rule_id: str) -> None:
    """In a rule's own case the client sends and the agent receives (methods: the client calls)."""
    rule = RULES[rule_id]
    expected = [e for e in case(rule_id)["expect"] if e["rule"] == rule_id]
    assert expected, f"the case {rule_id}.json does not expect its own rule"
    for e in expected:
        assert (e["client"], e["agent"]) == (rule.sender.value, rule.receiver.value)
