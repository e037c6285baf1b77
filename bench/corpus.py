"""The benchmark corpus: realistic whole JSON-RPC messages of ACP, as the bytes a peer would send.

Each `Message` knows the side that receives it, its kind and method, and the schema def of its
params or result, so every contender can decode it the way a real connection would. `corpus()`
builds the messages and checks each one once against `schema/schema.json` with jsonschema: the
whole message against the root schema (which accepts nearly anything) and its params / result /
error object against its own def (which does not).
"""

from __future__ import annotations

import base64
import functools
import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SCHEMA_PATH = ROOT / "schema" / "schema.json"

LARGE_MIN_BYTES = 1 << 20
"""The large prompt carries an embedded text resource of at least this many bytes."""


@dataclass(frozen=True)
class Message:
    name: str
    data: bytes
    side: str
    """The side that receives it: "agent" or "client"."""
    kind: str
    """"request", "notification", "response" or "error"."""
    method: str
    """The method it carries or answers."""
    def_name: str
    """The schema def of its params ("request", "notification"), result ("response") or "Error"."""
    id: int | None = None

    @property
    def body_key(self) -> str:
        return {
            "request": "params",
            "notification": "params",
            "response": "result",
            "error": "error",
        }[self.kind]


# ------------------------------------------------------------------------------------ contents

SESSION = "sess_01JQ3V8Y4ZK7T2N9RM6C5XW8DA"
CWD = "/home/dev/projects/acme-webapp"
META = {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}

_DIFF_OLD = """import { Router } from "express";
import { db } from "../db";

export const users = Router();

users.get("/users/:id", async (req, res) => {
  const user = await db.user.findUnique({ where: { id: req.params.id } });
  res.json(user);
});
"""
_DIFF_NEW = """import { Router } from "express";
import { db } from "../db";
import { NotFound } from "../errors";

export const users = Router();

users.get("/users/:id", async (req, res, next) => {
  try {
    const user = await db.user.findUnique({ where: { id: req.params.id } });
    if (!user) throw new NotFound(`user ${req.params.id} not found`);
    res.json(user);
  } catch (err) {
    next(err);
  }
});
"""


def _source_text(min_bytes: int, wide: bool = True) -> str:
    """Deterministic Python-like source text (quotes, backslashes, tabs, non-ASCII), min_bytes long.

    `wide=False` keeps every character below U+0100, so Python holds it one byte per character.
    """
    rng = random.Random(4)
    words = "alpha beta gamma delta value result request session update payload chunk token".split()
    dash = "\u2014" if wide else "-"
    lines: list[str] = [
        (
            '"""Generated module for the benchmark: escapes and non-ASCII (é,'
            f' ü{", 中文" if wide else ""})."""'
        ),
        "",
    ]
    size = 0
    i = 0
    while size < min_bytes:
        a, b = rng.choice(words), rng.choice(words)
        block = (
            f'def {a}_{b}_{i}(value: int, name: str = "{b}") -> dict[str, object]:\n'
            f'    """Return the {a} of {b} #{i} {dash} r\u00e9sum\u00e9 included."""\n'
            f'    path = "C:\\\\Users\\\\dev\\\\{a}\\\\{b}_{i}.txt"\n'
            f"    if value > {rng.randint(0, 9999)}:\n"
            f'\t\treturn {{"{a}": value * {rng.randint(2, 99)}, "path": path, "name": name}}\n'
            f"    return {{\"{b}\": [value, {i}, None], 'note': 'it\\'s \"{a}\"'}}\n\n"
        )
        lines.append(block)
        size += len(block.encode())
        i += 1
    return "\n".join(lines)


_PNG_BYTES = bytes(range(256)) * 24  # ~6 KB image payload


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _update(update: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": SESSION, "update": update},
    }


