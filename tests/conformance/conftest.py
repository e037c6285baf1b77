"""The conformance plugin: `@pytest.mark.requirement("ACP-V1-...")` ties a test to a requirement.

`pytest tests/conformance --conformance-report CONFORMANCE.md` (what `make conformance` runs)
writes the table of every requirement with the tests that prove it, and fails the run when a test
names an unknown requirement, an sdk or shared row has no test, or a MUST / MUST NOT row fails.

A row's status says how much its tests prove:
- `tested`: a test would fail if the library broke the behaviour;
- `carried`: the behaviour is the application's and the library only passes it through; every
  test of the row says so with `@requirement(..., carried="what the library does")`;
- `gap`: part of the row is not met, and says why: a test of the row is an expected failure
  (`xfail`), or one says `@requirement(..., gap="what is missing")` while testing what is true.
A marker may add `note="..."` to say how the row is read (shown after the status).
"""

from __future__ import annotations

import os
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from ..support.packages import FIXTURES, generated_package
from .requirements import FILE_V2, KEYWORDS, Requirement, load

REQUIREMENTS = load()
REQUIREMENTS_V2 = load(FILE_V2)
BY_ID = {r.id: r for r in REQUIREMENTS + REQUIREMENTS_V2}
HARD = ("MUST", "MUST NOT")
STATUSES = ("tested", "carried", "gap", "fail", "missing", "not the library's")
MARK_KEYS = ("carried", "gap", "note")

# id -> (test, outcome, reason, marker kwargs)
_results: dict[str, list[tuple[str, str, str, tuple[tuple[str, str], ...]]]] = defaultdict(list)
_unknown: list[str] = []


# The requirements describe v1 as of its stable schema with session/delete, stable elicitation and
# ToolCall.name; the newest publication, @agentclientprotocol/sdk 2.4.0, ships it (and the default
# schema/schema.json is its unstable companion). Rows about unstable methods use that one.
STABLE_SCHEMA = FIXTURES / "schemas" / "ts-sdk-2.4.0-v1-stable.json"
UNSTABLE_SCHEMA = FIXTURES / "schemas" / "ts-sdk-2.4.0-v1-unstable.json"


def _packages_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the packages are generated: this run's temporary directory, or the directory named by
    ACPGEN_TEST_PACKAGES, which keeps them from one run to the next (the mutation check uses it)."""
    kept = os.environ.get("ACPGEN_TEST_PACKAGES")
    return Path(kept) if kept else tmp_path_factory.getbasetemp() / "conformance-packages"


@pytest.fixture(scope="session")
def acp_v1(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The package generated from the stable v1 schema the requirements describe."""
    return generated_package(STABLE_SCHEMA, _packages_root(tmp_path_factory))


