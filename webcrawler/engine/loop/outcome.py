"""Honest endings: a seed that is not a URL is refused before anything starts, and a crawl
that fetched nothing because every seed failed says why, seed by seed, instead of
"finished" (the CLI then exits 1).

    seed_problem(url) -> why `url` cannot be a seed, or None
    failed_seeds(crawler, store, seeds) -> a line per seed when all failed and nothing was fetched
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from webcrawler.database.states import State
from webcrawler.errors import WebcrawlerError
from webcrawler.protocol.urls import InvalidURL, normalize, split, strip_params

if TYPE_CHECKING:
    from webcrawler.engine.interfaces import Store
    from webcrawler.engine.loop.crawl import CrawlLoop


class SeedsFailed(WebcrawlerError):
    """Every seed failed and nothing was fetched; str() is one line per seed."""

    def __init__(self, message: str, summary: str) -> None:
        super().__init__(message)
        self.summary = summary


def seed_problem(url: str, max_length: int) -> str | None:
    """Why `url` cannot start a crawl (one phrase), or None when it can."""
    try:
        normalize(url, max_length=max_length)
    except InvalidURL as error:
        if "://" not in url:
            return "not a URL: write it with http:// or https://"
        scheme = _scheme(url)
        if scheme not in ("http", "https"):
            return f"{scheme or 'no'} scheme: only http and https are crawled"
        return str(error).split(":")[0]
    return None


def _scheme(url: str) -> str:
    try:
        return urlsplit(url.strip()).scheme.lower()
    except ValueError:  # urlsplit refuses the address (http://[::1), not the scheme before it
        return url.strip().partition("://")[0].lower()


def failed_seeds(crawler: CrawlLoop, store: Store, seeds: list[str]) -> str | None:
    """When nothing was fetched and every seed failed, one line naming each seed and why;
    else None (a seed excluded by robots.txt, already fetched, or still queued did not fail)."""
    if crawler.stats.retrieved or not seeds:
        return None
    reasons = [_why(crawler, store, seed) for seed in seeds]
    if not all(reasons):
        return None
    return "nothing was fetched, every seed failed: " + "; ".join(
        f"{seed} ({reason})" for seed, reason in zip(seeds, reasons, strict=True))


def _why(crawler: CrawlLoop, store: Store, seed: str) -> str | None:
    origin, path = split(strip_params(normalize(seed), crawler.settings.param_names()))  # as add_seeds
    server = store.server(origin)
    if server is None:
        return None
    unreachable = crawler.retries.robots_failures.get(server.id)
    row = store.fate(server, path)
    if row is not None and row[0] == State.FAILED:
        _, reason, detail = row
        return f"{reason}: {detail}" if detail else reason
    if unreachable and (row is None or row[0] == State.QUEUED):
        return f"robots.txt unreachable: {unreachable.reason}: {unreachable.detail}"
    return None
