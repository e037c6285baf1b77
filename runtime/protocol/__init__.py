"""The ACP layer: ACP's rules (`rules.py`, `guards.py`), what a connection derives from its package
(`guards.py`, `PackagePlan`), ACP as the policy its JSON-RPC engine calls (`policy.py`), and the
connection, with its routes by protocol version, and its two sides (`connection.py`, `agent.py`,
`client.py`). It sits on `acp_runtime.jsonrpc` and knows no transport.
"""
