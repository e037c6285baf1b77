"""Transports (requirements 170-179): stdio over real subprocess pipes, and a custom one (TCP).

The agents here are small scripts run with `python -c` against the v1 package (`PYTHONPATH` points
at where the test run generated it): `ECHO_AGENT` is a runtime agent that also makes noise on its
stdout and stderr; `RECORDING_AGENT` is a bare script that writes down every line it reads.
"""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from acp_runtime import AgentSideConnection, ClientSideConnection, ProtocolError, spawn_agent
from tests.runtime.bounded import within

from .docs_peers import eventually
from .sides import PYTHON, ROOT, Agent, Client, initialize_params, package_path, typed

pytest_plugins = ("tests.runtime.aio",)
requirement = pytest.mark.requirement

ECHO_AGENT = """
import logging, os, subprocess, sys
import {package} as acp
from acp_runtime import run_agent, wire

print("noise: print at import", file=sys.stderr)

def build(method, data, result=False):
    info = acp.METHODS[method]
    return wire.build(acp, data, info.result if result else info.params)

class Echo:
    def __init__(self, conn):
        self.conn = conn

    async def initialize(self, params):
        print("noise: print in a handler")
        print("log: to stderr, UTF-8: é中😀", file=sys.stderr)
        logging.basicConfig(stream=sys.stdout, level=logging.INFO, force=True)
        logging.info("noise: logging to sys.stdout")
        os.write(1, b"noise: os.write to fd 1\\n")
        subprocess.run(["echo", "noise: a child process"], check=True)
        sys.stdout.write("noise: no newline")
        return build("initialize", {{"protocolVersion": 1, "agentCapabilities": {{}}}}, True)

    async def session_new(self, params):
        logging.getLogger("echo").warning("log: session/new")
        return build("session/new", {{"sessionId": "s1"}}, True)

    async def session_prompt(self, params):
        for block in params.prompt:
            content = {{"type": "text", "text": block.text}}
            update = {{"sessionUpdate": "agent_message_chunk", "content": content}}
            note = build("session/update", {{"sessionId": params.session_id, "update": update}})
            await self.conn.client.session_update(note)
        return build("session/prompt", {{"stopReason": "end_turn"}}, True)

    async def ext_method(self, method, params):
        return params

run_agent(Echo, schema=acp)
"""

RECORDING_AGENT = """
import json, sys
import {package} as acp

RESULTS = {{
    "initialize": {{"protocolVersion": 1, "agentCapabilities": {{}}}},
    "session/new": {{"sessionId": "s1"}},
    "session/prompt": {{"stopReason": "end_turn"}},
}}
with open(sys.argv[1], "wb") as record:
    for line in sys.stdin.buffer:
        record.write(line)
        record.flush()
        message = acp.decode_message(line.rstrip(b"\\n"), "agent")
        if isinstance(message, acp.Request):
            result = RESULTS.get(message.method, {{}})
            answer = {{"jsonrpc": "2.0", "id": message.id, "result": result}}
            sys.stdout.write(json.dumps(answer) + "\\n")
            sys.stdout.flush()
"""

TEXTS = [
    "first line\nsecond line\r\nthird",
    "é中😀 \u2028 \u2029 \x00 tab\t",
    '{"looks": "like json"}\n',
]


def env_for(pkg: Any) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    env["PYTHONPATH"] = os.pathsep.join([package_path(pkg), env.get("PYTHONPATH", "")])
    return env


def script(template: str, pkg: Any) -> str:
    return template.format(package=pkg.__name__)


def line(message: Any) -> bytes:
    return json.dumps(message, ensure_ascii=False).encode() + b"\n"


def conversation(pkg: Any) -> bytes:
    """What a client sends ECHO_AGENT: initialize, session/new, a prompt with awkward text."""
    prompt = {"sessionId": "s1", "prompt": [{"type": "text", "text": t} for t in TEXTS]}
    return b"".join(
        line({"jsonrpc": "2.0", "id": n, "method": method, "params": params})
        for n, (method, params) in enumerate(
            [
                ("initialize", {"protocolVersion": 1}),
                ("session/new", {"cwd": "/w", "mcpServers": []}),
                ("session/prompt", prompt),
            ]
        )
    )


async def run_echo_agent(pkg: Any, stdin: bytes) -> tuple[bytes, bytes, int]:
    process = await asyncio.create_subprocess_exec(
        PYTHON,
        "-c",
        script(ECHO_AGENT, pkg),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env_for(pkg),
    )
    out, err = await process.communicate(stdin)
    return out, err, process.returncode or 0


