"""Wiring `webcrawler index --incremental` from the settings (webcrawler/commands/index.py calls this)."""

from __future__ import annotations

import logging

from webcrawler.engine.interfaces import Store
from webcrawler.engine.loop.policies import DocumentSink
from webcrawler.engine.scheduling.frontier import Ordering
from webcrawler.recrawl.auto_plan import planned
from webcrawler.recrawl.model_driver import ModelDriver
from webcrawler.recrawl.policies import RecrawlPlan
from webcrawler.recrawl.recrawler import Recrawler, incremental
from webcrawler.recrawl.replan import Replanner
from webcrawler.settings import Settings

log = logging.getLogger(__name__)


def incremental_parts(settings: Settings, store: Store, sink: DocumentSink
                      ) -> tuple[Ordering | None, Recrawler | None]:
    """(ordering, recrawler) of an incremental crawl, with every stored page scheduled;
    (None, None) for a batch crawl. ValueError for an unknown policy."""
    if not settings.incremental:
        return None, None
    if settings.order != "server-first" or settings.hot_query.strip():
        log.warning("--incremental crawls servers in the server-first order: --order and "
                    "--hot-query are not used")
    plan = planned(settings, RecrawlPlan(share=settings.recrawl_share))  # --plan auto: the model's plan
    ordering, recrawler = incremental(store, sink, settings.recrawl, plan, settings.fetch_rate,
                                      settings.min_revisit)
    if settings.plan == "auto" and not isinstance(recrawler.replanner, ModelDriver):
        counts = recrawler.replanner or Replanner(plan, settings.fetch_rate,  # bucket counts, bandwidth
                                                  min_revisit=settings.min_revisit)
        recrawler.replanner = ModelDriver(settings, plan, counts)  # re-solved each period
    scheduled = recrawler.load()
    log.info("incremental crawl, recrawl policy %s: %d stored pages scheduled", settings.recrawl,
             scheduled)
    return ordering, recrawler
