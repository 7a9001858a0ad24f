"""What serving changes on disk (nothing), where it refuses to start, and what it warns about."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.query_server.conftest import build_app
from webcrawler.query_server import ServerThread
from webcrawler.web.server import exposure_warning

PATHS = ["/", "/search?q=biology", "/search?q=genome&page=2", "/api/search?q=molecular+biology",
         "/stats", "/api/stats", "/opensearch.xml", "/robots.txt", "/realtime", "/nowhere",
         "/api/realtime/AAAAAAAAAAAAAAAA"]


def listing(root: Path) -> dict[str, tuple[int, int]]:
    """Every file and directory under `root`: (size, mtime in ns)."""
    entries = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            path = Path(dirpath) / name
            info = path.stat()
            entries[str(path.relative_to(root))] = (info.st_size if path.is_file() else 0,
                                                    info.st_mtime_ns)
    return entries


def webcrawler(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "webcrawler.cli", *args], capture_output=True,
                          text=True, timeout=60)


def test_serving_changes_nothing_in_the_data_dir(data_dir: Path) -> None:
    before = listing(data_dir)
    assert "webcrawler.db-wal" not in before  # the crawl's writer is gone: WAL checkpointed
    for app in build_app(data_dir):
        with ServerThread(app, host="127.0.0.1", port=0, threads=2) as server:
            for path in PATHS * 2:
                try:
                    with urllib.request.urlopen(server.url.rstrip("/") + path, timeout=10):
                        pass
                except urllib.error.HTTPError as error:
                    error.close()
                    assert error.code == 404, path
            assert listing(data_dir) == before  # while serving: no -wal, -shm, lock or cache file
    assert listing(data_dir) == before


def test_serve_refuses_a_missing_data_dir(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    result = webcrawler("serve", "--data-dir", str(missing), "--port", "0")
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "no data directory" in lines[0] and str(missing) in lines[0]
    assert "Traceback" not in result.stderr and result.stdout == ""
    assert not missing.exists() and list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "", "192.0.2.1", "search.example", "10.1.2.3"])
def test_non_loopback_addresses_get_a_warning(host: str) -> None:
    warning = exposure_warning(host)
    assert warning and "search page" in warning and "JSON API" in warning
    assert "real-time search" in warning and "fetch URLs" in warning


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.5.3", "::1", "[::1]", "localhost", "LOCALHOST"])
def test_loopback_addresses_get_none(host: str) -> None:
    assert exposure_warning(host) is None


def test_serve_warns_before_listening_elsewhere(data_dir: Path) -> None:
    # 192.0.2.1 (TEST-NET-1) is on no interface here: the warning shows, then binding fails
    result = webcrawler("serve", "--data-dir", str(data_dir), "--host", "192.0.2.1", "--port", "0")
    assert result.returncode != 0
    assert "warning: listening on 192.0.2.1" in result.stderr and "real-time search" in result.stderr
    assert "cannot listen on 192.0.2.1" in result.stderr and "Traceback" not in result.stderr


def test_serve_answers_the_allowed_host_names_only(data_dir: Path) -> None:
    import http.client
    import signal

    process = subprocess.Popen([sys.executable, "-m", "webcrawler.cli", "serve", "--data-dir",
                                str(data_dir), "--port", "0", "--allowed-host", "search.example",
                                "--allowed-host", "Other.Example"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = process.stdout.readline().strip()  # "Search at http://127.0.0.1:PORT/"
        port = int(line.rsplit(":", 1)[1].rstrip("/"))
        statuses = {}
        for host in ("search.example", "other.example:8080", "localhost", "evil.example"):
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            try:
                connection.request("GET", "/api/stats", headers={"Host": host})
                response = connection.getresponse()
                response.read()
                statuses[host] = response.status
            finally:
                connection.close()
        assert statuses == {"search.example": 200, "other.example:8080": 200, "localhost": 200,
                            "evil.example": 421}
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=20)
