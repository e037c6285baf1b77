"""An ACP agent whose sessions outlive it: a note keeper over a sqlite file, and no model.

    python examples/notes_agent.py --db notes.sqlite [--page-size N] [--no-resume]

A rule-based fake model streams each answer a word at a time: "remember X" notes X, "what do you
remember?" recites the session's notes, anything else gets a hint. Every message is kept in the
sqlite file (stdlib sqlite3), so a session survives a restart of the agent:
`session/list` pages through them (newest first, N a page, optionally only those of one cwd),
`session/load` replays a session's history as `session/update`s and answers after the last one,
`session/resume` answers at once and replays nothing (`--no-resume` leaves it out, as an agent
that can only load: clients that prefer resume then load). An unknown session id is answered -32002
(`acp.ResourceNotFoundError`), a cursor this agent did not hand out -32602. docs/sessions.md walks
through it.
"""

from __future__ import annotations

import argparse
import re
import sqlite3
import uuid
from datetime import datetime, timezone

import acp_schema as acp
from acp_runtime import AgentSideConnection, run_agent
from acp_runtime.helpers import AgentSession

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT UNIQUE NOT NULL, cwd TEXT NOT NULL,
    title TEXT, updated_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS messages (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions (id),
    message_id TEXT NOT NULL, role TEXT NOT NULL CHECK (role IN ('user', 'agent')),
    text TEXT NOT NULL);
"""
CURSOR = re.compile(r"before-([0-9]+)")  # what `nextCursor` looks like; clients must not care


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


class Notes:
    """The sqlite file: sessions, and each session's messages in order."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path)
        self.db.executescript(SCHEMA)

    def create(self, session_id: str, cwd: str) -> None:
        with self.db:  # one transaction, committed on leaving
            self.db.execute(
                "INSERT INTO sessions (id, cwd, updated_at) VALUES (?, ?, ?)",
                (session_id, cwd, now()),
            )

    def exists(self, session_id: str) -> bool:
        row = self.db.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone()
        return row is not None

    def add(self, session_id: str, message_id: str, role: str, text: str) -> None:
        with self.db:
            self.db.execute(
                "INSERT INTO messages (session_id, message_id, role, text) VALUES (?, ?, ?, ?)",
                (session_id, message_id, role, text),
            )
            self.db.execute(
                "UPDATE sessions SET updated_at = ?, title = coalesce(title, ?) WHERE id = ?",
                (now(), text[:40] if role == "user" else None, session_id),
            )

    def history(self, session_id: str) -> list[tuple[str, str, str]]:
        """(message id, role, text) of each message, oldest first."""
        query = "SELECT message_id, role, text FROM messages WHERE session_id = ? ORDER BY seq"
        return [(str(m), str(r), str(t)) for m, r, t in self.db.execute(query, (session_id,))]

    def page(
        self, cwd: str | None, before: int | None, size: int
    ) -> list[tuple[int, acp.SessionInfo]]:
        """Up to `size` + 1 sessions (row number, info), newest first, from the row `before` on:
        the extra one says another page follows."""
        rows = self.db.execute(
            "SELECT seq, id, cwd, title, updated_at FROM sessions WHERE (?1 IS NULL OR cwd = ?1)"
            " AND (?2 IS NULL OR seq < ?2) ORDER BY seq DESC LIMIT ?3",
            (cwd, before, size + 1),
        )
        return [
            (
                int(seq),
                acp.SessionInfo(session_id=str(sid), cwd=str(cwd), title=title, updated_at=at),
            )
            for seq, sid, cwd, title, at in rows
        ]


def model(prompt: str, history: list[tuple[str, str, str]]) -> str:
    """The fake model: a rule per kind of prompt, reading the session's history."""
    noted = [
        text[9:] for _, role, text in history if role == "user" and text.startswith("remember ")
    ]
    if prompt.startswith("remember "):
        return f"Noted: {prompt[9:]}."
    if "remember?" in prompt:
        return "You asked me to remember: " + "; ".join(noted) + "." if noted else "Nothing yet."
    return 'Say "remember X", or ask "what do you remember?".'


