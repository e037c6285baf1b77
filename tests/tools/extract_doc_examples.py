"""Extract the JSON-RPC messages of the ACP v1 protocol docs into tests/fixtures/doc_examples.json.

One-off script, run by hand (tests only read its output):

    .venv/bin/python tests/tools/extract_doc_examples.py [DOCS_DIR]

DOCS_DIR defaults to /work/shared/acp-spec/docs-v1 (the protocol's docs/protocol/v1/*.mdx).
Every ```json code block is read; a block holding a JSON-RPC 2.0 message (an object with
"jsonrpc") yields a record, any other block (a bare content block, capability object, ...) is
skipped and listed on stderr. Each record is validated against the method's def in
tests/fixtures/schemas/v1-stable-2026-08-20.json. See tests/fixtures/README.md for the format.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError

ROOT = Path(__file__).resolve().parents[2]
SCHEMA_PATH = ROOT / "tests/fixtures/schemas/v1-stable-2026-08-20.json"
OUT_PATH = ROOT / "tests/fixtures/doc_examples.json"
DEFAULT_DOCS = Path("/work/shared/acp-spec/docs-v1")

BLOCK_RE = re.compile(r"^[ \t]*```json[^\n]*\n(.*?)^[ \t]*```", re.S | re.M)
# "the `initialize` response": names the method a response answers in the prose before its block.
PROSE_RESPONSE_RE = re.compile(r"`([a-z_/]+)` response")

# Responses that neither an earlier request of the file nor the prose ties to a method:
# (file, line of the block) -> (method, why).
RESPONSE_METHOD_OVERRIDES = {
    ("extensibility.mdx", 115): (
        "initialize",
        "no request with id 0 in the file; the prose says capabilities are negotiated "
        "'during initialization' and the result has the InitializeResponse shape "
        "(protocolVersion + agentCapabilities)",
    ),
    ("session-setup.mdx", 524): (
        "initialize",
        "no request with id 0 in the file; the prose says 'verify the Agent's capabilities "
        "during initialization' and the result has the InitializeResponse shape",
    ),
    ("session-modes.mdx", 19): (
        "session/new",
        "no request with id 1 in the file; the prose says 'During Session Setup the Agent MAY "
        "return ... modes' and the result has a sessionId, which only NewSessionResponse has",
    ),
    ("session-config-options.mdx", 19): (
        "session/new",
        "no request with id 1 in the file; the prose says 'During Session Setup the Agent MAY "
        "return ... configuration options' and the result has a sessionId, which only "
        "NewSessionResponse has",
    ),
}
# Extension methods (leading `_`) have no def saying who receives them: decided from the docs' text.
EXTENSION_RECEIVERS = {
    "_zed.dev/workspace/buffers": (
        "client",
        "extension request: asks for the editor's (client's) open buffers, so the agent sends it",
    ),
    "_zed.dev/file_opened": (
        "agent",
        "extension notification: the editor (client) tells the agent that a file was opened",
    ),
}


def parse_block(body: str) -> list[Any]:
    """Parse a code block into its JSON values (several concatenated values are allowed).

    `//` line comments are dropped first. Anything else that is not JSON, such as the docs'
    `[...]` shorthand for elided content, raises JSONDecodeError: such a block is skipped
    rather than guessed at.
    """
    body = "\n".join(line for line in body.splitlines() if not line.lstrip().startswith("//"))
    decoder, pos = json.JSONDecoder(), 0
    values: list[Any] = []
    while True:
        while pos < len(body) and body[pos].isspace():
            pos += 1
        if pos == len(body):
            return values
        value, pos = decoder.raw_decode(body, pos)
        values.append(value)


def method_defs(schema: dict) -> dict[tuple[str, str], str]:
    """Map (kind, method) -> def name, kind in request/notification/response, from the envelopes."""
    defs = schema["$defs"]
    out: dict[tuple[str, str], str] = {}

    def names(node: Any) -> list[str]:  # every $ref'd def name under node
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            return [ref.rsplit("/", 1)[-1]] if ref else [n for v in node.values() for n in names(v)]
        if isinstance(node, list):
            return [n for v in node for n in names(v)]
        return []

    for env, kind, field in [
        ("ClientRequest", "request", "params"),
        ("AgentRequest", "request", "params"),
        ("ClientNotification", "notification", "params"),
        ("AgentNotification", "notification", "params"),
        ("ClientResponse", "response", "result"),
        ("AgentResponse", "response", "result"),
    ]:
        node = defs[env]
        props = node["properties"] if "properties" in node else node["anyOf"][0]["properties"]
        for name in names(props[field]):
            if "x-method" in defs[name]:
                out[(kind, defs[name]["x-method"])] = name
    return out


def describe(err: ValidationError) -> str:
    """A short reason; for a failed union, the errors of the variant whose tag (const) matched."""
    if err.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in err.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        tagged = [errs for errs in branches.values() if all(e.validator != "const" for e in errs)]
        if len(tagged) == 1:
            inner = sorted(tagged[0], key=lambda e: -len(e.absolute_path))[0]
            return describe(inner)
        consts = sorted({repr(e.validator_value) for e in err.context if e.validator == "const"})
        if consts and not tagged:
            return f"at {path_str(err)}: no variant matches; tags expected: {', '.join(consts)}"
    return f"at {path_str(err)}: {err.message[:200]}"


def path_str(err: ValidationError) -> str:
    return "$" + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in err.absolute_path)


def declared_fields(defs: dict, def_name: str) -> set[str]:
    """Every property name that the def declares at its top level, in any of its variants."""
    out: set[str] = set()

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            out.update(node.get("properties", {}))
            if "$ref" in node:
                walk(defs[node["$ref"].rsplit("/", 1)[-1]])
            for key in ("allOf", "anyOf", "oneOf"):
                for sub in node.get(key, []):
                    walk(sub)

    walk(defs[def_name])
    return out


def extract(docs: Path, methods: set[str]) -> tuple[list[dict[str, Any]], list[str]]:
    """The messages of the docs' json blocks with file, index, line, kind, method; and the skips."""
    records: list[dict[str, Any]] = []
    skipped: list[str] = []
    for path in sorted(docs.glob("*.mdx")):
        text = path.read_text()
        file_msgs: list[dict[str, Any]] = []
        prose_start = 0
        for m in BLOCK_RE.finditer(text):
            prose, prose_start = text[prose_start : m.start()], m.end()
            line = text.count("\n", 0, m.start()) + 1
            try:
                values = parse_block(m.group(1))
            except json.JSONDecodeError as exc:
                why = (
                    "uses the `[...]` shorthand for elided content" if "..." in m.group(1) else exc
                )
                skipped.append(f"{path.name}:{line}: not JSON: {why}")
                continue
            for value in values:
                if not (isinstance(value, dict) and value.get("jsonrpc") == "2.0"):
                    skipped.append(
                        f"{path.name}:{line}: not a JSON-RPC message: {json.dumps(value)[:70]}"
                    )
                    continue
                rec: dict[str, Any] = {"file": path.name, "index": len(file_msgs), "line": line}
                if "method" in value:
                    rec["kind"] = "request" if "id" in value else "notification"
                    rec["method"] = value["method"]
                elif "error" in value or "result" in value:
                    rec["kind"] = "error" if "error" in value else "response"
                    rec["method"] = answered_method(
                        path.name, line, value, file_msgs, prose, methods, rec
                    )
                else:
                    skipped.append(f"{path.name}:{line}: JSON-RPC object that is no message kind")
                    continue
                rec["message"] = value
                file_msgs.append(rec)
        records.extend(file_msgs)
    return records, skipped


