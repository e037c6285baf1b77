"""The checks `acpgen check` runs against an agent, each citing its requirement per version."""

from __future__ import annotations

from .model import Check

NEWLINES = "ACP-V1-TRANSPORT-STDIO-NEWLINE-DELIMITED"

AGENT_CHECKS: tuple[Check, ...] = (
    Check(
        "schema.frames",
        "ACP-V1-INIT-VERSION-AGREEMENT",
        "ACP-V2-INIT-VERSION-AGREEMENT",
        "every frame the agent sends decodes strictly with the revision's package (on v1 each"
        " method cites its own schema row)",
    ),
    Check(
        "transport.utf8",
        "ACP-V1-TRANSPORT-UTF8",
        None,
        "every line on stdout is UTF-8",
        shared=True,
    ),
    Check(
        "transport.stdout-only-acp",
        "ACP-V1-TRANSPORT-AGENT-STDOUT-ONLY-ACP",
        None,
        "every line on stdout is a JSON-RPC message",
        shared=True,
    ),
    Check(
        "init.answer",
        "ACP-V1-INIT-AGENT-RESPONSE",
        "ACP-V2-INIT-VERSION-AGREEMENT",
        "initialize gets a result with the chosen protocol version",
    ),
    Check(
        "init.info", "ACP-V1-INIT-IMPLEMENTATION-INFO", None, "initialize's answer has agentInfo"
    ),
    Check(
        "version.higher",
        "ACP-V1-INIT-AGENT-LATEST-VERSION",
        "ACP-V2-INIT-AGENT-LATEST-VERSION",
        "asked for protocol version 65535 (unknown), the agent answers its latest supported one",
    ),
    Check(
        "version.lower",
        "ACP-V1-INIT-AGENT-LATEST-VERSION",
        "ACP-V2-INIT-AGENT-LATEST-VERSION",
        "asked for protocol version 0 (unsupported), the agent answers its latest supported one",
    ),
    Check(
        "session.new-id",
        "ACP-V1-SETUP-NEW-SESSION-ID",
        None,
        "two session/new calls get two distinct, non-empty session ids",
    ),
    Check(
        "prompt.stop-reason",
        "ACP-V1-PROMPT-RESPOND-WITH-STOP-REASON",
        "ACP-V2-PROMPT-AGENT-IDLE-STOP-REASON",
        "a text prompt's turn ends with a stop reason (v1: the answer; v2: an idle state_update)",
    ),
    Check(
        "prompt.accepted",
        None,
        "ACP-V2-PROMPT-AGENT-RESPOND-ON-ACCEPT",
        "session/prompt is answered once accepted, before the turn's idle state_update",
    ),
    Check(
        "prompt.user-message",
        None,
        "ACP-V2-PROMPT-AGENT-USER-MESSAGE",
        "after accepting a prompt the agent reports the user message (user_message or chunks)",
    ),
    Check(
        "prompt.running",
        None,
        "ACP-V2-PROMPT-AGENT-RUNNING",
        "a turn reports state_update running before its idle state_update",
    ),
    Check(
        "prompt.no-update-after-answer",
        "ACP-V1-PROMPT-UPDATES-BEFORE-RESPONSE",
        "ACP-V2-CANCEL-AGENT-UPDATES-BEFORE-IDLE",
        "no session/update of a turn after the turn's end (v1: the prompt's answer; v2: the"
        " idle state_update of a cancelled turn)",
    ),
    Check(
        "prompt.tool-calls-announced",
        "ACP-V1-TOOLS-REPORT-TOOL-CALL",
        None,
        "every tool_call_update names a tool call a tool_call update announced first",
    ),
    Check(
        "cancel.cancelled",
        "ACP-V1-PROMPT-AGENT-CANCELLED-STOP-REASON",
        "ACP-V2-CANCEL-AGENT-IDLE-CANCELLED",
        "a turn cancelled while running ends with stop reason `cancelled`",
    ),
    Check(
        "rpc.cancel-request",
        "ACP-V1-CANCEL-REQUEST-MUST-RESPOND",
        None,
        "a prompt cancelled at once with $/cancel_request is still answered: a result or -32800",
        shared=True,
    ),
    Check(
        "rpc.unknown-method",
        "ACP-V1-EXT-UNKNOWN-METHOD-NOT-FOUND",
        None,
        "a request for a method nobody defines gets -32601",
        shared=True,
    ),
    Check(
        "rpc.unknown-extension",
        "ACP-V1-EXT-UNKNOWN-METHOD-NOT-FOUND",
        None,
        "an unknown `_` extension request gets -32601",
        shared=True,
    ),
    Check(
        "rpc.bad-params",
        "ACP-V1-SCHEMA-ERROR-OBJECT",
        None,
        "session/new with params of the wrong types gets -32602 (invalid params)",
        shared=True,
    ),
    Check(
        "rpc.id-echo",
        "ACP-V1-JSONRPC-RESPONSE-ID-ECHO",
        None,
        "answers carry the request's id exactly: strings, 0, negatives, large numbers",
        shared=True,
    ),
    Check(
        "rpc.response-required",
        "ACP-V1-JSONRPC-RESPONSE-REQUIRED",
        None,
        "every request of the main connection is answered within --timeout",
        shared=True,
    ),
    Check(
        "rpc.notification-no-reply",
        "ACP-V1-JSONRPC-NO-REPLY-TO-NOTIFICATION",
        None,
        "unknown notifications (plain and `_`) and a session/cancel for an unknown session get"
        " no answer",
        shared=True,
    ),
    Check(
        "rpc.unknown-notification-ignored",
        "ACP-V1-EXT-IGNORE-UNKNOWN-NOTIFICATIONS",
        None,
        "after unknown notifications the agent still answers requests",
        shared=True,
    ),
    Check(
        "session.list",
        "ACP-V1-LIST-AGENT-RESPONSE",
        "ACP-V2-SESSION-LIST-BASELINE",
        "advertised sessionCapabilities.list (v1) or capabilities.session (v2): session/list"
        " answers with a list of sessions",
    ),
    Check(
        "session.load-replay",
        "ACP-V1-SETUP-LOAD-REPLAY",
        None,
        "advertised loadSession: loading a session with a finished turn replays it as updates",
    ),
    Check(
        "session.load-answer-after-replay",
        "ACP-V1-SETUP-LOAD-RESPOND-AFTER-REPLAY",
        None,
        "advertised loadSession: no replayed update arrives after session/load's answer",
    ),
    Check(
        "session.resume-no-replay",
        "ACP-V1-SETUP-RESUME-NO-REPLAY",
        None,
        "advertised sessionCapabilities.resume: session/resume replays nothing before answering",
    ),
    Check(
        "session.close",
        "ACP-V1-SETUP-CLOSE-CANCELS-AND-FREES",
        None,
        "advertised sessionCapabilities.close: close answers, and the closed session takes no"
        " more prompts",
    ),
    Check(
        "session.delete-idempotent",
        "ACP-V1-DELETE-IDEMPOTENT",
        None,
        "advertised sessionCapabilities.delete: deleting a session twice, and one that never"
        " existed, succeeds",
    ),
    Check(
        "session.unadvertised",
        "ACP-V1-INIT-SESSION-OPTIONAL-MAY",
        None,
        "session methods the agent does not advertise are refused (information only)",
    ),
    Check(
        "modes.set-listed",
        "ACP-V1-MODES-INITIAL-STATE-MAY",
        None,
        "advertised modes: session/set_mode to each listed mode succeeds (information only)",
    ),
    Check(
        "config.set-complete",
        "ACP-V1-CONFIG-SET-RESPONSE-COMPLETE",
        None,
        "advertised configOptions: session/set_config_option answers with every option",
    ),
    Check(
        "caps.fs-not-offered",
        "ACP-V1-FS-AGENT-NO-CALL-WITHOUT-CAPABILITY",
        None,
        "offered no file system, the agent never calls fs/*",
    ),
    Check(
        "caps.terminal-not-offered",
        "ACP-V1-TERM-AGENT-NO-CALL-WITHOUT-CAPABILITY",
        None,
        "offered no terminal, the agent never calls terminal/*",
    ),
    Check(
        "caps.terminal-release",
        "ACP-V1-TERM-AGENT-RELEASE",
        None,
        "offered the file system and terminals (a connection of its own), the agent releases every"
        " terminal it creates (the fs and terminal calls it made are listed)",
    ),
    Check(
        "prompt.baseline-content",
        "ACP-V1-INIT-PROMPT-BASELINE",
        None,
        "a prompt of a text and a resource_link block (the baseline every agent takes) gets a"
        " stop reason",
    ),
    Check(
        "prompt.advertised-content",
        "ACP-V1-INIT-PROMPT-RICHER-MAY",
        None,
        "each content kind promptCapabilities advertises (image, audio, embedded resource) is"
        " taken in a prompt (information only)",
    ),
    Check(
        "auth.terminal-method",
        "ACP-V1-AUTH-AGENT-TERMINAL-METHOD-ONLY-WITH-CAPABILITY",
        None,
        "the checker enables no terminal authentication: no advertised method is of type terminal",
    ),
    Check(
        "auth.required-advertised",
        "ACPGEN-AUTH-REQUIRED-NEEDS-METHODS",
        None,
        "no request is answered -32000 (authentication required) while initialize advertises no"
        " auth method",
        shared=True,
    ),
    Check(
        "caps.elicitation-not-offered",
        "ACP-V1-ELIC-AGENT-NO-UNADVERTISED-MODE",
        None,
        "offered no elicitation (clientCapabilities.elicitation omitted), the agent never calls"
        " elicitation/create",
    ),
    Check(
        "config.no-boolean",
        "ACP-V1-CONFIG-NO-BOOLEAN-WITHOUT-CAPABILITY",
        None,
        "the checker advertises no boolean config options: no configOptions payload (session/new,"
        " set_config_option, load, resume answers, config_option_update) has a boolean option",
    ),
    Check(
        "session.resume-history",
        "ACP-V1-SETUP-RESUME-NO-REPLAY",
        None,
        "advertised sessionCapabilities.resume: resuming a session with a finished turn brings"
        " none of its history, before the answer or after it",
    ),
    Check(
        "rpc.malformed-survives",
        "ACP-V1-JSONRPC-RESPONSE-REQUIRED",
        None,
        "after a line that is not JSON and a JSON object that is no JSON-RPC message, the next"
        " request is still answered (a connection of its own)",
        shared=True,
    ),
    Check(
        "rpc.malformed-null-id",
        "ACP-V1-JSONRPC-RESPONSE-ID-ECHO",
        None,
        "an error answer to a line that is not JSON, or to an object that is no request, has"
        " id null (-32700 parse error, -32600 invalid request)",
        shared=True,
    ),
    Check(
        "rpc.batch",
        None,
        "ACPGEN-V2-BATCH",
        "v2: a batch of two requests is answered with an array of two answers; a refusal is"
        " information (the v2 publications disagree on batches)",
    ),
    Check(
        "transport.bounded",
        "ACPGEN-OUTPUT-BOUNDED",
        None,
        "no connection sends more frames, bytes or a longer line than the checker keeps",
        shared=True,
    ),
    Check(
        "remote.drop-mid-turn",
        "ACPGEN-REMOTE-DROP-SURVIVES",
        None,
        "--url: a connection closed in the middle of a turn; a new connection is then served"
        " (information only)",
        shared=True,
    ),
    Check(
        "stdio.split-line",
        NEWLINES,
        None,
        "a frame written in three pieces, 50 ms apart, is read as one message",
        shared=True,
    ),
    Check(
        "stdio.huge-line",
        NEWLINES,
        None,
        "a 1 MiB prompt on one line is read and answered",
        shared=True,
    ),
    Check(
        "stdio.eof-mid-turn",
        "ACPGEN-STDIO-EOF-EXIT",
        None,
        "stdin closed in the middle of a turn: the agent exits (information only)",
        shared=True,
    ),
)

