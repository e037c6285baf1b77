"""An ACP agent that echoes every text block of a prompt back to the client, in ACP v1 and v2.

    python examples/echo_agent.py [--delay SECONDS]
        [--listen HOST:PORT [--token TOKEN] [--certfile CERT.pem --keyfile KEY.pem]]

Each connection speaks the version its client asks for (v2, else v1). Each text block of a prompt
comes back as an agent message chunk; in v1 the prompt's answer ends the turn `end_turn`, in v2 the
answer acknowledges the prompt and the turn runs `user_message`, `state_update` running, the chunks
(with a messageId), then `state_update` idle `end_turn` (`AgentSession.turn` does either).
`--delay` waits before each chunk, which gives a client time to send session/cancel: the runtime
then cancels the turn and it ends `cancelled` (no code needed here).
`--listen` serves remote clients at http://HOST:PORT/acp instead of stdio (Streamable HTTP over
HTTP/1.1 or h2c, and WebSocket, on the one port; needs the `http` extra). Only loopback clients
and pages get in by default (docs/runtime.md, "Security"); `--token` also requires
`Authorization: Bearer TOKEN` on every request (the token may also come from $ECHO_AGENT_TOKEN,
which keeps it out of the process list), and `--certfile`/`--keyfile` serve https:// and wss://.
"""

from __future__ import annotations

import argparse
import asyncio
import hmac
import os
import uuid
from typing import TYPE_CHECKING, Any, Callable

import acp_schema as v1
import acp_schema_v2 as v2
from acp_runtime import AgentSideConnection, run_agent
from acp_runtime.helpers import AgentSession
from acp_runtime.versions import AgentRoute, AgentVersions

if TYPE_CHECKING:
    from acp_runtime.http import RequestInfo


class Echo:
    """The echo, written once for both versions."""

    def __init__(self, conn: AgentSideConnection[Any], delay: float = 0.0) -> None:
        self.conn = conn
        self.delay = delay

    # The answers are wire JSON (any JSON, hence Any): the same dict fits both versions' types.
    async def session_new(self, params: v1.NewSessionRequest | v2.NewSessionRequest) -> Any:
        return {"sessionId": f"echo-{uuid.uuid4().hex[:12]}"}

    async def session_prompt(self, params: v1.PromptRequest | v2.PromptRequest) -> Any:
        session = AgentSession(self.conn, params.session_id)

        async def echo() -> str:
            for block in params.prompt:
                if isinstance(block, (v1.TextContent, v2.TextContent)):
                    await asyncio.sleep(self.delay)
                    await session.say(block.text)
            return "end_turn"

        return await session.turn(params.prompt, echo)


class EchoV1(Echo, v1.AgentHandler):
    async def initialize(self, params: v1.InitializeRequest) -> v1.InitializeResponse:
        info = v1.Implementation(name="echo-agent", version="0.1.0")
        return v1.InitializeResponse(protocol_version=1, agent_info=info)


class EchoV2(Echo, v2.AgentHandler):
    async def initialize(self, params: v2.InitializeRequest) -> v2.InitializeResponse:
        info = v2.Implementation(name="echo-agent", version="0.1.0")
        return v2.InitializeResponse(protocol_version=2, info=info)


def echo_agent(delay: float = 0.0) -> AgentVersions:
    """Both versions, each connection its own handler."""
    return AgentVersions(
        AgentRoute(1, v1, lambda conn: EchoV1(conn, delay)),
        AgentRoute(2, v2, lambda conn: EchoV2(conn, delay)),
    )


def bearer(token: str) -> Callable[[RequestInfo], str | None]:
    """An `authenticate` hook: a request carrying `Authorization: Bearer TOKEN` is the principal
    "token-holder", any other is refused (401). The comparison takes the same time either way."""

    def authenticate(request: RequestInfo) -> str | None:
        given = (request.bearer_token or "").encode()
        return "token-holder" if hmac.compare_digest(given, token.encode()) else None

    return authenticate


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "echo agent").splitlines()[0])
    parser.add_argument(
        "--delay", type=float, default=0.0, help="seconds to wait before each chunk"
    )
    parser.add_argument(
        "--listen", metavar="HOST:PORT", help="serve at http://HOST:PORT/acp instead of stdio"
    )
    parser.add_argument(
        "--token",
        default=os.environ.get("ECHO_AGENT_TOKEN"),
        help="with --listen: require `Authorization: Bearer TOKEN` (default: $ECHO_AGENT_TOKEN)",
    )
    parser.add_argument("--certfile", help="with --listen: serve TLS with this PEM certificate")
    parser.add_argument("--keyfile", help="with --listen: the PEM private key of --certfile")
    args = parser.parse_args()
    if (args.certfile is None) != (args.keyfile is None):
        parser.error("--certfile and --keyfile go together")
    if args.listen:
        from acp_runtime.http import run

        def listening(url: str) -> None:
            print(f"serving {url}", flush=True)

        run(
            echo_agent(args.delay),
            args.listen,
            on_listening=listening,
            authenticate=bearer(args.token) if args.token else None,
            certfile=args.certfile,
            keyfile=args.keyfile,
        )
        return
    run_agent(echo_agent(args.delay))


if __name__ == "__main__":
    main()
