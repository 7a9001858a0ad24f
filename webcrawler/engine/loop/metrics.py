"""The crawl's progress as Prometheus metrics (`webcrawler index --metrics-port PORT`).

A small HTTP server on 127.0.0.1 (the standard library's, serving prometheus-client's WSGI
app) answers `/metrics` only, and only to a Host header naming loopback (web/hosts.py, the
query server's rule): any other path is 404, any other Host 421, so a page whose name is
re-pointed at 127.0.0.1 (DNS rebinding) reads nothing of the crawl. It shows the
figures of the last progress tick: the crawl loop hands its snapshot over every
`progress_interval` seconds, so a scrape never reads the crawler's structures while the loop
changes them, and the hot path pays nothing. Per-server delays are the slowest servers only
(`MAX_SERVERS`): a crawl of ten thousand servers must not make ten thousand series.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from socketserver import ThreadingMixIn
from typing import TYPE_CHECKING, Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, make_wsgi_app
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from webcrawler.engine.loop.progress import Snapshot, snapshot
from webcrawler.errors import ServiceError
from webcrawler.web.hosts import answers_to

if TYPE_CHECKING:
    from webcrawler.engine.loop.crawl import CrawlLoop


log = logging.getLogger(__name__)

MAX_SERVERS = 50
ADDRESS = "127.0.0.1"


@dataclass(frozen=True)
class Figures:
    """What one scrape shows: the progress snapshot and the slowest servers' delays."""

    progress: Snapshot
    delays: tuple[tuple[str, float], ...]  # (origin, seconds between two requests)


def figures_of(crawler: CrawlLoop) -> Figures:
    delay = crawler.settings.delay
    servers = sorted(((s.origin, s.wait(delay))
                      for s in crawler.scheduler.servers.values()),
                     key=lambda pair: pair[1], reverse=True)
    return Figures(snapshot(crawler), tuple(servers[:MAX_SERVERS]))


class CrawlCollector:
    """A prometheus-client collector of the latest Figures."""

    def __init__(self) -> None:
        self.latest: Figures | None = None

    def collect(self) -> Iterator[Metric]:
        figures = self.latest
        if figures is None:
            return
        s = figures.progress
        yield _counter("webcrawler_documents_retrieved", "Documents retrieved", s.retrieved)
        yield _counter("webcrawler_answers", "Answers to document requests", s.answered)
        yield _counter("webcrawler_retries", "Tries made after a passing failure", s.retries)
        yield _counter("webcrawler_recovered", "Documents fetched after failed tries",
                       s.recovered)
        yield _by_reason("webcrawler_failures", "Final failures by reason", s.failures)
        yield _by_reason("webcrawler_excluded", "Documents not fetched, by reason", s.excluded)
        yield _gauge("webcrawler_queue_documents", "Documents waiting in the frontier", s.queued)
        yield _gauge("webcrawler_in_flight", "Requests handed to agents", s.in_flight)
        yield _gauge("webcrawler_servers_known", "Servers known", s.servers_known)
        yield _gauge("webcrawler_servers_visited", "Servers visited", s.servers_visited)
        delays = GaugeMetricFamily("webcrawler_server_delay_seconds",
                                   "Politeness delay between two requests, slowest servers",
                                   labels=["server"])
        for origin, seconds in figures.delays:
            delays.add_metric([origin], seconds)
        yield delays


class MetricsUnavailable(ServiceError):
    """The metrics port cannot be listened on (taken, or not allowed): one line."""


class MetricsServer:
    """Serves a crawl's metrics on 127.0.0.1:`port` while it runs; call it as the progress
    callback (it passes the call on to `then`), `close` at the end."""

    def __init__(self, port: int, then: Callable[[CrawlLoop], None] | None = None) -> None:
        self.collector = CrawlCollector()
        registry = CollectorRegistry(auto_describe=False)
        registry.register(self.collector)
        try:
            self._server, self._thread = _serve(port, registry)
        except OSError as error:
            raise MetricsUnavailable(f"--metrics-port {port}: cannot listen on {ADDRESS}:{port} "
                                     f"({error.strerror or error})") from None
        self.port = self._server.server_address[1]
        self._then = then
        log.info("metrics at http://%s:%d/metrics", ADDRESS, self.port)

    def __call__(self, crawler: CrawlLoop) -> None:
        self.collector.latest = figures_of(crawler)
        if self._then is not None:
            self._then(crawler)

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


class _Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        """Scrapes are not news: nothing on stderr."""


def guarded(app: Callable[..., Iterable[bytes]]) -> Callable[..., Iterable[bytes]]:
    """`app` behind the checks: a Host naming loopback (else 421), the path /metrics (else 404)."""
    def answer(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not answers_to(environ.get("HTTP_HOST", "")):
            start_response("421 Misdirected Request", [("Content-Type", "text/plain")])
            return [b"This server does not answer to that host name.\n"]
        if environ.get("PATH_INFO") != "/metrics":
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"Not found: the metrics are at /metrics.\n"]
        return app(environ, start_response)
    return answer


def _serve(port: int, registry: CollectorRegistry) -> tuple[Any, threading.Thread]:
    """The guarded metrics app on loopback, served from a thread of its own."""
    server = make_server(ADDRESS, port, guarded(make_wsgi_app(registry)), _Server, _QuietHandler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                              name="metrics", daemon=True)
    thread.start()
    return server, thread


def _counter(name: str, text: str, value: float) -> Metric:
    return CounterMetricFamily(name, text, value=value)


def _gauge(name: str, text: str, value: float) -> Metric:
    return GaugeMetricFamily(name, text, value=value)


def _by_reason(name: str, text: str, counts: dict[str, int]) -> Metric:
    family = CounterMetricFamily(name, text, labels=["reason"])
    for reason, count in counts.items():
        family.add_metric([reason], count)
    return family
