"""`webcrawler crawl def.json --on URL` against a workbench that lies: a real HTTP server on
loopback answering what a hostile host would. Every case ends in one line and exit 1, and
nothing outside the given origin is read or copied."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

HUGE = 300 * 1024 * 1024


class Hostile(BaseHTTPRequestHandler):
    """Answers POST /api/crawls with `server.start`, the events with `server.events`."""

    server: Any

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        body = json.dumps(self.server.start).encode()
        self.send_response(202)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self.server.paths.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        try:
            if self.server.events == "huge":
                self.wfile.write(b"data: {\"t\": \"counters\", \"pad\": \"")
                chunk = b"a" * (1 << 20)
                while self.server.sent < HUGE:
                    self.wfile.write(chunk)
                    self.server.sent += len(chunk)
                return
            for event in self.server.events:
                self.wfile.write(f"data: {json.dumps(event)}\n\n".encode())
            self.wfile.write(b"event: end\ndata: {}\n\n")
        except OSError:
            pass  # the client hung up: what this test wants


@pytest.fixture
def hostile() -> Iterator[Any]:
    server = ThreadingHTTPServer(("127.0.9.60", 0), Hostile)
    server.daemon_threads = True
    server.paths, server.sent = [], 0
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def run_on(server: Any, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    definition = tmp_path / "d.json"
    definition.write_text('{"roots": ["http://127.0.9.250:9/"], "limits": {"seconds": 10}}')
    url = f"http://127.0.9.60:{server.server_address[1]}/"
    return subprocess.run([sys.executable, "-m", "webcrawler.cli", "crawl", str(definition),
                           "--on", url, "--out", str(tmp_path / "out")],
                          capture_output=True, text=True, timeout=120)


FINISHED = {"t": "finished", "summary": {"pages": 1, "bytes": 5, "stop_reason": "queue-empty"},
            "action": "done", "result": "document.html", "errors": []}
CASES = {
    "result on file:": ({"id": "x", "events_url": "/e", "result_url": "file:///etc/passwd"},
                        [FINISHED], "result_url on another origin"),
    "events elsewhere": ({"id": "x", "events_url": "http://127.0.9.61:9/e", "result_url": "/r"},
                         [FINISHED], "events_url on another origin"),
    "missing field": ({"id": "x", "result_url": "/r"}, [FINISHED], "without a usable events_url"),
    "no summary": ({"id": "x", "events_url": "/e", "result_url": "/r"},
                   [{"t": "finished", "result": "document.html"}], "without a summary"),
    "bad summary": ({"id": "x", "events_url": "/e", "result_url": "/r"},
                    [{**FINISHED, "summary": {**FINISHED["summary"], "pages": "many"}}],
                    "malformed summary"),
    "unsafe name": ({"id": "x", "events_url": "/e", "result_url": "/r"},
                    [{**FINISHED, "result": ".."}], "not a plain file name"),
    "not an object": ({"id": "x", "events_url": "/e", "result_url": "/r"}, [[1, 2]],
                      "not a JSON object"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_a_lying_workbench_gets_one_line_and_nothing_is_copied(
        hostile: Any, tmp_path: Path, case: str) -> None:
    hostile.start, hostile.events, expected = CASES[case]
    ran = run_on(hostile, tmp_path)
    assert ran.returncode == 1, ran.stderr
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], ran.stderr
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())


def test_a_huge_event_line_is_refused_without_reading_it(hostile: Any, tmp_path: Path) -> None:
    hostile.start = {"id": "x", "events_url": "/e", "result_url": "/r"}
    hostile.events = "huge"
    ran = run_on(hostile, tmp_path)
    assert ran.returncode == 1
    assert ran.stderr.strip().splitlines() == [
        f"Error: http://127.0.9.60:{hostile.server_address[1]}/ sent an event line longer than "
        "1048576 bytes: refused"]
    assert hostile.sent < 64 * 1024 * 1024  # the client hung up long before 300 MiB
