"""The normative sentences `acpgen check --proxy` cites: the descriptions of `proxy/initialize`
and `proxy/successor` in the default schemas (schema/schema.json and schema/v2/schema.json say
the same), and the Proxy Chains RFD. No numbered requirements file carries them, so the checker
cites each with its source, as it cites its observations (model.OBSERVATIONS)."""

from __future__ import annotations

from .requirement import Requirement

_SCHEMAS = "schema/schema.json, schema/v2/schema.json"
_RFD = "rfds/proxy-chains.mdx"

PROXY_ROWS = {
    row.id: row
    for row in (
        Requirement(
            "PROXY-INIT-FORWARD-FIRST",
            "MUST",
            "proxy",
            f"{_SCHEMAS}: InitializeProxyRequest (proxy/initialize)",
            "A conductor sends `proxy/initialize` instead of `initialize` to every component that"
            " has a successor [...] Before answering successfully, the proxy MUST forward an"
            " `initialize` request to its successor through `proxy/successor`.",
        ),
        Requirement(
            "PROXY-INIT-VERSION-UNCHANGED",
            "MUST NOT",
            "proxy",
            f"{_SCHEMAS}: InitializeProxyResponse (proxy/initialize)",
            "The same as the `initialize` response. The proxy builds it from its successor's"
            " `initialize` response and answers with the capabilities of the chain from itself"
            " onward. It MUST NOT change `protocolVersion`.",
        ),
        Requirement(
            "PROXY-FORWARD-UNKNOWN",
            "SHOULD",
            "proxy",
            f"{_RFD} L249",
            "The proxy SHOULD forward requests it does not understand.",
        ),
        Requirement(
            "PROXY-SUCCESSOR-UNCHANGED",
            "MUST",
            "proxy",
            f"{_SCHEMAS}: ProxySuccessorRequest, ProxySuccessorResponse (proxy/successor)",
            "The result or error of the wrapped request is returned unchanged, as the same JSON"
            " value, as the result or error of the `proxy/successor` request. (Result of a"
            " `proxy/successor` request: the wrapped request's result, forwarded unchanged.)",
        ),
        Requirement(
            "PROXY-CANCEL-HOP-LOCAL",
            "MUST",
            "proxy",
            f"{_SCHEMAS}: ProxySuccessorRequest (proxy/successor)",
            "To cancel it, the sender sends `$/cancel_request` with the ID of this"
            " `proxy/successor` request on the same connection. Cancellation is never forwarded"
            " to another hop.",
        ),
        Requirement(
            "PROXY-META-HOP-LOCAL",
            "MUST",
            "proxy",
            f"{_SCHEMAS}: ProxySuccessorRequest, ProxySuccessorNotification `_meta`, `params`;"
            f" {_RFD} L250",
            "`_meta` (an object or null): metadata for the `proxy/successor` envelope itself,"
            " separate from the wrapped message's `_meta`. It is hop-local: the conductor does"
            " not copy it into the message it unwraps. The wrapped request's own `_meta` stays"
            " inside these params (the RFD: the proxy SHOULD preserve metadata fields when"
            " forwarding messages).",
        ),
    )
}