@pytest.fixture(scope="session")
def acp_v1_unstable(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The package generated from the unstable v1 schema, for rows about unstable methods."""
    return generated_package(UNSTABLE_SCHEMA, _packages_root(tmp_path_factory))


@pytest.fixture(scope="session")
def acp_default() -> Any:
    """The committed default package (schema/schema.json), for rows that apply to it too."""
    import acp_schema

    return acp_schema


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--conformance-report", default=None, help="write the conformance table here (markdown)"
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "requirement(*ids, carried=None, gap=None, note=None): the ACP v1 / v2 requirements this"
        " test proves",
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for mark in item.iter_markers("requirement"):
            for rid in mark.args:
                if rid not in BY_ID:
                    _unknown.append(f"{item.nodeid}: {rid}")
            for key in set(mark.kwargs) - set(MARK_KEYS):
                _unknown.append(f"{item.nodeid}: requirement marker keyword {key!r}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    outcome = yield
    report = outcome.get_result()
    marks = [
        (rid, tuple(sorted(mark.kwargs.items())))
        for mark in item.iter_markers("requirement")
        for rid in mark.args
    ]
    if not marks:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        xfail = hasattr(report, "wasxfail")
        status = (
            "xfail" if xfail else "pass" if report.passed else "skip" if report.skipped else "fail"
        )
        reason = report.wasxfail if xfail else ""
        if report.failed:
            reason = str(
                getattr(report.longrepr, "reprcrash", None)
                and report.longrepr.reprcrash.message
                or report.longrepr
            ).splitlines()[0][:160]
        test = item.nodeid.split("::", 1)[-1].split("[")[0]
        module = Path(item.nodeid.split("::", 1)[0]).name
        # a test of another module run here again (test_docs_v2_core.traced): named where it is
        name = getattr(getattr(item, "obj", None), "__traced_from__", f"{module}::{test}")
        for rid, kwargs in marks:
            _results[rid].append((name, status, reason, kwargs))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = session.config.getoption("--conformance-report")
    if not path:
        return
    problems = [f"unknown requirement id in {u}" for u in _unknown]
    sections = []
    for requirements in (REQUIREMENTS, REQUIREMENTS_V2):
        rows = []
        totals: dict[str, dict[str, int]] = {k: defaultdict(int) for k in KEYWORDS}
        for r in requirements:
            status, tests, why = status_of(r, _results.get(r.id, []))
            totals[r.keyword][status] += 1
            if r.responsibility != "application" and not _results.get(r.id):
                problems.append(f"{r.id} ({r.responsibility}) has no test")
            if status == "fail" and r.keyword in HARD:
                problems.append(f"{r.id} ({r.keyword}) fails: {why}")
            cells = (r.number, r.id, r.keyword, r.role, r.responsibility)
            shown = f"{status}: {why}" if why else status
            rows.append("| " + " | ".join(map(str, cells)) + f" | {shown} | {tests} |")
        sections.append((totals, rows))
    (v1_totals, v1_rows), (v2_totals, v2_rows) = sections
    document = _document(v1_totals, v1_rows) + _document_v2(v2_totals, v2_rows)
    Path(path).write_text(document, encoding="utf-8")
    if problems:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line("conformance problems:", red=True)
            for p in problems:
                reporter.write_line(f"  {p}", red=True)


def status_of(
    r: Requirement, outcomes: list[tuple[str, str, str, tuple[tuple[str, str], ...]]]
) -> tuple[str, str, str]:
    """(status, tests cell, reason) of a requirement from its tests' (test, outcome, reason, marker
    keywords); outcome is pass, fail, skip or xfail."""
    results = sorted(set(outcomes))
    tests = "<br>".join(f"`{t}`" for t in dict.fromkeys(t for t, *_ in results)) or "—"
    if r.responsibility == "application" and not results:
        return "not the library's", tests, "the application owns it"
    if not results:
        return "missing", tests, ""
    failed = [(t, why) for t, s, why, _ in results if s == "fail"]
    if failed:
        return "fail", tests, _cell(failed[0][1])
    ran = [(s, why, dict(kwargs)) for _, s, why, kwargs in results if s != "skip"]
    if not ran:
        return "missing", tests, "skipped"
    notes = _joined(k.get("note") for _, _, k in ran)
    gaps = _joined([why for s, why, _ in ran if s == "xfail"] + [k.get("gap") for _, _, k in ran])
    if gaps:
        return "gap", tests, _cell(gaps + (f" ({notes})" if notes else ""))
    if all(k.get("carried") for _, _, k in ran):
        return "carried", tests, _cell(_joined(k["carried"] for _, _, k in ran))
    return "tested", tests, _cell(notes)


def _joined(texts: Any) -> str:
    return "; ".join(dict.fromkeys(t for t in texts if t))


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _document(totals: dict[str, dict[str, int]], rows: list[str]) -> str:
    head = [
        "# ACP v1 conformance",
        "",
        "Generated by `make conformance` from the test run: one row per requirement of",
        (
            "`tests/conformance/requirements-v1.md` (a copy of the derived ACP v1 requirements),"
            " with the tests"
        ),
        "that prove it. Statuses:",
        "",
        "- **tested**: the library meets the row, and its tests fail when the library breaks it",
        "  (`make mutation` plants such breaks and checks that they do);",
        "- **carried**: the behaviour is the application's; the library only carries it (passes it",
        "  through unchanged, or lets a handler do it), which is what the tests prove;",
        (
            "- **gap**: the library does not meet the row, or meets only part of it; the reason"
            " follows;"
        ),
        "- **fail** / **missing**: a test of the row fails / the row has no test;",
        "- **not the library's**: the requirements table makes the row the application's alone.",
        "",
        "| keyword | " + " | ".join(STATUSES) + " |",
        "|---|" + "---|" * len(STATUSES),
    ]
    return "\n".join(head + _table(totals, rows)) + "\n"


def _table(totals: dict[str, dict[str, int]], rows: list[str]) -> list[str]:
    lines = []
    for k in KEYWORDS:
        if any(totals[k].values()) or k in HARD:
            lines.append(
                f"| {k} | " + " | ".join(str(totals[k].get(s, 0)) for s in STATUSES) + " |"
            )
    return lines + [
        "",
        "| # | ID | Keyword | Role | Responsibility | Status | Tests |",
        "|---|---|---|---|---|---|---|",
        *rows,
    ]


def _document_v2(totals: dict[str, dict[str, int]], rows: list[str]) -> str:
    head = [
        "",
        "## ACP v2",
        "",
        "The MUST and MUST NOT statements of the ACP v2 docs (`docs/protocol/v2/`) that the",
        "library carries, one row each in `tests/conformance/requirements-v2.md` (derived for",
        "this table, in the v1 table's shape; only rows with a test are listed), with the tests",
        "that prove them on a v2 connection. The statuses are the v1 table's.",
        "",
        "| keyword | " + " | ".join(STATUSES) + " |",
        "|---|" + "---|" * len(STATUSES),
    ]
    return "\n".join(head + _table(totals, rows)) + "\n"
