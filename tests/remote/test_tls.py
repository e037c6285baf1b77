"""TLS from the command line and from `run` / `serve`: `echo_agent.py --listen ... --certfile
--keyfile` serves https:// (HTTP/2 by ALPN) and wss://, and the affinity cookie is `Secure` under
TLS only. The certificate is a throwaway one for 127.0.0.1 made by `openssl`."""

from __future__ import annotations

import shutil
import ssl
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from acp_runtime.http import AcpApp, connect_agent, serve

from .agents import HistoryAgent, Store
from .helpers import INIT, listening_socket
from .test_security import echo_agent

EXAMPLES = Path(__file__).parents[2] / "examples"


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[str, str]:
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("needs the openssl command to make a test certificate")
    cert, key = str(tmp_path / "cert.pem"), str(tmp_path / "key.pem")
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"]
        + ["-keyout", key, "-out", cert, "-subj", "/CN=127.0.0.1"]
        + ["-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )
    return cert, key


async def test_the_echo_agent_serves_https_and_wss_with_a_token(
    certificate: tuple[str, str],
) -> None:
    cert, key = certificate
    trust = ssl.create_default_context(cafile=cert)
    args = ("--token", "t0k", "--certfile", cert, "--keyfile", key)
    async with echo_agent(*args) as (url, _):
        assert url.startswith("https://127.0.0.1:")
        for target in (url, "wss" + url[5:]):
            headers = {"authorization": "Bearer t0k"}
            async with connect_agent(target, None, headers=headers, verify=trust) as conn:
                answer = await conn.request("initialize", INIT["params"])
                assert answer.protocol_version == 1
        async with httpx.AsyncClient(verify=trust, http2=True) as http:
            response = await http.post(url, json=INIT, headers=headers)
            assert response.status_code == 200 and response.http_version == "HTTP/2"


def test_certfile_without_keyfile_is_refused(certificate: tuple[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "echo_agent.py"), "--listen", "127.0.0.1:0"]
        + ["--certfile", certificate[0]],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert done.returncode == 2 and "--certfile and --keyfile go together" in done.stderr


async def test_the_affinity_cookie_is_secure_under_tls_only(certificate: tuple[str, str]) -> None:
    import asyncio

    cert, key = certificate
    for tls in (True, False):
        app = AcpApp(lambda conn: HistoryAgent(conn, Store()), affinity_cookie="acp_node=a")
        sock = listening_socket()
        stop = asyncio.Event()
        options = {"certfile": cert, "keyfile": key} if tls else {}
        task = asyncio.create_task(serve(app, sock, shutdown=stop, **options))
        scheme = "https" if tls else "http"
        url = f"{scheme}://127.0.0.1:{sock.getsockname()[1]}/acp"
        try:
            verify = ssl.create_default_context(cafile=cert)
            async with httpx.AsyncClient(verify=verify) as http:
                response = await http.post(url, json=INIT)
            cookie = response.headers["set-cookie"]
            assert cookie.startswith("acp_node=a;")
            assert ("; Secure" in cookie) is tls, cookie
        finally:
            stop.set()
            await task
            sock.close()
