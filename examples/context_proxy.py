"""A proxy that adds a text block to every prompt: context the agent behind it always gets.

    python -m acp_runtime.conductor -- python examples/context_proxy.py [--text TEXT] \\
        -- AGENT_CMD [ARGS...]

The block goes after the user's own blocks (examples/tidy_agent.py reads its file name from the
first one). Everything else crosses the proxy unchanged (acp_runtime.proxy, docs/proxy.md).
"""

from __future__ import annotations

import argparse

import acp_schema as acp
from acp_runtime.proxy import Proxy, run_proxy


class ContextProxy(Proxy[acp.AgentProxy, acp.ClientProxy]):
    def __init__(self, text: str) -> None:
        self.text = text

    async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
        params.prompt = [*params.prompt, acp.TextContent(text=self.text)]
        return await self.successor.session_prompt(params)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--text", default="Project rule: keep changes small.", help="the block added"
    )
    args = parser.parse_args()
    run_proxy(lambda: ContextProxy(args.text))


if __name__ == "__main__":
    main()
