"""Serving under waitress: a real server on a free port, a busy port, the start-up line."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask

from webcrawler.query_server import PortInUseError, ServeError, ServerThread, make_server


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def test_waitress_serves_the_app_on_a_free_port(app: Flask) -> None:
    with ServerThread(app, host="127.0.0.1", port=0, threads=2) as server:
        with urllib.request.urlopen(server.url + "api/search?q=biology", timeout=10) as response:
            assert response.headers["Server"] == "webcrawler"
            assert json.load(response)["total"] == 24
        with urllib.request.urlopen(server.url + "robots.txt", timeout=10) as response:
            assert response.status == 200
    assert not server._thread.is_alive()
    with pytest.raises(OSError):
        urllib.request.urlopen(server.url, timeout=2)


def test_a_busy_port_is_a_one_line_error(app: Flask, busy_port: int) -> None:
    with pytest.raises(PortInUseError) as caught:
        make_server(app, host="127.0.0.1", port=busy_port)
    message = str(caught.value)
    assert f"port {busy_port}" in message and "already in use" in message and "\n" not in message
    assert isinstance(caught.value, ServeError)


def test_serve_prints_where_to_search_and_stops_on_ctrl_c(data_dir: Path) -> None:
    code = (
        "import sys; from pathlib import Path; from webcrawler.query_server import serve; "
        "serve(Path(sys.argv[1]), host='127.0.0.1', port=0, threads=2)"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code, str(data_dir)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = process.stdout.readline().strip()
        assert line.startswith("Search at http://127.0.0.1:") and line.endswith("/"), line
        with urllib.request.urlopen(line.removeprefix("Search at "), timeout=10) as response:
            assert b"26 documents from 3 servers" in b" ".join(response.read().split())
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=20) == 0
    finally:
        process.kill()
        process.communicate()