# --- 170: UTF-8 -----------------------------------------------------------------------------------


@requirement("ACP-V1-TRANSPORT-UTF8")
async def test_an_agent_writes_its_messages_in_utf8(acp_v1: Any) -> None:
    out, err, code = await run_echo_agent(acp_v1, conversation(acp_v1))
    assert code == 0
    out.decode("utf-8", errors="strict")
    assert "é中😀".encode() in out  # as UTF-8 bytes
    texts = [
        json.loads(x)["params"]["update"]["content"]["text"]
        for x in out.splitlines()
        if b"session/update" in x
    ]
    assert texts == TEXTS


@requirement("ACP-V1-TRANSPORT-UTF8")
async def test_a_message_that_is_not_utf8_is_refused_as_a_parse_error(acp_v1: Any) -> None:
    bad = (
        b'{"jsonrpc": "2.0", "id": 7, "method": "_echo", "params": {"t": "\xff\xfe latin-1:'
        b' \xe9"}}\n'
    )
    latin1 = '{"jsonrpc": "2.0", "id": 8, "method": "_echo", "params": {"t": "é"}}\n'.encode(
        "latin-1"
    )
    out, err, code = await run_echo_agent(acp_v1, conversation(acp_v1) + bad + latin1)
    errors = [json.loads(x) for x in out.splitlines() if b'"error"' in x]
    assert [(e["id"], e["error"]["code"]) for e in errors] == [(None, -32700), (None, -32700)]
    assert [json.loads(x)["id"] for x in out.splitlines() if b'"result"' in x] == [0, 1, 2]


# --- 171, 172: stdio, one message per line --------------------------------------------------------


@requirement("ACP-V1-TRANSPORT-STDIO-SHOULD")
async def test_a_client_and_an_agent_speak_acp_over_stdio(acp_v1: Any) -> None:
    client = Client()
    async with spawn_agent(
        client,
        PYTHON,
        "-c",
        script(ECHO_AGENT, acp_v1),
        env=env_for(acp_v1),
        stderr=asyncio.subprocess.DEVNULL,
        schema=acp_v1,
    ) as conn:
        await conn.agent.initialize(initialize_params(acp_v1))
        await conn.agent.session_new(typed(acp_v1, "session/new", {"cwd": "/w", "mcpServers": []}))
        prompt = typed(
            acp_v1,
            "session/prompt",
            {"sessionId": "s1", "prompt": [{"type": "text", "text": t} for t in TEXTS]},
        )
        answer = await conn.agent.session_prompt(prompt)
        assert answer.stop_reason.value == "end_turn"
        assert [p.update.content.text for m, p in client.seen] == TEXTS
        assert await conn.request("_echo", {"é": [1, None]}) == {"é": [1, None]}


@requirement("ACP-V1-TRANSPORT-STDIO-NEWLINE-DELIMITED")
async def test_messages_are_written_one_per_line_with_no_newline_inside(acp_v1: Any) -> None:
    out, err, code = await run_echo_agent(acp_v1, conversation(acp_v1))
    assert out.endswith(b"\n") and b"\r" not in out
    messages = [json.loads(x) for x in out.split(b"\n")[:-1]]  # each line is a whole message
    assert [m.get("id", m.get("method")) for m in messages] == [
        0,
        1,
        *["session/update"] * len(TEXTS),
        2,
    ]


@requirement("ACP-V1-TRANSPORT-STDIO-NEWLINE-DELIMITED")
async def test_messages_are_read_by_newline_whatever_the_pipe_chunks(acp_v1: Any) -> None:
    process = await asyncio.create_subprocess_exec(
        PYTHON,
        "-c",
        script(ECHO_AGENT, acp_v1),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
        env=env_for(acp_v1),
    )
    data = conversation(acp_v1) + line(
        {"jsonrpc": "2.0", "id": 3, "method": "_echo", "params": {"x": "a\nb"}}
    )
    for start in range(0, len(data), 7):  # in pieces that cut through messages
        process.stdin.write(data[start : start + 7])
        await process.stdin.drain()
    process.stdin.close()
    out = await process.stdout.read()
    await process.wait()
    answers = [json.loads(x) for x in out.splitlines()]
    assert answers[-1] == {"jsonrpc": "2.0", "id": 3, "result": {"x": "a\nb"}}


# --- 173-176: stderr, stdout and stdin ------------------------------------------------------------


