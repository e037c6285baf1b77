"""acp_runtime.proxy: serve the proxy side of a proxy chain (the Proxy Chains RFD).

    import acp_schema as acp
    from acp_runtime.proxy import Proxy, run_proxy

    class Context(Proxy[acp.AgentProxy, acp.ClientProxy]):
        async def session_prompt(self, params: acp.PromptRequest) -> acp.PromptResponse:
            params.prompt = [acp.TextContent(text="Be brief."), *params.prompt]
            return await self.successor.session_prompt(params)

    run_proxy(Context, schema=acp)

A proxy talks to one peer, its conductor, on stdio. What its predecessor (the client's direction)
sends arrives plain; what its successor (the agent's direction) sends arrives wrapped in
`proxy/successor`. A method the proxy class does not define is forwarded, params and answer
unchanged, byte for byte. Methods a subclass defines, by the generated handler names
(`AgentHandler`'s for what the predecessor sends, `ClientHandler`'s for what the successor sends),
are served typed.

The conductor that runs a chain of such proxies in front of an agent is `python -m
acp_runtime.conductor` (`cli.py`, `conduct.py`, `chain.py`, `trace.py`; docs/proxy.md).
"""

from .base import Proxy
from .router import ProxyRouter, run_proxy, serve_proxy

__all__ = ["Proxy", "ProxyRouter", "run_proxy", "serve_proxy"]
