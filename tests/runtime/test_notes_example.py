"""examples/notes_agent.py through a restart: sessions kept in its sqlite file are listed (cwd
filter, paging), loaded (history replayed before the answer) and resumed (no replay) by a second
process; an unknown session id is -32002 (docs/sessions.md). examples/notes_client.py does the
same, the agent started anew for each of its runs."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgspec
import pytest

import acp_schema as acp
from acp_runtime import ClientSideConnection, spawn_agent
from acp_runtime.session import Session

from .helpers import initialize_request

NOTES = str(Path(__file__).parents[2] / "examples" / "notes_agent.py")
CLIENT = str(Path(__file__).parents[2] / "examples" / "notes_client.py")


class Recorder(acp.ClientHandler):
    """Every `session/update`, as it arrived."""

    def __init__(self) -> None:
        self.updates: list[acp.SessionNotification] = []

    async def session_update(self, params: acp.SessionNotification) -> None:
        self.updates.append(params)

    def of(self, session_id: str) -> list[Any]:
        return [n.update for n in self.updates if n.session_id == session_id]


@asynccontextmanager
async def notes_agent(
    db: Path, page_size: int = 2, enforce_protocol: bool = True
) -> AsyncIterator[tuple[ClientSideConnection[acp.AgentProxy], Recorder]]:
    recorder = Recorder()
    command = (NOTES, "--db", str(db), "--page-size", str(page_size))
    async with spawn_agent(
        recorder, sys.executable, *command, timeout=10, enforce_protocol=enforce_protocol
    ) as conn:
        answer = await conn.agent.initialize(initialize_request())
        assert answer.agent_capabilities.load_session is True
        yield conn, recorder


def messages(session: Session[Any, Any, Any, Any, Any, Any, Any]) -> list[tuple[str, str]]:
    return [(m.role, m.text()) for m in session.state.messages]


async def session_ids(conn: ClientSideConnection[acp.AgentProxy], **params: Any) -> list[list[str]]:
    """The ids of each page of `session/list`, following `nextCursor` to the end."""
    pages = conn.pages("session/list", acp.ListSessionsRequest(**params))
    return [[info.session_id for info in page.sessions] async for page in pages]


async def first_run(db: Path, a: str, b: str) -> tuple[list[str], dict[str, list[str]]]:
    """Four sessions (three in `a`, one in `b`, second), oldest first, and the message ids the
    agent streamed in each."""
    plan = [(a, ["remember milk", "remember eggs"]), (b, ["remember keys"]), (a, ["hello"])]
    async with notes_agent(db) as (conn, recorder):
        ids, last = [], []
        for cwd, texts in [*plan, (a, ["hi"])]:
            session = await Session.new(conn, cwd)
            for text in texts:
                await session.prompt(text)
            ids.append(session.id)
            last = messages(session)
        assert last == [("agent", 'Say "remember X", or ask "what do you remember?".')]
        streamed = {i: [u.message_id for u in recorder.of(i)] for i in ids}
    return ids, streamed


async def test_sessions_outlive_the_agent_process_list_load_and_resume_them(
    tmp_path: Path,
) -> None:
    db, a, b = tmp_path / "notes.sqlite", str(tmp_path / "a"), str(tmp_path / "b")
    (milk, keys, hello, hi), streamed = await first_run(db, a, b)
    assert len(set(streamed[milk])) == 2  # one message id per answer, shared by its chunks

    async with notes_agent(db) as (conn, recorder):  # a new process on the same file
        assert await session_ids(conn) == [[hi, hello], [keys, milk]]  # newest first, two a page
        assert await session_ids(conn, cwd=a) == [[hi, hello], [milk]]  # filtered on every page
        assert await session_ids(conn, cwd=b) == [[keys]]
        assert await session_ids(conn, cwd=str(tmp_path)) == [[]]
        page = await conn.agent.session_list(acp.ListSessionsRequest(cwd=b))
        assert (page.sessions[0].cwd, page.sessions[0].title) == (b, "remember keys")
        assert page.next_cursor is msgspec.UNSET  # the last page has no cursor

        loaded = await Session.load(conn, milk, a)
        # the history came before the answer: it is all here as `load` returns
        assert messages(loaded) == [
            ("user", "remember milk"),
            ("agent", "Noted: milk."),
            ("user", "remember eggs"),
            ("agent", "Noted: eggs."),
        ]
        replay = recorder.of(milk)
        assert [type(u) for u in replay] == [
            acp.SessionUpdateUserMessageChunk,
            acp.SessionUpdateAgentMessageChunk,
        ] * 2
        assert [u.message_id for u in replay[1::2]] == list(dict.fromkeys(streamed[milk]))
        await loaded.prompt("what do you remember?")
        assert messages(loaded)[-1] == ("agent", "You asked me to remember: milk; eggs.")

        resumed = await Session.resume(conn, keys, b)
        assert messages(resumed) == []
        await session_ids(conn)  # a round trip: a replay sent after the answer would be in by now
        assert recorder.of(keys) == []
        await resumed.prompt("what do you remember?")  # the agent still knows the session
        assert messages(resumed) == [("agent", "You asked me to remember: keys.")]


async def test_an_unknown_session_id_is_resource_not_found_and_a_bad_cursor_invalid_params(
    tmp_path: Path,
) -> None:
    # unguarded: this runtime's client refuses, before sending, a prompt naming a session it did
    # not set up; the agent must refuse it too, for clients that send it anyway
    async with notes_agent(tmp_path / "notes.sqlite", enforce_protocol=False) as (conn, _):
        for call in (
            Session.load(conn, "notes-gone", str(tmp_path)),
            Session.resume(conn, "notes-gone", str(tmp_path)),
            conn.agent.session_prompt(
                acp.PromptRequest(session_id="notes-gone", prompt=[acp.TextContent(text="hi")])
            ),
        ):
            with pytest.raises(acp.ResourceNotFoundError) as error:
                await call
            assert error.value.code == -32002 and error.value.data == {"sessionId": "notes-gone"}
        with pytest.raises(acp.InvalidParamsError, match="not a cursor of this agent"):
            await conn.agent.session_list(acp.ListSessionsRequest(cursor="page-2"))


def test_examples_notes_client_new_list_load_resume_each_with_the_agent_started_anew(
    tmp_path: Path,
) -> None:
    agent = ["--", sys.executable, NOTES, "--db", str(tmp_path / "notes.sqlite")]

    def client(cwd: str, *args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, CLIENT, "--cwd", str(tmp_path / cwd), *args, *agent]
        return subprocess.run(command, capture_output=True, text=True, timeout=30)

    made = client("a", "new", "remember milk")
    assert made.returncode == 0, made.stderr
    milk, answer = made.stdout.splitlines()
    assert answer == "> Noted: milk."
    assert client("b", "new", "remember keys").returncode == 0
    assert client("a", "list").stdout == f"{milk}\tremember milk\n"  # b's session is b's
    assert client("a", "load", milk, "what do you remember?").stdout.splitlines() == [
        "user: remember milk",
        "agent: Noted: milk.",
        "> You asked me to remember: milk.",
    ]
    resumed = client("a", "resume", milk, "what do you remember?")
    assert resumed.stdout == "> You asked me to remember: milk.\n"  # no history printed
    gone = client("a", "load", "notes-gone")
    assert (gone.returncode, gone.stdout) == (1, "")
    assert gone.stderr == "error: the agent answered -32002: no session 'notes-gone'\n"
