"""A personal-crawler toolkit after SPHINX (Miller and Bharat, WWW7 1998), on our engine.

Write a site-specific crawler by extending `Crawler` and overriding
`should_visit(link)` and `visit(page)`; reuse site knowledge in classifiers;
match URLs and markup with `Wildcard`, `Regexp` and `Tagexp`; bound the crawl
with `Limits`; run it under a host's `RequestPolicy`. Every fetch goes through
the engine's agents, robots.txt, politeness and scope, as `webcrawler index` does.

    crawler.py      Crawler (SPHINX 2: the two callbacks, run, abort, events)
    model.py        Page, Link, Region, Limits, Summary (SPHINX 2: the crawl graph)
    patterns.py     Wildcard, Regexp, Tagexp (SPHINX 2: Pattern)
    classifiers.py  Classifier, StandardClassifier (SPHINX 2.1)
    category.py     CategoryClassifier (SPHINX 2.1, vector space)
    policy.py       RequestPolicy (SPHINX 5: a host's page-request policy)
    events.py       the event broadcast (SPHINX 3.2: visualisations listen)
    runtime.py      a client of the engine's crawl loop; gate.py, ready.py, pages.py, markup.py its parts
    (its command, `webcrawler crawl FILE.py`, is webcrawler/cli/toolkit.py)
"""

from typing import Any

from webcrawler.toolkit.classifiers import Classifier, StandardClassifier
from webcrawler.toolkit.crawler import Crawler
from webcrawler.toolkit.events import EVENTS, CallbackError
from webcrawler.toolkit.model import Limits, Link, Page, Region, Summary
from webcrawler.toolkit.patterns import Pattern, Regexp, Tagexp, Wildcard
from webcrawler.toolkit.policy import AuditEntry, RequestPolicy

__all__ = [
    "EVENTS", "AuditEntry", "CallbackError", "CategoryClassifier", "Classifier", "Crawler",
    "Limits", "Link", "Page", "Pattern", "Region", "Regexp", "RequestPolicy",
    "StandardClassifier", "Summary", "Tagexp", "Wildcard",
]


def __getattr__(name: str) -> Any:
    """CategoryClassifier on first use: it brings the index's word analysis (and Whoosh) along,
    which `webcrawler crawl` and most crawlers never need."""
    if name == "CategoryClassifier":
        from webcrawler.toolkit.category import CategoryClassifier

        return CategoryClassifier
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
