"""The streaming paths' cost per update, in one process (no pipe, no second process): steady under
load when counted with callgrind, which counts instructions rather than time.

python stream_inprocess.py client|fold|agent N

- `client`: N agent_message_chunk lines pushed into a client connection in 64 KiB reads (H_CHUNK),
  handled by a counting handler; `fold`: the same with `acp_runtime.session.Session` attached;
- `agent`: a served session/prompt sending N chunks through the generated proxy (as runtime_agent.py
  does), written to a stream that drops them.

Prints the CPU time per update. For instructions per update, run it under
`valgrind --tool=callgrind` for N and 2N (H_BUILD=2N builds the same lines both times) and divide
the difference by N. H_LOOP=asyncio: stock asyncio (default uvloop); H_NOGC=1: the collector off.
"""

import asyncio
import gc
import os
import sys
import time

import msgspec

import acp_schema as acp
from acp_runtime import AgentSideConnection, ClientSideConnection
from acp_runtime.jsonrpc.framing import PushReader
from acp_runtime.session import Session

SESSION = "bench-session"


class Discard:
    class transport:
        @staticmethod
        def get_write_buffer_size():
            return 0

    def write(self, data):
        pass

    async def drain(self):
        pass

    def close(self):
        pass


class Counting(acp.ClientHandler):
    def __init__(self):
        self.count = 0

    async def session_update(self, params):
        self.count += 1


def line(i):
    return (
        msgspec.json.encode(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": SESSION,
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": f"token {i} of the answer, "},
                    },
                },
            }
        )
        + b"\n"
    )


async def client(n, fold):
    handler = Counting()
    reader = PushReader()
    conn = ClientSideConnection(lambda c: handler, reader, Discard())

    async def answer(i, result):
        await asyncio.sleep(0)
        reader.feed_data(msgspec.json.encode({"jsonrpc": "2.0", "id": i, "result": result}) + b"\n")

    t = asyncio.ensure_future(answer(0, {"protocolVersion": 1, "agentCapabilities": {}}))
    await conn.agent.initialize(acp.InitializeRequest(protocol_version=1))
    await t
    t = asyncio.ensure_future(answer(1, {"sessionId": SESSION}))
    if fold:
        session = await Session.new(conn, "/")
    else:
        await conn.agent.session_new(acp.NewSessionRequest(cwd="/", mcp_servers=[]))
    await t
    lines = [line(i) for i in range(int(os.environ.get("H_BUILD", n)))]
    data = b"".join(lines[:n])
    CH = int(os.environ.get("H_CHUNK", 65536))
    chunks = [data[i : i + CH] for i in range(0, len(data), CH)]

    async def run(chunks, n):
        handler.count = 0
        for c in chunks:
            reader.feed_data(c)
            await asyncio.sleep(0)
        while handler.count < n:
            await asyncio.sleep(0)

    if os.environ.get("H_FREEZE"):
        gc.freeze()
    warm = b"".join(line(i) for i in range(2000))
    await run([warm], 2000)
    s0 = [g["collections"] for g in gc.get_stats()]
    t0 = time.process_time()
    await run(chunks, n)
    dt = time.process_time() - t0
    print(
        "gc",
        [g["collections"] - a for g, a in zip(gc.get_stats(), s0, strict=True)],
        len(gc.get_objects()),
    )
    if fold:
        assert (
            len(session.state.messages) == 1 and len(session.state.messages[0].content) == n + 2000
        )
    return dt


async def agent(n):
    reader = asyncio.StreamReader()
    out = {}

    class A(acp.AgentHandler):
        def __init__(self, conn):
            self.conn = conn

        async def initialize(self, p):
            return acp.InitializeResponse(protocol_version=p.protocol_version)

        async def session_new(self, p):
            return acp.NewSessionResponse(session_id=SESSION)

        async def session_prompt(self, p):
            notify = self.conn.client.session_update
            session_id = p.session_id
            count = int(p.prompt[0].text)
            t0 = time.process_time()
            for i in range(count):
                chunk = acp.SessionUpdateAgentMessageChunk(
                    content=acp.TextContent(text=f"token {i} of the answer, ")
                )
                await notify(acp.SessionNotification(session_id=session_id, update=chunk))
            out[count] = time.process_time() - t0
            return acp.PromptResponse(stop_reason="end_turn")

    conn = AgentSideConnection(A, reader, Discard())
    for setup in (
        b'{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1}}\n',
        b'{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}\n',
    ):
        reader.feed_data(setup)
    while not conn.initialized or conn.serving:
        await asyncio.sleep(0.001)
    for i, count in ((2, 2000), (3, n)):
        reader.feed_data(
            b'{"jsonrpc":"2.0","id":%d,"method":"session/prompt","params":{"sessionId":"bench-session","prompt":[{"type":"text","text":"%d"}]}}\n'
            % (i, count)
        )
        while count not in out:
            await asyncio.sleep(0.001)
    await conn.close()
    return out[n]


def main():
    kind, n = sys.argv[1], int(sys.argv[2])
    loop = os.environ.get("H_LOOP", "uvloop")
    if loop == "uvloop":
        import uvloop

        runner = uvloop.run
    else:
        runner = asyncio.run
    dt = runner(agent(n) if kind == "agent" else client(n, kind == "fold"))
    print(f"{kind} {dt / n * 1e6:.3f} us/update")


if os.environ.get("H_NOGC"):
    gc.disable()
main()