def _messages() -> list[tuple[str, str, str, str, str, dict[str, Any]]]:
    """(name, receiving side, kind, method, def, message) for every corpus entry."""
    prompt_resource_text = "\n".join(
        f"{n:4d}  {line}" for n, line in enumerate(_DIFF_NEW.splitlines() * 6, 1)
    )
    tool_call_update_diff = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "call_7f3a9c",
        "status": "completed",
        "title": "Edit src/routes/users.ts",
        "kind": "edit",
        "content": [
            {
                "type": "diff",
                "path": f"{CWD}/src/routes/users.ts",
                "oldText": _DIFF_OLD,
                "newText": _DIFF_NEW,
            }
        ],
        "locations": [{"path": f"{CWD}/src/routes/users.ts", "line": 7}],
        "rawOutput": {"success": True, "linesChanged": 9},
    }
    config_options = [
        {
            "type": "select",
            "id": "model",
            "name": "Model",
            "category": "model",
            "description": "Model used for this session",
            "currentValue": "sonnet-4.5",
            "options": [
                {
                    "value": "sonnet-4.5",
                    "name": "Sonnet 4.5",
                    "description": "Balanced speed and quality",
                },
                {"value": "opus-4.1", "name": "Opus 4.1", "description": "Most capable"},
                {"value": "haiku-4.5", "name": "Haiku 4.5", "description": "Fastest"},
            ],
        },
        {
            "type": "select",
            "id": "mode",
            "name": "Mode",
            "category": "mode",
            "currentValue": "code",
            "options": [
                {
                    "group": "default",
                    "name": "Default",
                    "options": [
                        {"value": "ask", "name": "Ask"},
                        {"value": "code", "name": "Code"},
                    ],
                },
                {
                    "group": "extra",
                    "name": "Extra",
                    "options": [
                        {
                            "value": "architect",
                            "name": "Architect",
                            "description": "Plan before editing",
                        },
                    ],
                },
            ],
        },
        {
            "type": "boolean",
            "id": "auto_approve_reads",
            "name": "Auto-approve reads",
            "currentValue": True,
        },
    ]
    permission_tool_call = {
        "toolCallId": "call_2b81e4",
        "title": "Run `npm test -- --watch=false`",
        "kind": "execute",
        "status": "pending",
        "rawInput": {"command": "npm test -- --watch=false", "cwd": CWD, "timeoutMs": 120000},
        "locations": [{"path": f"{CWD}/package.json"}],
    }
    msgs: list[tuple[str, str, str, str, str, dict[str, Any]]] = [
        (
            "initialize request",
            "agent",
            "request",
            "initialize",
            "InitializeRequest",
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": 1,
                    "clientCapabilities": {
                        "fs": {"readTextFile": True, "writeTextFile": True},
                        "terminal": True,
                        "auth": {"terminal": True},
                        "elicitation": {"form": {}, "url": {}},
                        "_meta": {"zed.dev/terminal-output": True},
                    },
                    "clientInfo": {"name": "zed", "title": "Zed", "version": "0.212.4"},
                    "_meta": META,
                },
            },
        ),
        (
            "initialize response",
            "client",
            "response",
            "initialize",
            "InitializeResponse",
            {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {
                    "protocolVersion": 1,
                    "agentCapabilities": {
                        "loadSession": True,
                        "promptCapabilities": {
                            "image": True,
                            "audio": True,
                            "embeddedContext": True,
                        },
                        "mcpCapabilities": {"http": True, "sse": True, "acp": False},
                        "sessionCapabilities": {
                            "list": {},
                            "fork": {},
                            "resume": {},
                            "close": {},
                            "additionalDirectories": {},
                        },
                        "auth": {"logout": {}},
                        "providers": {},
                    },
                    "agentInfo": {
                        "name": "claude-code-acp",
                        "title": "Claude Code",
                        "version": "0.10.6",
                    },
                    "authMethods": [
                        {
                            "id": "claude-login",
                            "name": "Log in with Claude",
                            "description": "Opens a browser to sign in",
                        },
                        {
                            "type": "terminal",
                            "id": "setup-token",
                            "name": "Setup token",
                            "args": ["setup-token"],
                            "env": {"CLAUDE_CODE_ENTRYPOINT": "acp"},
                        },
                    ],
                },
            },
        ),
        (
            "session/new request (stdio + http MCP)",
            "agent",
            "request",
            "session/new",
            "NewSessionRequest",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "session/new",
                "params": {
                    "cwd": CWD,
                    "mcpServers": [
                        {
                            "name": "filesystem",
                            "command": "/usr/local/bin/npx",
                            "args": ["-y", "@modelcontextprotocol/server-filesystem", CWD],
                            "env": [
                                {"name": "NODE_ENV", "value": "production"},
                                {"name": "LOG_LEVEL", "value": "warn"},
                            ],
                        },
                        {
                            "type": "http",
                            "name": "github",
                            "url": "https://api.githubcopilot.com/mcp/",
                            "headers": [
                                {
                                    "name": "Authorization",
                                    "value": "Bearer ghp_0123456789abcdefABCDEF0123456789abcd",
                                }
                            ],
                        },
                        {
                            "type": "sse",
                            "name": "linear",
                            "url": "https://mcp.linear.app/sse",
                            "headers": [],
                        },
                    ],
                },
            },
        ),
        (
            "session/new response",
            "client",
            "response",
            "session/new",
            "NewSessionResponse",
            {
                "jsonrpc": "2.0",
                "id": 1,
                "result": {
                    "sessionId": SESSION,
                    "modes": {
                        "currentModeId": "code",
                        "availableModes": [
                            {
                                "id": "ask",
                                "name": "Ask",
                                "description": "Request permission before making any changes",
                            },
                            {
                                "id": "code",
                                "name": "Code",
                                "description": "Write and modify code with full tool access",
                            },
                            {
                                "id": "architect",
                                "name": "Architect",
                                "description": "Design and plan without editing",
                            },
                        ],
                    },
                    "configOptions": config_options,
                },
            },
        ),
        (
            "session/prompt request (text, link, resources, image)",
            "agent",
            "request",
            "session/prompt",
            "PromptRequest",
            {
                "jsonrpc": "2.0",
                "id": 2,
                "method": "session/prompt",
                "params": {
                    "sessionId": SESSION,
                    "prompt": [
                        _text(
                            "The /users/:id route crashes when the user does not exist. Fix it and"
                            " add a test."
                        ),
                        {
                            "type": "resource_link",
                            "uri": f"file://{CWD}/src/errors.ts",
                            "name": "errors.ts",
                            "mimeType": "text/typescript",
                            "size": 1834,
                        },
                        {
                            "type": "resource",
                            "resource": {
                                "uri": f"file://{CWD}/src/routes/users.ts",
                                "mimeType": "text/typescript",
                                "text": prompt_resource_text,
                            },
                        },
                        {
                            "type": "resource",
                            "resource": {
                                "uri": f"file://{CWD}/docs/logo.bin",
                                "mimeType": "application/octet-stream",
                                "blob": base64.b64encode(_PNG_BYTES[:2048]).decode(),
                            },
                        },
                        {
                            "type": "image",
                            "mimeType": "image/png",
                            "data": base64.b64encode(_PNG_BYTES).decode(),
                            "annotations": {"audience": ["user"], "priority": 0.5},
                        },
                    ],
                },
            },
        ),
        (
            "session/prompt response",
            "client",
            "response",
            "session/prompt",
            "PromptResponse",
            {
                "jsonrpc": "2.0",
                "id": 2,
                "result": {
                    "stopReason": "end_turn",
                    "usage": {
                        "totalTokens": 18342,
                        "inputTokens": 15210,
                        "outputTokens": 3132,
                        "cachedReadTokens": 12288,
                    },
                },
            },
        ),
        (
            "update user_message_chunk",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "user_message_chunk",
                    "content": _text("Also update the OpenAPI spec."),
                }
            ),
        ),
        (
            "update agent_message_chunk",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": _text("I'll add a `NotFound` check to the "),
                }
            ),
        ),
        (
            "update agent_thought_chunk",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "agent_thought_chunk",
                    "content": _text(
                        "The handler passes a possibly-null user to res.json; Express then sends"
                        " `null` with 200."
                    ),
                }
            ),
        ),
        (
            "update tool_call",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "tool_call",
                    "toolCallId": "call_7f3a9c",
                    "title": "Read src/routes/users.ts",
                    "kind": "read",
                    "status": "pending",
                    "locations": [{"path": f"{CWD}/src/routes/users.ts", "line": 1}],
                    "rawInput": {"file_path": f"{CWD}/src/routes/users.ts"},
                }
            ),
        ),
        (
            "update tool_call_update (diff)",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(tool_call_update_diff),
        ),
        (
            "update plan",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "plan",
                    "entries": [
                        {
                            "content": "Reproduce the crash with a failing test",
                            "priority": "high",
                            "status": "completed",
                        },
                        {
                            "content": "Return 404 via NotFound when the user is missing",
                            "priority": "high",
                            "status": "in_progress",
                        },
                        {
                            "content": "Update the OpenAPI spec for GET /users/{id}",
                            "priority": "medium",
                            "status": "pending",
                        },
                        {
                            "content": "Run the whole test suite",
                            "priority": "low",
                            "status": "pending",
                        },
                    ],
                }
            ),
        ),
        (
            "update available_commands_update",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "available_commands_update",
                    "availableCommands": [
                        {
                            "name": "web",
                            "description": "Search the web",
                            "input": {"hint": "query to search for"},
                        },
                        {"name": "test", "description": "Run tests for the current project"},
                        {
                            "name": "plan",
                            "description": "Create a detailed implementation plan",
                            "input": {"hint": "description of what to plan"},
                        },
                        {
                            "name": "compact",
                            "description": "Summarise the conversation to save context",
                        },
                    ],
                }
            ),
        ),
        (
            "update current_mode_update",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update({"sessionUpdate": "current_mode_update", "currentModeId": "architect"}),
        ),
        (
            "update config_option_update",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update({"sessionUpdate": "config_option_update", "configOptions": config_options}),
        ),
        (
            "update session_info_update",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "session_info_update",
                    "title": "Fix 500 on missing user",
                    "updatedAt": "2026-04-23T10:15:42Z",
                }
            ),
        ),
        (
            "update usage_update",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "usage_update",
                    "used": 48213,
                    "size": 200000,
                    "cost": {"amount": 0.4172, "currency": "USD"},
                }
            ),
        ),
        (
            "update plan_update (markdown)",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "plan_update",
                    "plan": {
                        "type": "markdown",
                        "planId": "plan-1",
                        "content": (
                            "1. Reproduce the 500\n2. Add the `NotFound` check\n3. Update the"
                            " OpenAPI spec"
                        ),
                    },
                }
            ),
        ),
        (
            "update plan_removed",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update({"sessionUpdate": "plan_removed", "planId": "plan-1"}),
        ),
        (
            "update notice",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "notice",
                    "severity": "warning",
                    "title": "Context almost full",
                    "description": "The session will be compacted soon.",
                }
            ),
        ),
        (
            "update compaction_update",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "compaction_update",
                    "compactionId": "compact-1",
                    "status": "in_progress",
                }
            ),
        ),
        (
            "update compaction_summary_chunk",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "compaction_summary_chunk",
                    "compactionId": "compact-1",
                    "content": _text("Fixed the 500 on a missing user; the spec update is left."),
                }
            ),
        ),
        (
            "update subagent_update",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "subagent_update",
                    "sessionId": "sess-child-1",
                    "title": "Write the regression test",
                    "cwd": "/home/dev/api",
                }
            ),
        ),
        (
            "update session_message",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "session_message",
                    "messageId": "msg-to-child-1",
                    "recipientSessionId": "sess-child-1",
                    "content": [_text("Add a test for the missing-user 500.")],
                }
            ),
        ),
        (
            "update session_message_chunk",
            "client",
            "notification",
            "session/update",
            "SessionNotification",
            _update(
                {
                    "sessionUpdate": "session_message_chunk",
                    "messageId": "msg-from-child-1",
                    "content": _text("Test added: tests/test_users.py::test_missing_user."),
                }
            ),
        ),
        (
            "session/request_permission request",
            "client",
            "request",
            "session/request_permission",
            "RequestPermissionRequest",
            {
                "jsonrpc": "2.0",
                "id": 7,
                "method": "session/request_permission",
                "params": {
                    "sessionId": SESSION,
                    "toolCall": permission_tool_call,
                    "options": [
                        {"optionId": "allow-once", "name": "Allow once", "kind": "allow_once"},
                        {
                            "optionId": "allow-always",
                            "name": "Always allow `npm test`",
                            "kind": "allow_always",
                        },
                        {"optionId": "reject-once", "name": "Reject", "kind": "reject_once"},
                    ],
                },
            },
        ),
        (
            "request_permission response (selected)",
            "agent",
            "response",
            "session/request_permission",
            "RequestPermissionResponse",
            {
                "jsonrpc": "2.0",
                "id": 7,
                "result": {"outcome": {"outcome": "selected", "optionId": "allow-once"}},
            },
        ),
        (
            "request_permission response (cancelled)",
            "agent",
            "response",
            "session/request_permission",
            "RequestPermissionResponse",
            {"jsonrpc": "2.0", "id": 8, "result": {"outcome": {"outcome": "cancelled"}}},
        ),
        (
            "session/cancel notification",
            "agent",
            "notification",
            "session/cancel",
            "CancelNotification",
            {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SESSION}},
        ),
        (
            "fs/read_text_file request",
            "client",
            "request",
            "fs/read_text_file",
            "ReadTextFileRequest",
            {
                "jsonrpc": "2.0",
                "id": 9,
                "method": "fs/read_text_file",
                "params": {
                    "sessionId": SESSION,
                    "path": f"{CWD}/src/routes/users.ts",
                    "line": 1,
                    "limit": 200,
                },
            },
        ),
        (
            "fs/read_text_file response (4 KB)",
            "agent",
            "response",
            "fs/read_text_file",
            "ReadTextFileResponse",
            {"jsonrpc": "2.0", "id": 9, "result": {"content": _source_text(4096)}},
        ),
        (
            "error answer (invalid params)",
            "client",
            "error",
            "session/prompt",
            "Error",
            {
                "jsonrpc": "2.0",
                "id": 3,
                "error": {
                    "code": -32602,
                    "message": "Invalid params: missing field `prompt`",
                    "data": {"path": "$.params.prompt", "message": "missing field"},
                },
            },
        ),
        (
            "error answer (auth required)",
            "client",
            "error",
            "session/new",
            "Error",
            {
                "jsonrpc": "2.0",
                "id": 4,
                "error": {"code": -32000, "message": "Authentication required"},
            },
        ),
        (
            "session/prompt request (1 MB resource)",
            "agent",
            "request",
            "session/prompt",
            "PromptRequest",
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "session/prompt",
                "params": {
                    "sessionId": SESSION,
                    "prompt": [
                        _text("Review this module for bugs."),
                        {
                            "type": "resource",
                            "resource": {
                                "uri": f"file://{CWD}/generated/big_module.py",
                                "mimeType": "text/x-python",
                                "text": _source_text(LARGE_MIN_BYTES),
                            },
                        },
                    ],
                },
            },
        ),
    ]
    return msgs


