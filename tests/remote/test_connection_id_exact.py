"""An `Acp-Connection-Id` reaches its connection only when it is the whole id: an empty, truncated,
extended or re-cased id is an unknown connection (404), and nothing it carries is delivered."""

from __future__ import annotations

import pytest

from .helpers import prompt
from .test_bad_requests import session_ready, still_works


def _variants(real: str) -> dict[str, str]:
    return {
        "empty": "",
        "first character": real[:1],
        "truncated by one": real[:-1],
        "half": real[: len(real) // 2],
        "extended": real + "0",
        "re-cased": real.swapcase() if real.swapcase() != real else real + "X",
    }


@pytest.mark.parametrize(
    "kind",
    ["empty", "first character", "truncated by one", "half", "extended", "re-cased"],
)
async def test_only_the_whole_connection_id_reaches_the_connection(kind: str) -> None:
    async with session_ready() as (client, session, stream):
        assert client.connection_id
        wrong = _variants(client.connection_id)[kind]
        response = await client.post(
            prompt(2, session, "must not arrive"), session, **{"acp-connection-id": wrong}
        )
        assert response.status_code in (
            400,
            404,
        ), f"a POST with the {kind} connection id {wrong!r} got {response.status_code}"
        get = await client.http.get(
            client.url, headers={"accept": "text/event-stream", "acp-connection-id": wrong}
        )
        assert get.status_code in (
            400,
            404,
        ), f"a GET with the {kind} connection id {wrong!r} got {get.status_code}"
        # the next message on the session stream is the one sent with the right id
        await still_works(client, session, stream)
