"""A raw ACP v2 agent for the end-to-end tests of examples/client.py --protocol-version 2, written
as JSON lines (no runtime), picked by the first argument:

- permission: asks permission (allow_once + reject_once) and echoes the outcome as a chunk
- reject-only: asks permission offering reject_once only
- broken: answers session/prompt with an error whose data says why
- refuse / cancelled: the idle state ends the turn with stop reason `refusal` / `cancelled`

Every accepted prompt is acknowledged with the user message's id, then reported as v2 says:
user_message, state_update running, agent_message_chunk(s), state_update idle with the reason.
"""

import json
import sys

MODE = sys.argv[1]


def send(message: dict) -> None:
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def update(session_id: str, update: dict) -> None:
    send({"method": "session/update", "params": {"sessionId": session_id, "update": update}})


def chunk(session_id: str, text: str) -> None:
    content = {"type": "text", "text": text}
    update(
        session_id, {"sessionUpdate": "agent_message_chunk", "messageId": "a1", "content": content}
    )


def receive() -> dict:
    line = sys.stdin.readline()
    if not line:
        sys.exit(0)
    return json.loads(line)


def prompt(request: dict) -> None:
    session_id = request["params"]["sessionId"]
    if MODE == "broken":
        error = {
            "code": -32603,
            "message": "Internal error",
            "data": {"message": "missing dependency: ripgrep"},
        }
        send({"id": request["id"], "error": error})
        return
    user = {
        "sessionUpdate": "user_message",
        "messageId": "u1",
        "content": request["params"]["prompt"],
    }
    update(session_id, user)
    send({"id": request["id"], "result": {"messageId": "u1"}})
    update(session_id, {"sessionUpdate": "state_update", "state": "running"})
    reason = {"refuse": "refusal", "cancelled": "cancelled"}.get(MODE, "end_turn")
    if MODE in ("permission", "reject-only"):
        options = [{"optionId": "no", "name": "Reject", "kind": "reject_once"}]
        if MODE == "permission":
            options.insert(0, {"optionId": "yes", "name": "Allow", "kind": "allow_once"})
        ask = {"sessionId": session_id, "title": "Write /tmp/x", "options": options}
        send({"id": "ask-1", "method": "session/request_permission", "params": ask})
        outcome = receive()["result"]["outcome"]
        chunk(session_id, f"outcome: {outcome.get('optionId', outcome['outcome'])}")
    update(session_id, {"sessionUpdate": "state_update", "state": "idle", "stopReason": reason})


def main() -> None:
    while True:
        request = receive()
        method = request.get("method")
        if method == "initialize":
            info = {"name": f"scripted-v2-{MODE}", "version": "9.9"}
            result = {"protocolVersion": 2, "info": info, "capabilities": {"session": {}}}
            send({"id": request["id"], "result": result})
        elif method == "session/new":
            send({"id": request["id"], "result": {"sessionId": "s1"}})
        elif method == "session/prompt":
            prompt(request)


if __name__ == "__main__":
    main()
