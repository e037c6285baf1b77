"""The zoo's well-behaved ACP v1 client, on the standard library alone:

    python base.py -- AGENT_CMD [ARGS...]

It spawns the agent, initializes, opens a session, sends one prompt and exits when the turn ends.
It answers a permission request with its first option and any other request with -32601. Every
other zoo client here is this one with exactly one requirement broken."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import Any


class BaseClient:
    def __init__(self, argv: list[str]) -> None:
        self.agent = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.lock = threading.Lock()
        self.answers: dict[Any, dict[str, Any]] = {}
        self.arrived = threading.Condition()
        self.next_id = 0
        threading.Thread(target=self.read, daemon=True).start()

    def write_line(self, data: bytes) -> None:
        assert self.agent.stdin is not None
        with self.lock:
            self.agent.stdin.write(data + b"\n")
            self.agent.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.write_line(json.dumps(message).encode("utf-8"))

    def request(self, method: str, params: Any) -> dict[str, Any]:
        self.next_id += 1
        rid = self.next_id
        self.send({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})
        with self.arrived:
            self.arrived.wait_for(lambda: rid in self.answers, timeout=30)
        return self.answers.get(rid, {})

    def read(self) -> None:
        assert self.agent.stdout is not None
        for line in self.agent.stdout:
            message = json.loads(line)
            if "method" in message and "id" in message:
                self.on_request(message["id"], message["method"], message.get("params"))
            elif "method" in message:
                self.on_notification(message["method"], message.get("params"))
            else:
                with self.arrived:
                    self.answers[message.get("id")] = message
                    self.arrived.notify_all()

    def on_request(self, rid: Any, method: str, params: Any) -> None:
        if method == "session/request_permission":
            choice = {"outcome": "selected", "optionId": params["options"][0]["optionId"]}
            self.send({"jsonrpc": "2.0", "id": rid, "result": {"outcome": choice}})
        else:
            error = {"code": -32601, "message": f"Method not found: {method}"}
            self.send({"jsonrpc": "2.0", "id": rid, "error": error})

    def on_notification(self, method: str, params: Any) -> None:
        pass

    def initialize(self) -> None:
        info = {"name": "zoo-client", "version": "1.0.0"}
        self.request("initialize", {"protocolVersion": 1, "clientInfo": info})

    def prompt_block(self) -> dict[str, Any]:
        return {"type": "text", "text": "hello"}

    def run(self) -> None:
        self.initialize()
        new = self.request("session/new", self.new_session_params())
        session_id = new["result"]["sessionId"]
        self.after_new(session_id)
        self.request("session/prompt", {"sessionId": session_id, "prompt": [self.prompt_block()]})
        self.agent.terminate()

    def new_session_params(self) -> dict[str, Any]:
        return {"cwd": os.getcwd(), "mcpServers": []}

    def after_new(self, session_id: str) -> None:
        pass


def main(client: type[BaseClient] = BaseClient) -> None:
    argv = sys.argv[1:]
    client(argv[argv.index("--") + 1 :] if "--" in argv else argv).run()


if __name__ == "__main__":
    main()