def dumps(obj: Any) -> bytes:
    """Compact JSON as peers put it on the wire (non-ASCII kept as UTF-8)."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


@functools.cache
def schema() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_bytes())


@functools.cache
def def_validator(def_name: str) -> Any:
    """A jsonschema validator for one def of the schema (built once, then kept)."""
    from jsonschema import Draft202012Validator

    sub = {
        "$schema": schema()["$schema"],
        "$defs": schema()["$defs"],
        "$ref": f"#/$defs/{def_name}",
    }
    return Draft202012Validator(sub)


def validate(msg: Message) -> None:
    """Raise jsonschema.ValidationError unless the message passes the root schema and its def."""
    from jsonschema import Draft202012Validator

    whole = json.loads(msg.data)
    Draft202012Validator(schema()).validate(whole)
    def_validator(msg.def_name).validate(whole[msg.body_key])
    if msg.kind in ("response", "error"):
        assert "id" in whole and "method" not in whole
    if msg.kind == "request":
        assert "id" in whole
    if msg.kind == "notification":
        assert "id" not in whole


@functools.cache
def corpus() -> tuple[Message, ...]:
    """Every message of the corpus, each validated once against the schema."""
    out = []
    for name, side, kind, method, def_name, obj in _messages():
        msg = Message(name, dumps(obj), side, kind, method, def_name, obj.get("id"))
        validate(msg)
        out.append(msg)
    large = out[-1]
    assert len(large.data) >= LARGE_MIN_BYTES, len(large.data)
    updates = {
        json.loads(m.data)["params"]["update"]["sessionUpdate"]
        for m in out
        if m.method == "session/update"
    }
    expected = {
        b["properties"]["sessionUpdate"]["const"]
        for b in schema()["$defs"]["SessionUpdate"]["oneOf"]
    }
    assert (
        updates == expected
    ), f"session/update variants missing from the corpus: {expected - updates}"
    return tuple(out)


REPAIR_NAME = "update tool_call_update, a location without its path skipped (lenient repair)"


@functools.cache
def repair_message() -> Message:
    """A message the schema's own leniency must repair: a tool_call_update whose `locations` (a
    list marked `x-deserialize-skip-invalid-items`) holds one item of the wrong shape. Its def
    rejects it as sent (checked here); a receiver decodes it with that item dropped."""
    from jsonschema import ValidationError

    update = json.loads(
        next(m for m in corpus() if m.name == "update tool_call_update (diff)").data
    )
    good = update["params"]["update"]["locations"][0]
    update["params"]["update"]["locations"] = [good, {"line": 12}, good]
    msg = Message(
        REPAIR_NAME,
        dumps(update),
        "client",
        "notification",
        "session/update",
        "SessionNotification",
    )
    try:
        validate(msg)
    except ValidationError:
        return msg
    raise AssertionError("the lenient-repair message should break its def")


def streaming_chunk(i: int = 0) -> dict[str, Any]:
    """The agent_message_chunk the pipe benchmarks stream (a typical token-sized chunk)."""
    return _update(
        {"sessionUpdate": "agent_message_chunk", "content": _text(f"token {i} of the answer, ")}
    )


def huge_prompt(min_bytes: int) -> bytes:
    """A session/prompt request carrying one embedded text resource of at least min_bytes."""
    return dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "session/prompt",
            "params": {
                "sessionId": SESSION,
                "prompt": [
                    _text("Summarise this log."),
                    {
                        "type": "resource",
                        "resource": {
                            "uri": "file:///var/log/huge.log",
                            "mimeType": "text/plain",
                            "text": _source_text(min_bytes, wide=False),
                        },
                    },
                ],
            },
        }
    )