@requirement("ACP-V1-TRANSPORT-AGENT-STDERR-MAY")
async def test_an_agent_may_log_to_its_stderr(acp_v1: Any) -> None:
    out, err, code = await run_echo_agent(acp_v1, conversation(acp_v1))
    text = err.decode("utf-8")
    assert "log: to stderr, UTF-8: é中😀" in text and "log: session/new" in text
    assert [json.loads(x)["id"] for x in out.splitlines() if b'"result"' in x] == [0, 1, 2]


@requirement("ACP-V1-TRANSPORT-CLIENT-STDERR-MAY")
async def test_a_client_may_capture_forward_or_ignore_the_agents_stderr(
    acp_v1: Any, capfd: Any
) -> None:
    for stderr in (asyncio.subprocess.PIPE, None, asyncio.subprocess.DEVNULL):
        async with spawn_agent(
            Client(),
            PYTHON,
            "-c",
            script(ECHO_AGENT, acp_v1),
            env=env_for(acp_v1),
            stderr=stderr,
            schema=acp_v1,
        ) as conn:
            await conn.agent.initialize(initialize_params(acp_v1))
            await conn.agent.session_new(
                typed(acp_v1, "session/new", {"cwd": "/w", "mcpServers": []})
            )
            if stderr == asyncio.subprocess.PIPE:  # the stderr pipe is read by a task of its own
                await eventually(
                    lambda: b"log: session/new" in conn.stderr_tail,
                    "the agent's stderr line never reached stderr_tail",
                )
            captured = getattr(conn, "stderr_tail", b"")
        forwarded = capfd.readouterr().err
        if stderr == asyncio.subprocess.PIPE:  # captured
            assert "log: session/new".encode() in captured and "log: session/new" not in forwarded
        elif stderr is None:  # forwarded to the client's own stderr
            assert "log: session/new" in forwarded and captured == b""
        else:  # ignored
            assert "log: session/new" not in forwarded and captured == b""


@requirement("ACP-V1-TRANSPORT-AGENT-STDOUT-ONLY-ACP")
async def test_nothing_but_acp_messages_reaches_the_agents_stdout(acp_v1: Any) -> None:
    out, err, code = await run_echo_agent(acp_v1, conversation(acp_v1))
    assert code == 0 and out.endswith(b"\n")
    for raw in out.splitlines():
        acp_v1.decode_message(raw, "client")  # raises on anything that is not a valid message
    for noise in (
        b"print in a handler",
        b"logging to sys.stdout",
        b"os.write to fd 1",
        b"a child process",
        b"no newline",
    ):
        assert noise not in out and noise in err, noise


@requirement("ACP-V1-TRANSPORT-CLIENT-STDIN-ONLY-ACP")
async def test_nothing_but_acp_messages_reaches_the_agents_stdin(
    acp_v1: Any, tmp_path: Path
) -> None:
    record = tmp_path / "stdin.jsonl"
    async with spawn_agent(
        Client(),
        PYTHON,
        "-c",
        script(RECORDING_AGENT, acp_v1),
        str(record),
        env=env_for(acp_v1),
        schema=acp_v1,
    ) as conn:
        await conn.agent.initialize(initialize_params(acp_v1))
        await conn.agent.session_new(typed(acp_v1, "session/new", {"cwd": "/w", "mcpServers": []}))
        prompt = typed(
            acp_v1,
            "session/prompt",
            {"sessionId": "s1", "prompt": [{"type": "text", "text": t} for t in TEXTS]},
        )
        await conn.agent.session_prompt(prompt)
        await conn.request("_ext/call", {"t": TEXTS})
        await conn.notify("_ext/note", [TEXTS[0]])
        await conn.notify("session/cancel", typed(acp_v1, "session/cancel", {"sessionId": "s1"}))
        refused = [
            conn.request("rpc.discover", {}),  # reserved name
            conn.request("_ext/call", "not structured"),  # params neither object nor array
            conn.request(
                "session/new", {"cwd": "/w", "mcpServers": [], "custom": 1}
            ),  # not the schema's shape
            conn.agent.session_load(
                typed(acp_v1, "session/load", {"sessionId": "s1", "cwd": "/w", "mcpServers": []})
            ),
        ]
        for call in refused:
            with pytest.raises(ProtocolError):
                await call
        await conn.request("_ext/last", {})
    data = record.read_bytes()
    assert data.endswith(b"\n") and b"\n\n" not in data
    messages = [acp_v1.decode_message(raw, "agent") for raw in data.split(b"\n")[:-1]]
    assert [m.method for m in messages] == [
        "initialize",
        "session/new",
        "session/prompt",
        "_ext/call",
        "_ext/note",
        "session/cancel",
        "_ext/last",
    ]