CHECKS = {check.name: check for check in AGENT_CHECKS}

# Each v1 method's schema row: a frame of that method (or answering it) that fails to decode
# fails this row. Methods without one cite the check's default (ACP-V1-INIT-VERSION-AGREEMENT).
V1_SCHEMA_ROWS = {
    "initialize": "ACP-V1-SCHEMA-INITIALIZE-SHAPE",
    "authenticate": "ACP-V1-SCHEMA-AUTHENTICATE-SHAPE",
    "logout": "ACP-V1-SCHEMA-LOGOUT-SHAPE",
    "session/new": "ACP-V1-SCHEMA-NEW-SESSION-SHAPE",
    "session/load": "ACP-V1-SCHEMA-LOAD-SESSION-SHAPE",
    "session/resume": "ACP-V1-SCHEMA-RESUME-SESSION-SHAPE",
    "session/close": "ACP-V1-SCHEMA-CLOSE-SESSION-SHAPE",
    "session/list": "ACP-V1-SCHEMA-LIST-SESSIONS-SHAPE",
    "session/delete": "ACP-V1-SCHEMA-DELETE-SESSION-SHAPE",
    "session/set_mode": "ACP-V1-SCHEMA-SET-MODE-SHAPE",
    "session/set_config_option": "ACP-V1-SCHEMA-SET-CONFIG-OPTION-SHAPE",
    "session/prompt": "ACP-V1-SCHEMA-PROMPT-SHAPE",
    "session/cancel": "ACP-V1-SCHEMA-CANCEL-NOTIFICATION-SHAPE",
    "$/cancel_request": "ACP-V1-SCHEMA-CANCEL-REQUEST-NOTIFICATION-SHAPE",
    "session/request_permission": "ACP-V1-SCHEMA-REQUEST-PERMISSION-SHAPE",
    "session/update": "ACP-V1-SCHEMA-SESSION-UPDATE-VARIANTS",
    "fs/read_text_file": "ACP-V1-SCHEMA-READ-TEXT-FILE-SHAPE",
    "fs/write_text_file": "ACP-V1-SCHEMA-WRITE-TEXT-FILE-SHAPE",
    "terminal/create": "ACP-V1-SCHEMA-TERMINAL-CREATE-SHAPE",
    "terminal/output": "ACP-V1-SCHEMA-TERMINAL-OUTPUT-SHAPE",
    "terminal/release": "ACP-V1-SCHEMA-TERMINAL-RELEASE-SHAPE",
    "terminal/wait_for_exit": "ACP-V1-SCHEMA-TERMINAL-WAIT-FOR-EXIT-SHAPE",
    "terminal/kill": "ACP-V1-SCHEMA-TERMINAL-KILL-SHAPE",
    "elicitation/create": "ACP-V1-SCHEMA-ELICITATION-CREATE-SHAPE",
    "elicitation/complete": "ACP-V1-SCHEMA-ELICITATION-COMPLETE-SHAPE",
}