def answered_method(
    file: str,
    line: int,
    response: dict,
    earlier: list[dict],
    prose: str,
    methods: set[str],
    rec: dict,
) -> str | None:
    """The method a response answers: the nearest earlier request of the file with its id, else
    the "`METHOD` response" named in the prose just before the block, else an override."""
    if (file, line) in RESPONSE_METHOD_OVERRIDES:
        method, rec["note"] = RESPONSE_METHOD_OVERRIDES[(file, line)]
        return method
    for prev in reversed(earlier):
        if prev["kind"] == "request" and prev["message"].get("id") == response.get("id"):
            return prev["method"]
    named = sorted(set(PROSE_RESPONSE_RE.findall(prose)) & methods)
    if len(named) == 1:
        rec["note"] = f"no earlier request with this id; the prose says: '`{named[0]}` response'"
        return named[0]
    return None


def annotate(rec: dict[str, Any], defs: dict, by_method: dict[tuple[str, str], str]) -> None:
    """Add receiver, valid, invalid_reason (and notes) to a record."""
    kind, method, msg = rec["kind"], rec["method"], rec["message"]
    receiver = None
    if method is not None and method.startswith("_"):
        receiver, rec["note"] = EXTENSION_RECEIVERS[method]
    elif method is not None:
        receiver = defs[
            by_method[("notification" if kind == "notification" else "request", method)]
        ]["x-side"]
    if kind in ("response", "error") and receiver is not None:
        receiver = {"agent": "client", "client": "agent"}[
            receiver
        ]  # the side that sent the request
    rec["receiver"] = receiver
    # The def to check the payload against: the method's, else the envelope's generic one.
    def_name: str | None
    if kind == "error":
        def_name, payload = "Error", msg["error"]
    elif method is None:
        def_name, payload = None, None
    else:
        payload = msg.get("result" if kind == "response" else "params")
        generic = {
            "request": "ExtRequest",
            "notification": "ExtNotification",
            "response": "ExtResponse",
        }
        def_name = by_method.get((kind, method), generic[kind])
    reason = "method unknown" if def_name is None else validate(defs, def_name, payload)
    rec["valid"], rec["invalid_reason"] = reason is None, reason
    declared = declared_fields(defs, def_name) if def_name else set()
    extra = sorted(set(payload) - declared) if declared and isinstance(payload, dict) else []
    if extra:
        note = (
            f"payload has fields that {def_name} does not declare (the schema allows them):"
            f" {', '.join(extra)}"
        )
        rec["note"] = f"{rec['note']}; {note}" if "note" in rec else note


