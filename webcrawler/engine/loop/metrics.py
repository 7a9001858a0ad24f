"""The crawl's progress as Prometheus metrics (`webcrawler index --metrics-port PORT`).

A small HTTP server (prometheus-client's) on 127.0.0.1 only answers `/metrics` with the
figures of the last progress tick: the crawl loop hands its snapshot over every
`progress_interval` seconds, so a scrape never reads the crawler's structures while the loop
changes them, and the hot path pays nothing. Per-server delays are the slowest servers only
(`MAX_SERVERS`): a crawl of ten thousand servers must not make ten thousand series.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from webcrawler.engine.loop.progress import Snapshot, snapshot
from webcrawler.errors import ServiceError

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


def _serve(port: int, registry: CollectorRegistry) -> tuple[Any, threading.Thread]:
    """prometheus-client's server on loopback (its start_http_server returns the server and
    its thread)."""
    return start_http_server(port, addr=ADDRESS, registry=registry)


def _counter(name: str, text: str, value: float) -> Metric:
    return CounterMetricFamily(name, text, value=value)


def _gauge(name: str, text: str, value: float) -> Metric:
    return GaugeMetricFamily(name, text, value=value)


def _by_reason(name: str, text: str, counts: dict[str, int]) -> Metric:
    family = CounterMetricFamily(name, text, labels=["reason"])
    for reason, count in counts.items():
        family.add_metric([reason], count)
    return family
