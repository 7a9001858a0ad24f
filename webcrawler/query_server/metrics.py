"""`/metrics`: the crawl's figures (what /api/stats shows) in Prometheus's text format, for a
monitoring system to scrape. Behind the same Host checks as every route (guard.py); read from
the same cached figures, so a scrape costs no more than /stats."""

from __future__ import annotations

from collections.abc import Iterator

from flask import Blueprint, Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from webcrawler.query_server.stats import Stats, current_stats

bp = Blueprint("metrics", __name__)


class _StatsCollector:
    def __init__(self, stats: Stats) -> None:
        self.stats = stats

    def collect(self) -> Iterator[Metric]:
        s = self.stats
        yield _labelled(GaugeMetricFamily, "webcrawler_documents", "Documents by state",
                        "state", s.documents)
        yield _labelled(GaugeMetricFamily, "webcrawler_failures", "Failed documents by reason",
                        "reason", s.failures)
        yield _labelled(GaugeMetricFamily, "webcrawler_excluded",
                        "Excluded documents by reason", "reason", s.exclusions)
        yield CounterMetricFamily("webcrawler_retries", "Tries made after a passing failure",
                                  value=s.retries)
        yield CounterMetricFamily("webcrawler_recovered", "Documents fetched after failed tries",
                                  value=s.recovered)
        for name, text, value in (
                ("webcrawler_servers_known", "Servers known", s.servers_known),
                ("webcrawler_servers_visited", "Servers visited", s.servers_visited),
                ("webcrawler_links", "Links stored", s.links),
                ("webcrawler_index_documents", "Documents in the index", s.index_documents),
                ("webcrawler_index_bytes", "Bytes of the index", s.index_bytes)):
            yield GaugeMetricFamily(name, text, value=value)


def _labelled(kind: type, name: str, text: str, label: str, counts: dict[str, int]) -> Metric:
    family = kind(name, text, labels=[label])
    for key, count in counts.items():
        family.add_metric([key], count)
    return family


@bp.get("/metrics")
def metrics() -> Response:
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_StatsCollector(current_stats()))
    return Response(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
