"""The four reports of a run: text for a terminal, markdown for a pull request, JSON (with the
wire transcript of every check that did not pass) and JUnit XML for CI."""

from __future__ import annotations

import json
from collections import Counter
from xml.etree import ElementTree as ET

from .model import FAIL, INFO, NOT_EXERCISED, OUTCOMES, PASS, WARN, Result, Run

FORMATS = ("text", "markdown", "json", "junit")
_MARK = {PASS: "ok  ", FAIL: "FAIL", WARN: "warn", INFO: "info", NOT_EXERCISED: "n/e "}


def render(run: Run, fmt: str) -> str:
    return {"text": text, "markdown": markdown, "json": as_json, "junit": junit}[fmt](run)


def _totals(run: Run) -> str:
    return ", ".join(f"{run.count(o)} {o}" for o in OUTCOMES)


def _verdict(run: Run) -> str:
    return run.verdict()


def _by_keyword(run: Run) -> list[str]:
    counts: Counter[tuple[str, str]] = Counter((r.cited.keyword, r.outcome) for r in run.results)
    lines = []
    for keyword in ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"):
        row = {o: counts[(keyword, o)] for o in OUTCOMES if counts[(keyword, o)]}
        if row:
            lines.append(f"  {keyword:<10} " + ", ".join(f"{n} {o}" for o, n in row.items()))
    return lines


def text(run: Run) -> str:
    out = [f"acpgen check: {' '.join(run.target)} (protocol v{', v'.join(map(str, run.versions))})"]
    for r in run.results:
        out.append(
            f"{_MARK[r.outcome]} v{r.version} {r.check:<34} {r.requirement} ({r.cited.keyword})"
        )
        if r.outcome != PASS:
            out.append(f"       {r.detail}")
            if r.outcome in (FAIL, WARN, INFO):
                out.append(f"       {r.cited.source}: {r.cited.text[:160]}")
    out += [f"note: {n}" for n in run.notes]
    out.append("by keyword:")
    out += _by_keyword(run)
    out.append(f"{_totals(run)}: {_verdict(run)}")
    return "\n".join(out) + "\n"


def _cell(value: str) -> str:
    return value.replace("|", "\\|").replace("\n", " ")


def markdown(run: Run) -> str:
    out = [
        f"## acpgen check: `{' '.join(run.target)}`",
        "",
        f"**{_verdict(run)}**: {_totals(run)}.",
        "",
        "| outcome | version | check | requirement | keyword | source | detail |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in run.results:
        out.append(
            f"| {r.outcome} | v{r.version} | `{r.check}` | {r.requirement} | {r.cited.keyword}"
            f" | {r.cited.source} | {_cell(r.detail)} |"
        )
    if run.notes:
        out += ["", *[f"- {n}" for n in run.notes]]
    failed = [r for r in run.results if r.outcome in (FAIL, WARN)]
    for r in failed:
        out += ["", f"<details><summary>{r.check} (v{r.version}): wire</summary>", "", "```"]
        out += r.evidence
        out += ["```", "</details>"]
    return "\n".join(out) + "\n"


def _result(r: Result) -> dict[str, object]:
    return {
        "check": r.check,
        "group": r.group,
        "version": r.version,
        "requirement": r.requirement,
        "keyword": r.cited.keyword,
        "source": r.cited.source,
        "text": r.cited.text,
        "outcome": r.outcome,
        "detail": r.detail,
        "transcript": r.evidence,
    }


def as_json(run: Run) -> str:
    body = {
        "target": run.target,
        "versions": run.versions,
        "failed": run.failed,
        "verdict": run.verdict(),
        "blocked_by_authentication": run.blocked_by_auth,
        "exit_status": run.exit_status,
        "counts": {o: run.count(o) for o in OUTCOMES},
        "notes": run.notes,
        "results": [_result(r) for r in run.results],
    }
    return json.dumps(body, indent=2, ensure_ascii=False) + "\n"


def junit(run: Run) -> str:
    suites = ET.Element("testsuites", name="acpgen check")
    for version in run.versions:
        results = [r for r in run.results if r.version == version]
        suite = ET.SubElement(
            suites,
            "testsuite",
            name=f"ACP v{version}: {' '.join(run.target)}",
            tests=str(len(results)),
            failures=str(sum(r.outcome == FAIL for r in results)),
            skipped=str(sum(r.outcome == NOT_EXERCISED for r in results)),
        )
        for r in results:
            case = ET.SubElement(
                suite,
                "testcase",
                classname=f"v{version}.{r.group}",
                name=f"{r.check} [{r.requirement}]",
            )
            body = f"{r.detail}\n{r.cited.source}: {r.cited.text}\n" + "\n".join(r.evidence)
            if r.outcome == FAIL:
                ET.SubElement(case, "failure", message=r.detail).text = body
            elif r.outcome == NOT_EXERCISED:
                ET.SubElement(case, "skipped", message=r.detail)
            elif r.outcome in (WARN, INFO):
                ET.SubElement(case, "system-out").text = f"{r.outcome}: {body}"
    ET.indent(suites)
    return ET.tostring(suites, encoding="unicode", xml_declaration=True) + "\n"
