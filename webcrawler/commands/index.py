"""`webcrawler index`: open the data directory, crawl, index, summarise.

Wiring only: the checks of the database and the index (a damaged one stops the
command before anything is written), the database, the store, the index sink,
the crawler and its progress display, and the signals that stop it gracefully.
`--reindex` is `engine/pipeline/reindex.py`.

It lives outside webcrawler/engine/ because it is a client of both the engine and the
incremental crawl (recrawl/setup.py), and the recrawl builds on the engine: wired from here,
the dependencies go one way (engine <- recrawl <- commands).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING

from webcrawler.agenthosts import pool_factory
from webcrawler.agents.render import require_renderer
from webcrawler.database.schema import check_database, connect
from webcrawler.datadir import create_private
from webcrawler.engine.loop.crawl import NOTHING_LEFT
from webcrawler.engine.loop.index_hooks import index_loop
from webcrawler.engine.loop.outcome import SeedsFailed, failed_seeds, seed_problem
from webcrawler.engine.loop.progress import ProgressReporter, snapshot, summary
from webcrawler.engine.pipeline.reindex import run_reindex
from webcrawler.engine.pipeline.shard_sink import make_index_sink
from webcrawler.engine.scheduling.orders.batch import make_ordering, watch_pages
from webcrawler.engine.store.scope import resolve, whole_web
from webcrawler.engine.store.sql import CrawlStore
from webcrawler.errors import NothingToDo
from webcrawler.index import check
from webcrawler.settings import Settings

if TYPE_CHECKING:  # imported when --metrics-port asks for it: prometheus-client is 20 ms of start-up
    from webcrawler.engine.loop.metrics import MetricsServer

log = logging.getLogger(__name__)


class NothingToCrawl(NothingToDo):
    """No seeds were given and the data directory holds no crawl to resume, or a seed is not
    a URL that can be crawled (nothing is started, nothing written)."""


def run_index(settings: Settings, progress: bool = True,
              install_signals: Callable[[Callable[[str], None]], None] | None = None,
              explicit: Collection[str] | None = None) -> tuple[str, list[str]]:
    """Run one indexing crawl; return (summary text, seeds that were not valid URLs).

    The crawl's scope is the stored one under the `explicit` settings (see
    `stored_scope.resolve`), and is stored again for the commands that follow.
    Raises DatabaseDamaged or IndexDamaged, before writing anything, for damaged data;
    NothingToCrawl for a malformed seed or nothing to resume; SeedsFailed (with the summary)
    when nothing was fetched because every seed failed.
    """
    for seed in settings.seeds:
        problem = seed_problem(seed, settings.max_url_length)
        if problem:
            raise NothingToCrawl(f"--seed {seed!r}: {problem}")
    if not settings.seeds and not settings.db_url and not settings.data_dir.is_dir():
        raise NothingToCrawl(f"nothing to crawl: {settings.data_dir} does not exist; give a "
                             "--seed URL (or --seeds-file) to start a crawl")
    check_data(settings)
    check_trust(settings)
    require_renderer(settings.render)  # before the data directory is made
    if settings.insecure_skip_tls_verify:
        log.warning("--insecure-skip-tls-verify: the certificates of %s are not checked (and "
                    "no credential goes there); anyone on the path can read and change what "
                    "this crawl fetches from them", ", ".join(settings.insecure_skip_tls_verify))
    create_private(settings.data_dir)
    engine = connect(settings.database_url)
    settings, scope_line = resolve(engine, settings, explicit, save=True)
    log.info("%s", scope_line)
    store = CrawlStore(engine)
    store.requeue_retries()  # passing failures of an earlier run are tried again
    reporter = ProgressReporter() if progress else None
    metrics: MetricsServer | None = None
    try:
        if settings.metrics_port:  # MetricsUnavailable when the port is taken
            from webcrawler.engine.loop.metrics import MetricsServer

            metrics = MetricsServer(settings.metrics_port, reporter)
        sink = make_index_sink(store, settings)  # IndexDamaged for another layout: nothing started
        ordering, recrawl = None, None
        if settings.incremental:  # the recrawl's modules (policies, model, planner): its own start
            from webcrawler.recrawl.setup import incremental_parts

            ordering, recrawl = incremental_parts(settings, store, sink)
        ordering = ordering or make_ordering(settings.order, store, settings.hot_query)
        crawler = index_loop(settings, store, sink=watch_pages(ordering, sink),
                             progress=metrics or reporter, ordering=ordering,
                             recrawl=recrawl, pool_factory=pool_factory(settings))
        rejected = crawler.add_seeds(list(settings.seeds))
        if not crawler.scheduler.servers:
            sink.close()
            raise NothingToCrawl(f"nothing to crawl in {settings.data_dir}: give a --seed URL "
                                 "(or --seeds-file) to start a crawl")
        if (spreading := whole_web(settings)) is not None:  # once nothing else can refuse
            log.warning("%s", spreading)
        if install_signals is not None:
            install_signals(crawler.request_stop)
        crawler.run()
        text = summary(snapshot(crawler)) + "\n  " + scope_line
        if crawler.stats.stop_reason == NOTHING_LEFT:
            failed = failed_seeds(crawler, store, [s for s in settings.seeds if s not in rejected])
            if failed:
                raise SeedsFailed(failed, text)
        return text, rejected
    finally:
        if metrics is not None:
            metrics.close()
        store.close()
        engine.dispose()


MAX_BUNDLE = 16 << 20  # bytes of a --ca-bundle looked at (the system's bundle is ~200 KB)


def check_trust(settings: Settings) -> None:
    """NothingToCrawl, in one line, for a --ca-bundle the agents could not load (every agent
    builds its trust from it at start: agents/fetch.py) or a --ca-bundle-only without one."""
    if settings.ca_bundle_only and not settings.ca_bundle:
        raise NothingToCrawl("--ca-bundle-only needs --ca-bundle FILE")
    if settings.ca_bundle:
        try:
            with Path(settings.ca_bundle).open("rb") as bundle:
                text = bundle.read(MAX_BUNDLE)
        except OSError as error:
            raise NothingToCrawl(f"--ca-bundle {settings.ca_bundle}: "
                                 f"{error.strerror or error}") from None
        if b"-----BEGIN CERTIFICATE-----" not in text:
            raise NothingToCrawl(f"--ca-bundle {settings.ca_bundle}: not a PEM file of "
                                 "certificates")


def check_data(settings: Settings) -> None:
    """Raise DatabaseDamaged or IndexDamaged (naming the file) for a damaged data directory;
    absent parts are fine. Used by `index` and `serve` at start."""
    check_database(settings.database_url)
    check(settings.index_dir)


__all__ = ["NothingToCrawl", "SeedsFailed", "check_data", "run_index", "run_reindex"]