# --- 177-179: custom transports -------------------------------------------------------------------


async def tcp_agent(pkg: Any) -> tuple[asyncio.AbstractServer, int, list[AgentSideConnection]]:
    """An ACP agent served over TCP on localhost: one AgentSideConnection per accepted socket."""
    conns: list[AgentSideConnection] = []

    async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conns.append(AgentSideConnection(Agent, reader, writer, schema=pkg))

    server = await asyncio.start_server(accept, "127.0.0.1", 0)
    return server, server.sockets[0].getsockname()[1], conns


@requirement("ACP-V1-TRANSPORT-CUSTOM-MAY")
async def test_the_library_runs_over_a_custom_transport(acp_v1: Any) -> None:
    server, port, agents = await tcp_agent(acp_v1)
    async with server:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        client = ClientSideConnection(Client(), reader, writer, schema=acp_v1)
        await client.agent.initialize(initialize_params(acp_v1))
        await client.agent.session_new(
            typed(acp_v1, "session/new", {"cwd": "/w", "mcpServers": []})
        )
        answer = await client.agent.session_prompt(
            typed(acp_v1, "session/prompt", {"sessionId": "s1", "prompt": []})
        )
        assert answer.stop_reason.value == "end_turn"
        assert await agents[0].request("_ping", {}) == {"pong": True}
        await client.close()
        await within(agents[0].wait_closed(), "the agent's connection did not close")


@requirement("ACP-V1-TRANSPORT-CUSTOM-PRESERVE-FORMAT-AND-LIFECYCLE")
async def test_a_custom_transport_keeps_the_json_rpc_format(acp_v1: Any) -> None:
    server, port, agents = await tcp_agent(acp_v1)
    async with server:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            line(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {"protocolVersion": 1},
                }
            )
        )
        writer.write(line({"jsonrpc": "2.0", "id": "x", "method": "_ping", "params": {}}))
        answers = [json.loads(await reader.readline()) for _ in range(2)]
        assert answers[0]["id"] == 0 and answers[0]["result"]["protocolVersion"] == 1
        assert answers[1] == {"jsonrpc": "2.0", "id": "x", "result": {"pong": True}}
        writer.close()


@requirement("ACP-V1-TRANSPORT-CUSTOM-PRESERVE-FORMAT-AND-LIFECYCLE")
async def test_a_custom_transport_keeps_the_acp_lifecycle(acp_v1: Any) -> None:
    server, port, agents = await tcp_agent(acp_v1)
    async with server:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(
            line(
                {
                    "jsonrpc": "2.0",
                    "id": 1,
                    "method": "session/new",
                    "params": {"cwd": "/w", "mcpServers": []},
                }
            )
        )
        assert (
            json.loads(await reader.readline())["error"]["code"] == -32600
        )  # initialize comes first
        writer.write(
            line(
                {
                    "jsonrpc": "2.0",
                    "id": 2,
                    "method": "initialize",
                    "params": {"protocolVersion": 1},
                }
            )
        )
        assert json.loads(await reader.readline())["result"]["protocolVersion"] == 1
        writer.write(
            line(
                {
                    "jsonrpc": "2.0",
                    "id": 3,
                    "method": "session/new",
                    "params": {"cwd": "/w", "mcpServers": []},
                }
            )
        )
        assert json.loads(await reader.readline())["result"] == {"sessionId": "s1"}
        writer.close()  # the client goes away: the agent's connection closes
        await within(agents[0].wait_closed(), "the agent's connection did not close")


@requirement("ACP-V1-TRANSPORT-CUSTOM-DOCUMENT")
def test_the_runtime_documents_how_to_carry_acp_over_a_custom_transport() -> None:
    """The library documents what any transport must give it (its own docs); the application still
    owes documenting how its own custom transport establishes connections."""
    text = (ROOT / "docs" / "runtime.md").read_text(encoding="utf-8")
    section = text.split("## Custom transports", 1)[1].split("\n## ", 1)[0]
    for needed in (
        "async read(n)",
        "write",
        "drain",
        "newline",
        "UTF-8",
        "initialize",
        "end of input",
        "TCP",
    ):
        assert needed in section, needed
