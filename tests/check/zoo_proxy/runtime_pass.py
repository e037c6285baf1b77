"""A pass-through proxy on acp_runtime's proxy API: it defines no handler, so the router forwards
every message both ways unchanged. It passes every `acpgen check --proxy` check, v1 and v2."""

from __future__ import annotations

import acp_schema as acp
from acp_runtime.proxy import Proxy, run_proxy


class PassThrough(Proxy[acp.AgentProxy, acp.ClientProxy]):
    pass


run_proxy(PassThrough, schema=acp)
