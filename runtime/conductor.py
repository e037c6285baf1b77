"""The proxy-chain conductor (the Proxy Chains RFD): to its client one agent, on stdio.

    python -m acp_runtime.conductor [--trace FILE] -- PROXY_CMD [ARGS...] [-- PROXY_CMD ...] \\
        -- AGENT_CMD [ARGS...]

The logic is in `acp_runtime.proxy` (`cli.py`, `conduct.py`, `chain.py`, `trace.py`); see
docs/proxy.md.
"""

from __future__ import annotations

import sys

from .proxy.cli import main

if __name__ == "__main__":
    sys.exit(main())
