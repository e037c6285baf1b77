"""The checks `acpgen check --proxy` makes, each citing its sentence (proxy_rows.py, or a v1
row that v2 keeps unchanged)."""

from __future__ import annotations

from .model import Check

PROXY_CHECKS: tuple[Check, ...] = (
    Check(
        "proxy.initialize-forwarded",
        "PROXY-INIT-FORWARD-FIRST",
        "PROXY-INIT-FORWARD-FIRST",
        "proxy/initialize is forwarded to the successor as initialize, inside proxy/successor,"
        " before the proxy answers it",
    ),
    Check(
        "proxy.version-unchanged",
        "PROXY-INIT-VERSION-UNCHANGED",
        "PROXY-INIT-VERSION-UNCHANGED",
        "the proxy's answer to proxy/initialize carries the successor's protocolVersion",
    ),
    Check(
        "proxy.unknown-forwarded",
        "PROXY-FORWARD-UNKNOWN",
        "PROXY-FORWARD-UNKNOWN",
        "requests and notifications the proxy does not know are forwarded, params unchanged:"
        " the client's to the successor, the successor's to the client",
    ),
    Check(
        "proxy.answers-unchanged",
        "PROXY-SUCCESSOR-UNCHANGED",
        "PROXY-SUCCESSOR-UNCHANGED",
        "results and errors come back unchanged, as the same JSON values, in both directions",
    ),
    Check(
        "proxy.cancel-hop-local",
        "PROXY-CANCEL-HOP-LOCAL",
        "PROXY-CANCEL-HOP-LOCAL",
        "a $/cancel_request is never forwarded to another hop: the proxy cancels only its own"
        " requests on its connection, never wraps a cancel in proxy/successor",
    ),
    Check(
        "proxy.meta-hop-local",
        "PROXY-META-HOP-LOCAL",
        "PROXY-META-HOP-LOCAL",
        "a proxy/successor envelope's _meta is an object or null and is not copied into the"
        " message unwrapped; the wrapped message's own _meta is kept",
    ),
    Check(
        "proxy.utf8",
        "ACP-V1-TRANSPORT-UTF8",
        None,
        "every line the proxy writes is UTF-8",
        shared=True,
    ),
    Check(
        "proxy.stdout-only-acp",
        "ACP-V1-TRANSPORT-AGENT-STDOUT-ONLY-ACP",
        None,
        "every line the proxy writes is a JSON-RPC message",
        shared=True,
    ),
    Check(
        "proxy.jsonrpc-version",
        "ACP-V1-JSONRPC-VERSION-MEMBER",
        None,
        'every message carries "jsonrpc": "2.0"',
        shared=True,
    ),
    Check(
        "proxy.id-echo",
        "ACP-V1-JSONRPC-RESPONSE-ID-ECHO",
        None,
        "answers carry the ids of the checker's requests exactly, and no answer names an id the"
        " checker never sent",
        shared=True,
    ),
    Check(
        "proxy.eof-exit",
        "ACPGEN-STDIO-EOF-EXIT",
        None,
        "the proxy exits when its stdin closes (lingering is reported as information)",
        shared=True,
    ),
)
PROXY_CHECK_NAMES = {c.name: c for c in PROXY_CHECKS}
