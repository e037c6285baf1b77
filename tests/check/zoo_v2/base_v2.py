"""The zoo's well-behaved ACP v2 agent: the v1 zoo agent (../zoo/base.py) speaking v2's
initialize and prompt lifecycle. A prompt is answered as soon as it is accepted (its user
messageId); the turn then reports `user_message`, `state_update` running, an agent message
chunk, and after TURN seconds (or a cancel) `state_update` idle with its stop reason. Every other
file here is this one with exactly one requirement broken."""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zoo"))

from base import TURN, Base, Session  # noqa: E402  (the v1 zoo agent, found through sys.path)


class BaseV2(Base):
    turns = 0
    batch: list[dict[str, Any]] | None = None  # the answers of the batch being read

    def dispatch(self, message: Any) -> None:
        """A batch (the older v2 docs' JSON-RPC batches): its answers go back as one array."""
        if not isinstance(message, list):
            super().dispatch(message)
            return
        if not message:
            self.fail(None, -32600, "Invalid Request: an empty batch")
            return
        self.batch = []
        for item in message:
            super().dispatch(item)
        answers, self.batch = self.batch, None
        if answers:
            self.write_line(json.dumps(answers).encode("utf-8"))

    def send(self, message: dict[str, Any]) -> None:
        if self.batch is not None and threading.current_thread() is threading.main_thread():
            self.batch.append(message)
        else:
            super().send(message)

    def initialize_result(self, asked: Any) -> dict[str, Any]:
        info = {"name": "zoo-agent-v2", "version": "1.0.0"}
        return {"protocolVersion": 2, "info": info, "capabilities": {"session": {}}}

    def on_session_new(self, rid: Any, params: Any) -> None:
        cwd = params.get("cwd")
        if not isinstance(cwd, str) or not os.path.isabs(cwd):
            self.fail(rid, -32602, "Invalid params: cwd must be an absolute path")
            return
        session_id = self.new_session_id()
        self.sessions[session_id] = Session(cwd)
        self.answer(rid, {"sessionId": session_id})

    def on_session_prompt(self, rid: Any, params: Any) -> None:
        session = self.session_of(rid, params)
        if session is None:
            return
        if not isinstance(params.get("prompt"), list):
            self.fail(rid, -32602, "Invalid params: prompt must be a list")
            return
        session.cancelled.clear()
        self.turns += 1
        ids = (f"user-{self.turns}", f"agent-{self.turns}")
        self.accepted(rid, ids[0])
        self.run_turn(self.turn_v2, rid, params, session, ids)

    def accepted(self, rid: Any, message_id: str) -> None:
        self.answer(rid, {"messageId": message_id})

    def turn_v2(self, rid: Any, params: Any, session: Session, ids: tuple[str, str]) -> None:
        sid = params["sessionId"]
        text = " ".join(b.get("text", "") for b in params["prompt"] if isinstance(b, dict))
        self.user_message(sid, ids[0], params["prompt"])
        self.running(sid)
        chunk = {"type": "text", "text": text}
        self.update(
            sid, {"sessionUpdate": "agent_message_chunk", "messageId": ids[1], "content": chunk}
        )
        deadline = time.monotonic() + TURN
        while time.monotonic() < deadline and not session.cancelled.is_set():
            time.sleep(0.01)
        self.idle(rid, sid, "cancelled" if session.cancelled.is_set() else "end_turn")

    def user_message(self, sid: str, message_id: str, prompt: Any) -> None:
        self.update(
            sid, {"sessionUpdate": "user_message", "messageId": message_id, "content": prompt}
        )

    def running(self, sid: str) -> None:
        self.update(sid, {"sessionUpdate": "state_update", "state": "running"})

    def idle(self, rid: Any, sid: str, stop: str) -> None:
        self.update(sid, {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop})


def main(agent: type[Base] = BaseV2) -> None:
    agent().serve()


if __name__ == "__main__":
    main()
