"""`acpgen check --url`: the agent checks over WebSocket (ws://) and Streamable HTTP (http://),
against the echo example serving remote clients (`--listen`, the runtime's Streamable HTTP +
WebSocket server)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest

from acpgen.check.model import PASS, Run
from acpgen.check.runner import run_agent_checks, selector
from acpgen.check.schemas import default_package
from acpgen.cli import main

from .runs import HERE, PYTHON, REFUSED_BATCH, ROOT, SLOW_START, findings, serving


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    command = [PYTHON, str(ROOT / "examples" / "echo_agent.py"), "--delay", "1.0"]
    with serving([*command, "--listen", "127.0.0.1:0"]) as served:
        yield served


@pytest.mark.parametrize("scheme", ["ws", "http"])
def test_the_echo_example_passes_remotely(url: str, scheme: str) -> None:
    target = scheme + url.removeprefix("http")
    packages = {1: default_package(1), 2: default_package(2)}
    run: Run = asyncio.run(
        run_agent_checks([], packages, [1, 2], SLOW_START, selector([], []), lambda _: None, target)
    )
    assert findings(run) == REFUSED_BATCH
    assert run.notes == [f"v{v}: the stdio checks do not apply to --url" for v in (1, 2)]
    assert not any(r.group == "stdio" for r in run.results)
    drops = [(r.version, r.outcome) for r in run.results if r.check == "remote.drop-mid-turn"]
    assert drops == [(1, PASS), (2, PASS)]
    cancels = [(r.version, r.outcome) for r in run.results if r.check == "cancel.cancelled"]
    assert cancels == [(1, PASS), (2, PASS)]


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--url", "http://127.0.0.1:9/acp"], "cannot connect to http://127.0.0.1:9/acp"),
        (["--url", "ws://127.0.0.1:9/acp", "--", "agent"], "give no command"),
        (["--url", "127.0.0.1:9"], "give an http://, https:// (Streamable HTTP), ws://"),
        (["--url", "ws://127.0.0.1:9/acp"], "cannot connect to ws://127.0.0.1:9/acp"),
    ],
)
def test_url_usage(capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    assert main(["check", "--quiet", "--timeout", "5", *argv]) == 2
    assert says in capsys.readouterr().err


def test_sse_events_are_joined_and_comments_skipped() -> None:
    from acpgen.check.http_link import sse_events

    async def chunks() -> AsyncIterator[bytes]:
        for chunk in (b': keepalive\n\ndata: {"a"', b":1}\r\n\r\ndata: [1,\ndata: 2]\n", b"\n"):
            yield chunk
        yield b"event: x\ndata:{}"

    async def events() -> list[bytes]:
        return [event async for event in sse_events(chunks())]

    assert asyncio.run(events()) == [b'{"a":1}', b"[1,\n2]"]  # the last one is not finished


@pytest.mark.parametrize("scheme", ["ws", "http"])
def test_a_server_dying_when_a_client_drops_mid_turn_is_caught(scheme: str) -> None:
    """zoo_remote/dies_on_drop.py: the echo example, exiting when a turn's connection goes."""
    server = [PYTHON, str(HERE / "zoo_remote" / "dies_on_drop.py")]
    with serving(server) as served:
        target = scheme + served.removeprefix("http")
        packages = {1: default_package(1), 2: default_package(2)}
        run: Run = asyncio.run(
            run_agent_checks(
                [], packages, [1], SLOW_START, selector([], []), lambda _: None, target
            )
        )
    drop = "remote.drop-mid-turn"
    assert findings(run) == {(drop, "ACPGEN-REMOTE-DROP-SURVIVES", "info")}


@pytest.fixture(scope="module")
def guarded() -> Iterator[str]:
    command = [PYTHON, str(ROOT / "examples" / "echo_agent.py"), "--listen", "127.0.0.1:0"]
    with serving([*command, "--token", "s3cret"]) as served:
        yield served


@pytest.mark.parametrize("scheme", ["ws", "http"])
def test_a_refused_connection_is_exit_2_on_both_transports(
    guarded: str, scheme: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """No token, or a wrong one: the same refusal, the same exit status and line, whichever
    transport (WebSocket was exit 2, HTTP exit 1 with a hint to pass --protocol-version)."""
    target = scheme + guarded.removeprefix("http")
    for extra in ([], ["--token", "wrong"]):
        assert main(["check", "--quiet", "--timeout", "5", "--url", target, *extra]) == 2
        err = capsys.readouterr().err
        assert f"acpgen check: {target}: the server refused the connection (HTTP 401" in err
        assert "give credentials with --token TOKEN or --header NAME:VALUE" in err
        assert "--protocol-version" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("scheme", ["ws", "http"])
@pytest.mark.parametrize("how", ["--token", "--header"])
def test_credentials_reach_the_agent(guarded: str, scheme: str, how: str) -> None:
    target = scheme + guarded.removeprefix("http")
    given = (
        ["--token", "s3cret"] if how == "--token" else ["--header", "Authorization: Bearer s3cret"]
    )
    argv = ["check", "--quiet", "--timeout", str(SLOW_START), "--only", "init", "--url", target]
    assert main([*argv, *given]) == 0


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--header", "X-Key: 1", "--", "agent"], "--header and --token go with --url"),
        (["--url", "ws://127.0.0.1:9/acp", "--header", "no-colon"], "give NAME:VALUE"),
        (["--url", "ws://127.0.0.1:9/acp", "--header", "bad name: 1"], "give NAME:VALUE"),
    ],
)
def test_header_usage(capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    assert main(["check", "--quiet", *argv]) == 2
    assert says in capsys.readouterr().err
