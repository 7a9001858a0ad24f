"""`webcrawler index`: open the data directory, crawl, index, summarise.

Wiring only: the checks of the database and the index (a damaged one stops the
command before anything is written), the database, the store, the index sink,
the crawler and its progress display, and the signals that stop it gracefully.
`--reindex` is `engine/reindex.py`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection

from webcrawler.agenthosts import pool_factory
from webcrawler.database import check_database, connect
from webcrawler.engine.indexing import index_loop
from webcrawler.engine.orders.batch import make_ordering, watch_pages
from webcrawler.engine.progress import ProgressReporter, snapshot, summary
from webcrawler.engine.reindex import run_reindex
from webcrawler.engine.shard_sink import make_index_sink
from webcrawler.engine.store import CrawlStore
from webcrawler.engine.stored_scope import resolve
from webcrawler.errors import NothingToDo
from webcrawler.index import check
from webcrawler.recrawl.setup import incremental_parts
from webcrawler.settings import Settings

log = logging.getLogger(__name__)


class NothingToCrawl(NothingToDo):
    """No seeds were given and the data directory holds no crawl to resume."""


def run_index(settings: Settings, progress: bool = True,
              install_signals: Callable[[Callable[[str], None]], None] | None = None,
              explicit: Collection[str] | None = None) -> tuple[str, list[str]]:
    """Run one indexing crawl; return (summary text, seeds that were not valid URLs).

    The crawl's scope is the stored one under the `explicit` settings (see
    `stored_scope.resolve`), and is stored again for the commands that follow.
    Raises DatabaseDamaged or IndexDamaged, before writing anything, for damaged data.
    """
    check_data(settings)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    engine = connect(settings.database_url)
    settings, scope_line = resolve(engine, settings, explicit, save=True)
    log.info("%s", scope_line)
    store = CrawlStore(engine)
    try:
        sink = make_index_sink(store, settings)  # IndexDamaged for another layout: nothing started
        ordering, recrawl = incremental_parts(settings, store, sink)
        ordering = ordering or make_ordering(settings.order, store, settings.hot_query)
        crawler = index_loop(settings, store, sink=watch_pages(ordering, sink),
                             progress=ProgressReporter() if progress else None, ordering=ordering,
                             recrawl=recrawl, pool_factory=pool_factory(settings))
        rejected = crawler.add_seeds(list(settings.seeds))
        if not crawler.scheduler.servers:
            sink.close()
            raise NothingToCrawl(f"nothing to crawl in {settings.data_dir}: give a --seed URL "
                                 "(or --seeds-file) to start a crawl")
        if install_signals is not None:
            install_signals(crawler.request_stop)
        crawler.run()
        return summary(snapshot(crawler)) + "\n  " + scope_line, rejected
    finally:
        store.close()
        engine.dispose()


def check_data(settings: Settings) -> None:
    """Raise DatabaseDamaged or IndexDamaged (naming the file) for a damaged data directory;
    absent parts are fine. Used by `index` and `serve` at start."""
    check_database(settings.database_url)
    check(settings.index_dir)


__all__ = ["NothingToCrawl", "check_data", "run_index", "run_reindex"]