class NotesAgent(acp.AgentHandler):
    def __init__(
        self, conn: AgentSideConnection, notes: Notes, page_size: int, resume: bool = True
    ) -> None:
        self.conn, self.notes, self.page_size, self.resume = conn, notes, page_size, resume

    async def initialize(self, params: acp.InitializeRequest) -> acp.InitializeResponse:
        sessions = acp.SessionCapabilities(list=acp.SessionListCapabilities())
        if self.resume:
            sessions.resume = acp.SessionResumeCapabilities()
        capabilities = acp.AgentCapabilities(load_session=True, session_capabilities=sessions)
        info = acp.Implementation(name="notes-agent", version="0.1.0")
        return acp.InitializeResponse(
            protocol_version=1, agent_capabilities=capabilities, agent_info=info
        )

    def known(self, session_id: str) -> str:
        if not self.notes.exists(session_id):
            raise acp.ResourceNotFoundError(f"no session {session_id!r}", {"sessionId": session_id})
        return session_id

    async def session_new(self, params: acp.NewSessionRequest) -> acp.NewSessionResponse:
        session_id = f"notes-{uuid.uuid4().hex[:12]}"
        self.notes.create(session_id, params.cwd)
        return acp.NewSessionResponse(session_id=session_id)

    async def session_list(self, params: acp.ListSessionsRequest) -> acp.ListSessionsResponse:
        before = None
        if isinstance(params.cursor, str):
            match = CURSOR.fullmatch(params.cursor)
            if match is None:
                raise acp.InvalidParamsError(f"not a cursor of this agent: {params.cursor!r}")
            before = int(match.group(1))
        cwd = params.cwd if isinstance(params.cwd, str) else None
        rows = self.notes.page(cwd, before, self.page_size)
        page = [info for _, info in rows[: self.page_size]]
        if len(rows) > self.page_size:  # more to come: the cursor says where the next page starts
            last = rows[self.page_size - 1][0]
            return acp.ListSessionsResponse(sessions=page, next_cursor=f"before-{last}")
        return acp.ListSessionsResponse(sessions=page)  # no nextCursor: the last page

    async def session_load(self, params: acp.LoadSessionRequest) -> acp.LoadSessionResponse:
        session = AgentSession(self.conn, self.known(params.session_id))
        for message_id, role, text in self.notes.history(params.session_id):
            chunk = acp.TextContent(text=text)
            await session.send(
                acp.SessionUpdateUserMessageChunk(content=chunk, message_id=message_id)
                if role == "user"
                else acp.SessionUpdateAgentMessageChunk(content=chunk, message_id=message_id)
            )
        return acp.LoadSessionResponse()  # after the whole history: the client has it all now

    async def session_resume(self, params: acp.ResumeSessionRequest) -> acp.ResumeSessionResponse:
        self.known(params.session_id)  # the history stays here: the client kept its own
        return acp.ResumeSessionResponse()

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        session = AgentSession(self.conn, self.known(params.session_id))
        prompt = "".join(b.text for b in params.prompt if isinstance(b, acp.TextContent)).strip()
        answer = model(prompt, self.notes.history(params.session_id))
        self.notes.add(params.session_id, f"msg-{uuid.uuid4().hex[:12]}", "user", prompt)
        message_id = f"msg-{uuid.uuid4().hex[:12]}"
        for word in re.findall(r"\S+\s*", answer):  # streamed, a word a chunk
            chunk = acp.TextContent(text=word)
            await session.send(
                acp.SessionUpdateAgentMessageChunk(content=chunk, message_id=message_id)
            )
        self.notes.add(params.session_id, message_id, "agent", answer)
        return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--db", required=True, help="the sqlite file (created when missing)")
    parser.add_argument("--page-size", type=int, default=20, help="sessions per session/list page")
    parser.add_argument("--no-resume", action="store_true", help="offer session/load only")
    args = parser.parse_args()
    notes = Notes(args.db)
    run_agent(lambda conn: NotesAgent(conn, notes, args.page_size, not args.no_resume))


if __name__ == "__main__":
    main()
