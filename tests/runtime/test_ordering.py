"""Ordering and concurrency: arrival order, notifications before responses, no deadlock."""

from __future__ import annotations

import asyncio
from typing import Any

import acp_schema as acp

from .bounded import within
from .helpers import Agent, Client, pair, raw_agent, text_update


async def test_notifications_reach_the_handler_in_arrival_order() -> None:
    seen: list[str] = []
    arrived: list[str] = []
    all_arrived = asyncio.Event()

    def watch(direction: str, line: bytes, message: Any) -> None:
        if direction == "in" and isinstance(message, acp.Notification):
            arrived.append(message.method)
            if len(arrived) == 20:
                all_arrived.set()

    class FirstHeld(Client):
        async def session_update(self, params):
            if params.update.content.text == "0":
                await all_arrived.wait()  # handled at once, the later ones would overtake it
            seen.append(params.update.content.text)

    conn, peer = await raw_agent(FirstHeld(), enforce_protocol=False, observer=watch)
    for i in range(20):
        peer.send(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {
                    "sessionId": "s1",
                    "update": {
                        "sessionUpdate": "agent_message_chunk",
                        "content": {"type": "text", "text": str(i)},
                    },
                },
            }
        )
    peer.send({"jsonrpc": "2.0", "id": 1, "method": "_ping", "params": {}})
    await peer.recv()
    call = await conn.send_request("_ext/done", {})
    request = await peer.recv()
    peer.send({"jsonrpc": "2.0", "id": request["id"], "result": {}})
    await call
    assert seen == [str(i) for i in range(20)]


async def test_a_notification_sent_before_a_response_is_handled_before_the_call_returns() -> None:
    events: list[str] = []
    watching = False
    response_arrived = asyncio.Event()

    def watch(direction: str, line: bytes, message: Any) -> None:
        if watching and direction == "in" and isinstance(message, acp.Response):
            response_arrived.set()

    class SlowUpdates(Client):
        async def session_update(self, params):
            events.append("update started")
            await response_arrived.wait()  # the prompt's answer is there: the call must still wait
            events.append("update handled")

    class Streaming(Agent):
        async def session_prompt(self, params):
            await self.conn.client.session_update(text_update(params.session_id, "chunk"))
            return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)

    agent, client = await pair(Streaming, SlowUpdates(), client_options={"observer": watch})
    watching = True
    answer = await client.agent.session_prompt(acp.PromptRequest(session_id="s1", prompt=[]))
    events.append("prompt returned")
    assert answer.stop_reason == acp.StopReason.END_TURN
    assert events == ["update started", "update handled", "prompt returned"]


async def test_updates_are_written_before_the_response_on_the_wire() -> None:
    class Streaming(Agent):
        async def session_prompt(self, params):
            for i in range(3):
                await self.conn.client.session_update(text_update(params.session_id, str(i)))
            return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)

    from .helpers import raw_client

    conn, peer = await raw_client(Streaming)
    peer.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "session/prompt",
            "params": {"sessionId": "s1", "prompt": []},
        }
    )
    kinds = [("result" in m) or m["method"] for m in [await peer.recv() for _ in range(4)]]
    assert kinds == ["session/update", "session/update", "session/update", True]


async def test_requests_run_concurrently_and_answers_come_back_in_any_order() -> None:
    order: list[int] = []
    finished = [asyncio.Event() for _ in range(5)]

    class Concurrent(Agent):
        async def ext_method(self, method, params):
            n = params["n"]
            if n < 4:
                await finished[n + 1].wait()  # each waits for the one sent after it
            order.append(n)
            finished[n].set()
            return {"n": n}

    agent, client = await pair(Concurrent)
    calls = asyncio.gather(*(client.request("_work", {"n": n}) for n in range(5)))
    # handled one at a time, the first request would wait forever for the next to start
    results = await within(calls, "requests handled one at a time, not concurrently")
    assert [r["n"] for r in results] == list(range(5))
    assert order == [4, 3, 2, 1, 0]


async def test_both_sides_call_each_other_at_the_same_time() -> None:
    class Echo(Client):
        async def ext_method(self, method, params):
            await asyncio.sleep(0)
            return {"client": params["n"]}

    class EchoAgent(Agent):
        async def ext_method(self, method, params):
            await asyncio.sleep(0)
            return {"agent": params["n"]}

    agent, client = await pair(EchoAgent, Echo())
    calls = [agent.request("_c", {"n": n}) for n in range(20)] + [
        client.request("_a", {"n": n}) for n in range(20)
    ]
    results = await asyncio.gather(*calls)
    assert results[:20] == [{"client": n} for n in range(20)]
    assert results[20:] == [{"agent": n} for n in range(20)]


async def test_a_handler_that_calls_back_into_the_peer_does_not_deadlock() -> None:
    class Files(Client):
        async def fs_read_text_file(self, params):
            return acp.ReadTextFileResponse(content=f"contents of {params.path}")

    class Reader(Agent):
        async def session_prompt(self, params):
            file = await self.conn.client.fs_read_text_file(
                acp.ReadTextFileRequest(session_id=params.session_id, path="/work/a.txt")
            )
            await self.conn.client.session_update(text_update(params.session_id, file.content))
            return acp.PromptResponse(stop_reason=acp.StopReason.END_TURN)

    client_handler = Files()
    agent, client = await pair(
        Reader,
        client_handler,
        initialize=acp.InitializeRequest(
            protocol_version=1,
            client_capabilities=acp.ClientCapabilities(
                fs=acp.FileSystemCapabilities(read_text_file=True)
            ),
        ),
    )
    answer = await client.agent.session_prompt(acp.PromptRequest(session_id="s1", prompt=[]))
    assert answer.stop_reason == acp.StopReason.END_TURN
    assert client_handler.updates[0].update.content.text == "contents of /work/a.txt"


async def test_deeply_nested_calls_do_not_deadlock() -> None:
    class Ping(Client):
        def __init__(self):
            super().__init__()
            self.conn = None

        async def ext_method(self, method, params):
            depth = params["depth"]
            if depth == 0:
                return {"bottom": True}
            return await self.conn.request("_down", {"depth": depth - 1})

    class Pong(Agent):
        async def ext_method(self, method, params):
            return (
                await self.conn.request("_down", {"depth": params["depth"] - 1})
                if params["depth"]
                else {"bottom": True}
            )

    ping = Ping()
    agent, client = await pair(Pong, ping)
    ping.conn = client
    assert await client.request("_down", {"depth": 10}) == {"bottom": True}


async def test_a_notification_handler_may_call_the_peer_without_deadlocking() -> None:
    answers = []
    done = asyncio.Event()

    class Asking(Client):
        def __init__(self):
            super().__init__()
            self.conn = None

        async def session_update(self, params):
            answers.append(await self.conn.request("_ping", {}))
            done.set()

    asking = Asking()
    agent, client = await pair(Agent, asking)
    asking.conn = client
    await agent.client.session_update(text_update("s1", "x"))
    await done.wait()
    assert answers == [{"pong": True}]
