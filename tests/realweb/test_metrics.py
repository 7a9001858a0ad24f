"""Observability: a crawl's metrics on 127.0.0.1 while it runs, and the query server's
/metrics behind its Host checks."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from prometheus_client.parser import text_string_to_metric_families

from tests.support.flakyweb import Flaky, first, slow, unavailable
from webcrawler.demoweb.server import LoopbackWeb, Site

from .conftest import crawl, pages


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def samples(text: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def test_a_crawl_serves_its_progress_as_prometheus_metrics(tmp_path: Path):
    routes = Flaky({p: slow(0.05, page) for p, page in pages(20).items()},
                   first(1, unavailable(1)))
    port = free_port()
    with LoopbackWeb([Site("127.0.6.60", routes)]) as web:
        data = tmp_path / "data"
        crawl = subprocess.Popen(
            [sys.executable, "-m", "webcrawler.cli", "index", "--seed", web.url("127.0.6.60"),
             "--data-dir", str(data), "--delay", "0", "--agents", "2", "--no-progress",
             "--metrics-port", str(port), "--progress-interval", "0.2", "--retry-backoff", "0.1"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            seen: dict = {}
            deadline = time.monotonic() + 60
            while crawl.poll() is None and time.monotonic() < deadline:
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as r:
                        seen = samples(r.read().decode())
                except OSError:
                    pass
                if seen.get(("webcrawler_retries_total", ()), 0) > 0:
                    break
                time.sleep(0.1)
        finally:
            crawl.terminate()
            crawl.communicate(timeout=60)
    assert seen[("webcrawler_retries_total", ())] > 0
    assert ("webcrawler_documents_retrieved_total", ()) in seen
    assert ("webcrawler_queue_documents", ()) in seen
    assert any(name == "webcrawler_server_delay_seconds" for name, _ in seen)


def test_the_query_server_serves_metrics_behind_its_host_checks(settings):
    from webcrawler.query_server import create_app

    with LoopbackWeb([Site("127.0.6.61", pages(3))]) as web:
        crawl(settings, [web.url("127.0.6.61")])
    app = create_app(settings.data_dir)
    try:
        client = app.test_client()
        answer = client.get("/metrics", headers={"Host": "localhost"})
        assert answer.status_code == 200
        figures = samples(answer.get_data(as_text=True))
        assert figures[("webcrawler_documents", (("state", "fetched"),))] == 4
        assert ("webcrawler_retries_total", ()) in figures
        assert client.get("/metrics", headers={"Host": "evil.example"}).status_code == 421
    finally:
        app.extensions["webcrawler.sources"].close()


def test_the_stats_page_shows_retries_under_the_same_names(settings):
    from webcrawler.query_server import create_app

    routes = Flaky(pages(2), first(1, unavailable(1)))
    with LoopbackWeb([Site("127.0.6.62", routes)]) as web:
        crawl(settings, [web.url("127.0.6.62")])
    app = create_app(settings.data_dir)
    try:
        page = app.test_client().get("/stats", headers={"Host": "localhost"}).get_data(as_text=True)
    finally:
        app.extensions["webcrawler.sources"].close()
    for name, value in (("retries", 3), ("recovered", 3), ("final failures", 0)):
        assert f'<th scope="row">{name}</th><td class="n">{value}</td>' in page


def test_the_crawls_metrics_port_checks_host_and_path() -> None:
    """As the query server does: a Host naming anything but loopback is 421 (DNS rebinding
    reads nothing), a path other than /metrics is 404."""
    from webcrawler.engine.loop.metrics import MetricsServer

    server = MetricsServer(0)
    try:
        def get(path: str, host: str) -> tuple[int, str]:
            connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
            try:
                connection.putrequest("GET", path, skip_host=True)
                connection.putheader("Host", host)
                connection.endheaders()
                answer = connection.getresponse()
                return answer.status, answer.read().decode()
            finally:
                connection.close()

        for host in (f"127.0.0.1:{server.port}", "localhost", f"[::1]:{server.port}"):
            assert get("/metrics", host)[0] == 200, host
        for host in ("rebound.attacker.example", f"rebound.attacker.example:{server.port}", "",
                     "127.0.0.1.evil.example", "localhost:x"):
            status, text = get("/metrics", host)
            assert status == 421 and "webcrawler" not in text, host
        for path in ("/", "/metrics/", "/favicon.ico", "/anything", "/metrics/x"):
            status, text = get(path, "localhost")
            assert status == 404 and "webcrawler_" not in text, path
    finally:
        server.close()
