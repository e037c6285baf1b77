"""The zoo's well-behaved ACP v1 agent, on the standard library alone (no acp_runtime): every
zoo agent is this one with exactly one requirement broken (one method overridden).

It advertises loadSession, session list / resume / close, a select config option, every prompt
content kind and an authentication method, so that every capability check is exercised; its turns
echo the prompt, announce and update one tool call, read a file and run a terminal (released once
created) when the client offers them, and take TURN seconds, so a cancel lands while the turn
runs.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import uuid
from typing import Any, Callable

TURN = 0.4  # long enough for a cancel sent with the prompt to land (it comes within milliseconds)


def options(current: str) -> list[dict[str, Any]]:
    values = [{"value": "fast", "name": "Fast"}, {"value": "slow", "name": "Slow"}]
    select = {"type": "select", "id": "speed", "name": "Speed", "currentValue": current}
    return [{**select, "options": values}]


MODES = [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code"}]


class Session:
    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.history: list[dict[str, Any]] = []
        self.cancelled = threading.Event()
        self.speed = "fast"


class Base:
    def __init__(self) -> None:
        self.sessions: dict[str, Session] = {}
        self.lock = threading.Lock()
        self.offered: dict[str, Any] = {}  # the client's clientCapabilities

    # ---- the wire

    def write_line(self, data: bytes) -> None:
        with self.lock:
            sys.stdout.buffer.write(data + b"\n")
            sys.stdout.buffer.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write_line(json.dumps(message).encode("utf-8"))

    def answer(self, rid: Any, result: Any) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "result": result})

    def fail(self, rid: Any, code: int, message: str) -> None:
        self.send({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})

    def update(self, session_id: str, update: dict[str, Any]) -> None:
        params = {"sessionId": session_id, "update": update}
        self.send({"jsonrpc": "2.0", "method": "session/update", "params": params})

    def read_lines(self) -> Any:
        while line := sys.stdin.buffer.readline():
            yield line

    def serve(self) -> None:
        for line in self.read_lines():
            if not line.strip():
                continue
            try:
                message = json.loads(line)
            except ValueError:
                self.send({"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "x"}})
                continue
            self.dispatch(message)
        self.at_eof()

    def at_eof(self) -> None:
        os._exit(0)

    def dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        params = message.get("params") or {}
        if method is None:
            self.answered(message)  # an answer to a request of the agent's
            return
        if "id" not in message:
            self.notification(method, params)
            return
        rid = message["id"]
        handler = getattr(self, "on_" + str(method).replace("/", "_"), None)
        if handler is None:
            self.unknown(rid, str(method), params)
            return
        handler(rid, params)

    def unknown(self, rid: Any, method: str, params: Any) -> None:
        self.fail(rid, -32601, f"Method not found: {method}")

    def notification(self, method: Any, params: Any) -> None:
        if method == "session/cancel":
            session = self.sessions.get(params.get("sessionId"))
            if session is not None:
                self.cancel(session)

    def cancel(self, session: Session) -> None:
        session.cancelled.set()

    # ---- agent methods

    def answered(self, message: dict[str, Any]) -> None:
        rid, result = str(message.get("id")), message.get("result")
        if rid.startswith("zoo-terminal-") and isinstance(result, dict):
            self.release_terminal(rid.removeprefix("zoo-terminal-"), result.get("terminalId"))

    def release_terminal(self, sid: str, terminal_id: Any) -> None:
        params = {"sessionId": sid, "terminalId": terminal_id}
        self.send(
            {"jsonrpc": "2.0", "id": "zoo-release", "method": "terminal/release", "params": params}
        )

    def on_initialize(self, rid: Any, params: Any) -> None:
        offered = params.get("clientCapabilities")
        self.offered = offered if isinstance(offered, dict) else {}
        self.answer(rid, self.initialize_result(params.get("protocolVersion")))

    def chosen_version(self, asked: Any) -> int:
        return 1

    def initialize_result(self, asked: Any) -> dict[str, Any]:
        sessions = {"list": {}, "resume": {}, "close": {}, "delete": {}}
        return {
            "protocolVersion": self.chosen_version(asked),
            "agentCapabilities": {
                "loadSession": True,
                "sessionCapabilities": sessions,
                "promptCapabilities": {"image": True, "audio": True, "embeddedContext": True},
            },
            "agentInfo": {"name": "zoo-agent", "version": "1.0.0"},
            "authMethods": [{"id": "zoo-login", "name": "Zoo login"}],
        }

    def new_session_id(self) -> str:
        return f"zoo-{uuid.uuid4().hex[:12]}"

    def on_session_new(self, rid: Any, params: Any) -> None:
        cwd = params.get("cwd")
        if not isinstance(cwd, str) or not os.path.isabs(cwd):
            self.fail(rid, -32602, "Invalid params: cwd must be an absolute path")
            return
        if not isinstance(params.get("mcpServers", []), list):
            self.fail(rid, -32602, "Invalid params: mcpServers must be a list")
            return
        session_id = self.new_session_id()
        self.sessions[session_id] = Session(cwd)
        modes = {"currentModeId": "ask", "availableModes": MODES}
        result = {"sessionId": session_id, "configOptions": options("fast"), "modes": modes}
        self.answer(rid, result)

    def session_of(self, rid: Any, params: Any) -> Session | None:
        session = self.sessions.get(params.get("sessionId"))
        if session is None:
            self.fail(rid, -32602, "Invalid params: no such session")
        return session

    def on_session_prompt(self, rid: Any, params: Any) -> None:
        session = self.session_of(rid, params)
        if session is None:
            return
        if not isinstance(params.get("prompt"), list):
            self.fail(rid, -32602, "Invalid params: prompt must be a list")
            return
        session.cancelled.clear()
        self.run_turn(self.turn, rid, params, session)

    def run_turn(self, turn: Callable[..., None], *args: Any) -> None:
        """A turn runs on a thread of its own, so that its input (a cancel) is read meanwhile."""
        threading.Thread(target=turn, args=args, daemon=True).start()

    def turn(self, rid: Any, params: Any, session: Session) -> None:
        sid = params["sessionId"]
        text = " ".join(b.get("text", "") for b in params["prompt"] if isinstance(b, dict))
        for entry in (
            {"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": text}},
            {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}},
        ):
            session.history.append(entry)
        self.update(sid, session.history[-1])
        self.tool_calls(sid)
        deadline = time.monotonic() + TURN
        while time.monotonic() < deadline and not session.cancelled.is_set():
            time.sleep(0.01)
        self.end_turn(rid, sid, session)

    def tool_calls(self, sid: str) -> None:
        fs = self.offered.get("fs")
        if isinstance(fs, dict) and fs.get("readTextFile"):
            path = os.path.join(self.sessions[sid].cwd, "README.md")
            params = {"sessionId": sid, "path": path}
            self.send(
                {"jsonrpc": "2.0", "id": "zoo-fs", "method": "fs/read_text_file", "params": params}
            )
        if self.offered.get("terminal") is True:
            params = {"sessionId": sid, "command": "true"}
            create = {"jsonrpc": "2.0", "id": f"zoo-terminal-{sid}", "method": "terminal/create"}
            self.send({**create, "params": params})
        self.update(sid, {"sessionUpdate": "tool_call", "toolCallId": "call-1", "title": "Think"})
        self.update(
            sid,
            {"sessionUpdate": "tool_call_update", "toolCallId": "call-1", "status": "completed"},
        )

    def end_turn(self, rid: Any, sid: str, session: Session) -> None:
        stop = "cancelled" if session.cancelled.is_set() else "end_turn"
        self.answer(rid, {"stopReason": stop})

    def on_session_load(self, rid: Any, params: Any) -> None:
        session = self.session_of(rid, params)
        if session is None:
            return
        for entry in session.history:
            self.update(params["sessionId"], entry)
        self.answer(rid, {"configOptions": options(session.speed)})

    def on_session_resume(self, rid: Any, params: Any) -> None:
        session = self.session_of(rid, params)
        if session is not None:
            self.answer(rid, {"configOptions": options(session.speed)})

    def on_session_list(self, rid: Any, params: Any) -> None:
        sessions = [{"sessionId": k, "cwd": s.cwd} for k, s in self.sessions.items()]
        self.answer(rid, {"sessions": sessions})

    def on_session_close(self, rid: Any, params: Any) -> None:
        session = self.session_of(rid, params)
        if session is not None:
            self.cancel(session)
            del self.sessions[params["sessionId"]]
            self.answer(rid, {})

    def on_session_delete(self, rid: Any, params: Any) -> None:
        self.sessions.pop(params.get("sessionId"), None)  # deleting twice is no error
        self.answer(rid, {})

    def on_session_set_mode(self, rid: Any, params: Any) -> None:
        session = self.session_of(rid, params)
        if session is None:
            return
        if params.get("modeId") not in [m["id"] for m in MODES]:
            self.fail(rid, -32602, "Invalid params: no such mode")
            return
        self.answer(rid, {})

    def on_session_set_config_option(self, rid: Any, params: Any) -> None:
        session = self.session_of(rid, params)
        if session is None:
            return
        if params.get("configId") != "speed" or params.get("value") not in ("fast", "slow"):
            self.fail(rid, -32602, "Invalid params: unknown option or value")
            return
        session.speed = params["value"]
        self.answer(rid, {"configOptions": self.config_answer(session)})

    def config_answer(self, session: Session) -> list[dict[str, Any]]:
        return options(session.speed)


def main(agent: type[Base] = Base) -> None:
    agent().serve()


if __name__ == "__main__":
    main()
