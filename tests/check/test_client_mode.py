"""`acpgen check --client`: the checker as the agent a client spawns. The zoo of broken clients
(tests/check/zoo_clients/, base.py with one method overridden) is caught one for one; the
project's example client (v1 and v2) and the official Python SDK 0.12.1's example client pass."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from acpgen.check.client_mode import CLIENT_CHECKS, UNADVERTISED, run_client_checks
from acpgen.check.model import PASS, Run
from acpgen.check.runner import selector
from acpgen.check.schemas import default_package
from acpgen.cli import main

from .runs import HERE, PYTHON, ROOT, SLOW_START, TIMEOUT, findings, not_exercised

ZOO = HERE / "zoo_clients"
BREAKS = {
    "session_before_initialize": "ACP-V1-INIT-CLIENT-INITIALIZE-FIRST",
    "loads_unadvertised": "ACP-V1-SETUP-CLIENT-NO-LOAD-WITHOUT-CAPABILITY",
    "ext_null": "ACP-V1-EXT-UNKNOWN-METHOD-NOT-FOUND",
    "ignores_permission": "ACP-V1-JSONRPC-RESPONSE-REQUIRED",
    "numeric_ids": "ACP-V1-JSONRPC-RESPONSE-ID-ECHO",
    "notification_reply": "ACP-V1-JSONRPC-NO-REPLY-TO-NOTIFICATION",
    "untyped_block": "ACP-V1-SCHEMA-PROMPT-SHAPE",
    "banner": "ACP-V1-TRANSPORT-CLIENT-STDIN-ONLY-ACP",
    "prompt_before_session": "ACP-V1-PROMPT-INIT-AND-SETUP-FIRST",
    "mcp_http_unadvertised": "ACP-V1-SETUP-CLIENT-CHECK-MCP-TRANSPORT",
    # v2 clients (base_v2.py): the checker plays the version the client asks for
    "auth_unadvertised_v2": "ACP-V2-AUTH-CLIENT-NO-AUTH-WITHOUT-METHODS",
    "prompt_unknown_session_v2": "ACP-V2-PROMPT-CLIENT-SETUP-FIRST",
}
Target = tuple[list[str], bytes | None, float]  # the command, its stdin, the --timeout
EXAMPLE = [PYTHON, str(ROOT / "examples" / "client.py"), "--prompt", "hi"]
EXAMPLES: dict[str, Target] = {
    "examples/client.py": ([*EXAMPLE, "--", "{agent}"], None, SLOW_START),
    "examples/client.py v2": (
        [*EXAMPLE, "--protocol-version", "2", "--", "{agent}"],
        None,
        SLOW_START,
    ),
    # the SDK's example client reads its prompts on stdin
    "sdk client.py": (
        [PYTHON, str(HERE / "sdk_examples" / "client.py"), "{agent}"],
        b"hi\n",
        SLOW_START,
    ),
}


def _run_all(targets: dict[str, Target]) -> dict[str, Run]:
    async def one(argv: list[str], stdin: bytes | None, timeout: float) -> Run:
        every = selector([], [])
        packages = {1: default_package(1), 2: default_package(2)}
        return await run_client_checks(argv, packages, timeout, every, lambda _: None, stdin)

    async def every() -> list[Run]:
        return list(await asyncio.gather(*(one(*target) for target in targets.values())))

    return dict(zip(targets, asyncio.run(every()), strict=True))


@pytest.fixture(scope="module")
def runs() -> dict[str, Run]:
    zoo: dict[str, Target] = {
        n: ([PYTHON, str(ZOO / f"{n}.py"), "--", "{agent}"], None, TIMEOUT)
        for n in ["base", "base_v2", *BREAKS]
    }
    return _run_all({**zoo, **EXAMPLES})


def test_every_zoo_client_is_listed() -> None:
    assert {p.stem for p in ZOO.glob("*.py")} - {"base", "base_v2"} == set(BREAKS)


@pytest.mark.parametrize("name", ["base", "base_v2", *EXAMPLES])
def test_a_conforming_client_passes_every_check(runs: dict[str, Run], name: str) -> None:
    run = runs[name]
    assert findings(run) == set() and not_exercised(run) == set() and not run.notes
    assert run.versions == [2 if "v2" in name else 1]
    version = run.versions[0]
    played = {c.name for c in CLIENT_CHECKS if c.cites(version)}
    # each is played the version it asks for: client.unsupported-version does not apply
    assert {r.check for r in run.results} == played - {"client.unsupported-version"}
    assert all(r.outcome == PASS for r in run.results)


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_each_broken_client_is_caught_by_its_requirement_alone(
    runs: dict[str, Run], name: str
) -> None:
    found = findings(runs[name])
    assert {rid for _, rid, _ in found} == {BREAKS[name]}, found
    version = runs[name].versions[0]
    assert version == (2 if name.endswith("v2") else 1)
    rows = {c.name: {c.cites(version)} for c in CLIENT_CHECKS}
    rows["client.unadvertised-methods"] |= set(UNADVERTISED[version].values())
    assert all(rid in rows[check] or check == "client.schema-frames" for check, rid, _ in found)


def test_the_client_command_needs_the_placeholder(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--client", "--", sys.executable, str(ZOO / "base.py")]) == 2
    assert "put {agent} in the client's command" in capsys.readouterr().err


def test_client_mode_from_the_command_line(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    argv = ["check", "--client", "--quiet", "--format", "json", "--report", str(report)]
    assert main([*argv, "--", PYTHON, str(ZOO / "numeric_ids.py"), "--", "{agent}"]) == 1
    assert '"check": "client.id-echo"' in report.read_text(encoding="utf-8")


def test_client_mode_plays_each_version_with_both(tmp_path: Path) -> None:
    """examples/client.py asks for 2 and takes 1 when the agent answers 1: `both` plays each."""
    report = tmp_path / "report.json"
    argv = ["check", "--client", "--quiet", "--format", "json", "--report", str(report)]
    argv += ["--protocol-version", "both", "--timeout", str(SLOW_START)]
    assert main([*argv, "--", *EXAMPLE, "--protocol-version", "2", "--", "{agent}"]) == 0
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    assert {(r["version"], r["outcome"]) for r in results} == {(1, PASS), (2, PASS)}
    # v2 is what the client asks for: no client.unsupported-version, and unadvertised-methods
    # twice (auth/login, auth/logout); v1 is answered to its 2
    v2_checks = [c for c in CLIENT_CHECKS if c.cites(2)]
    assert len([r for r in results if r["version"] == 2]) == len(v2_checks)  # -1 +1: see above
    [fell_back] = [r for r in results if r["check"] == "client.unsupported-version"]
    assert fell_back["version"] == 1 and "it went on in v1" in fell_back["detail"]
