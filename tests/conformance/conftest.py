"""The conformance plugin: `@pytest.mark.requirement("ACP-V1-...")` ties a test to a requirement.

`pytest tests/conformance --conformance-report CONFORMANCE.md` (what `make conformance` runs)
writes the table of every requirement with the tests that prove it, and fails the run when a test
names an unknown requirement, an sdk or shared row has no test, or a MUST / MUST NOT row fails.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from ..support.packages import FIXTURES, generated_package
from .requirements import KEYWORDS, Requirement, load

REQUIREMENTS = load()
BY_ID = {r.id: r for r in REQUIREMENTS}
HARD = ("MUST", "MUST NOT")

_results: dict[str, list[tuple[str, str, str]]] = defaultdict(list)  # id -> (test, outcome, reason)
_unknown: list[str] = []


# The requirements describe v1 as of v1-stable-2026-08-20 (session/delete, stable elicitation);
# rows about unstable methods use the unstable schema of the next day.
STABLE_SCHEMA = FIXTURES / "schemas" / "v1-stable-2026-08-20.json"
UNSTABLE_SCHEMA = FIXTURES / "schemas" / "v1-unstable-2026-08-21.json"


@pytest.fixture(scope="session")
def acp_v1(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The package generated from the stable v1 schema the requirements describe."""
    return generated_package(STABLE_SCHEMA, tmp_path_factory.getbasetemp() / "conformance-packages")


@pytest.fixture(scope="session")
def acp_v1_unstable(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The package generated from the unstable v1 schema, for rows about unstable methods."""
    return generated_package(UNSTABLE_SCHEMA, tmp_path_factory.getbasetemp() / "conformance-packages")


@pytest.fixture(scope="session")
def acp_default() -> Any:
    """The committed default package (schema/schema.json), for rows that apply to it too."""
    import acp_schema

    return acp_schema


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--conformance-report", default=None, help="write the conformance table here (markdown)")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "requirement(id): the ACP v1 requirement this test proves")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for mark in item.iter_markers("requirement"):
            for rid in mark.args:
                if rid not in BY_ID:
                    _unknown.append(f"{item.nodeid}: {rid}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Any:
    outcome = yield
    report = outcome.get_result()
    ids = [rid for mark in item.iter_markers("requirement") for rid in mark.args]
    if not ids:
        return
    if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
        xfail = hasattr(report, "wasxfail")
        status = "xfail" if xfail else "pass" if report.passed else "skip" if report.skipped else "fail"
        reason = report.wasxfail if xfail else ""
        if report.failed:
            reason = str(getattr(report.longrepr, "reprcrash", None) and report.longrepr.reprcrash.message or report.longrepr).splitlines()[0][:160]
        test = item.nodeid.split("::", 1)[-1].split("[")[0]
        module = Path(item.nodeid.split("::", 1)[0]).name
        for rid in ids:
            _results[rid].append((f"{module}::{test}", status, reason))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    path = session.config.getoption("--conformance-report")
    if not path:
        return
    problems = [f"unknown requirement id in {u}" for u in _unknown]
    rows = []
    totals: dict[str, dict[str, int]] = {k: defaultdict(int) for k in KEYWORDS}
    for r in REQUIREMENTS:
        status, tests, why = _status(r)
        totals[r.keyword][status] += 1
        if r.responsibility != "application" and not _results.get(r.id):
            problems.append(f"{r.id} ({r.responsibility}) has no test")
        if status == "fail" and r.keyword in HARD:
            problems.append(f"{r.id} ({r.keyword}) fails: {why}")
        rows.append(f"| {r.number} | {r.id} | {r.keyword} | {r.role} | {r.responsibility} | {status}{(': ' + why) if why else ''} | {tests} |")
    Path(path).write_text(_document(totals, rows), encoding="utf-8")
    if problems:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_line("conformance problems:", red=True)
            for p in problems:
                reporter.write_line(f"  {p}", red=True)


def _status(r: Requirement) -> tuple[str, str, str]:
    results = sorted(set(_results.get(r.id, [])))
    tests = "<br>".join(f"`{t}`" for t in dict.fromkeys(t for t, _, _ in results)) or "—"
    if r.responsibility == "application" and not results:
        return "not the library's", tests, "the application owns it"
    if not results:
        return "missing", tests, ""
    failed = [(t, why) for t, s, why in results if s == "fail"]
    if failed:
        return "fail", tests, failed[0][1].replace("|", "\\|")
    if all(s in ("skip", "xfail") for _, s, _ in results):
        return "missing", tests, "skipped or known to fail"
    gaps = sorted({why for _, s, why in results if s == "xfail"})
    return "pass", tests, ("known gap: " + "; ".join(gaps).replace("|", "\\|")) if gaps else ""


def _document(totals: dict[str, dict[str, int]], rows: list[str]) -> str:
    statuses = ("pass", "fail", "missing", "not the library's")
    head = [
        "# ACP v1 conformance",
        "",
        "Generated by `make conformance` from the test run: one row per requirement of",
        "`tests/conformance/requirements-v1.md` (a copy of the derived ACP v1 requirements), with the tests",
        "that prove it. Rows whose responsibility is `application` are the application's to meet.",
        "",
        "| keyword | " + " | ".join(statuses) + " |",
        "|---|" + "---|" * len(statuses),
    ]
    for k in KEYWORDS:
        head.append(f"| {k} | " + " | ".join(str(totals[k].get(s, 0)) for s in statuses) + " |")
    head += ["", "| # | ID | Keyword | Role | Responsibility | Status | Tests |", "|---|---|---|---|---|---|---|"]
    return "\n".join(head + rows) + "\n"
