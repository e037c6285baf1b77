"""A pass-through proxy: defines no handler, so it forwards everything.

python pass_proxy.py [1|2]     (the schema package: acp_schema or acp_schema_v2)
"""

from __future__ import annotations

import sys

import acp_schema
import acp_schema_v2
from acp_runtime.proxy import Proxy, run_proxy


class PassThrough(Proxy[acp_schema.AgentProxy, acp_schema.ClientProxy]):
    """Nothing overridden."""


if __name__ == "__main__":
    run_proxy(PassThrough, acp_schema_v2 if sys.argv[1:] == ["2"] else acp_schema)