def validate(defs: dict, def_name: str, value: Any) -> str | None:
    v = Draft202012Validator({"$ref": f"#/$defs/{def_name}", "$defs": defs})
    errs = sorted(v.iter_errors(value), key=lambda e: list(e.absolute_path))
    return f"{def_name}: {describe(errs[0])}" if errs else None


def main() -> None:
    docs = Path(sys.argv[1]) if len(sys.argv) > 1 else DEFAULT_DOCS
    schema = json.loads(SCHEMA_PATH.read_text())
    by_method = method_defs(schema)
    records, skipped = extract(docs, {m for _, m in by_method})
    for rec in records:
        annotate(rec, schema["$defs"], by_method)

    keys = [
        "file",
        "index",
        "line",
        "kind",
        "method",
        "receiver",
        "valid",
        "invalid_reason",
        "note",
        "message",
    ]
    records = [{k: r[k] for k in keys if k in r} for r in records]
    OUT_PATH.write_text(json.dumps(records, indent=2, ensure_ascii=False) + "\n")

    counts: dict[str, int] = {}
    for r in records:
        counts[r["kind"]] = counts.get(r["kind"], 0) + 1
    print(f"{len(records)} messages: {counts}", file=sys.stderr)
    for r in records:
        if not r["valid"]:
            print(
                f"INVALID {r['file']}:{r['line']} {r['method']}: {r['invalid_reason']}",
                file=sys.stderr,
            )
    print(f"skipped {len(skipped)} blocks/values:", *skipped, sep="\n  ", file=sys.stderr)


if __name__ == "__main__":
    main()
