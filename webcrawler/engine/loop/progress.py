"""Progress of a crawl: a live display on a terminal, a line per interval otherwise.

Both go to stderr (logs); the summary at the end is the result and goes to
stdout. Reading the crawl's numbers is cheap: counters kept by the crawler
and one pass over the server objects (no database queries).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from webcrawler.engine.loop.crawl import CrawlLoop


@dataclass(frozen=True)
class Snapshot:
    elapsed: float
    retrieved: int
    answered: int
    per_hour: float
    per_second: float
    servers_known: int
    servers_visited: int
    queued: int
    in_flight: int
    failures: dict[str, int]
    excluded: dict[str, int]
    stop_reason: str
    retries: int = 0  # tries made after a passing failure (engine/loop/retries.py)
    recovered: int = 0  # pages fetched after failed tries
    recrawl: str = ""  # the incremental crawl's counts (webcrawler/recrawl/), empty in a batch crawl
    found: str = ""  # sitemaps read, aliases and near-duplicates (sitemaps.py, canonical.py, ...)
    rendered: int = 0  # documents whose scripts ran in Chromium (--render)
    requests: int = 0  # requests sent (robots.txt too)
    fetch_rate: float = 0.0  # the --fetch-rate cap (0: none)

    def bandwidth(self) -> str:
        """Requests a second, against the cap when there is one (an incremental crawl must
        spend it: issue 35)."""
        per_second = self.requests / self.elapsed if self.elapsed > 0 else 0.0
        if self.fetch_rate <= 0:
            return f"{self.requests} ({per_second:.2f} per second, no cap)"
        return (f"{self.requests} ({per_second:.2f} per second of the cap's {self.fetch_rate:g}: "
                f"{per_second / self.fetch_rate:.0%})")


def snapshot(crawler: CrawlLoop) -> Snapshot:
    stats = crawler.stats
    servers = crawler.scheduler.servers.values()
    return Snapshot(
        elapsed=stats.elapsed(),
        retrieved=stats.retrieved,
        answered=stats.answered,
        per_hour=stats.per_hour(),
        per_second=stats.retrieved / stats.elapsed(),
        servers_known=len(crawler.scheduler.servers),
        servers_visited=sum(1 for s in servers if s.visited),
        queued=sum(s.queued for s in servers),
        in_flight=crawler.in_flight(),
        failures=dict(stats.failures.most_common()),
        excluded=dict(stats.excluded.most_common()),
        stop_reason=stats.stop_reason,
        retries=crawler.retries.counts.retries,
        recovered=crawler.retries.counts.recovered,
        recrawl=crawler.hooks.report(),
        found=crawler.hooks.found(),
        rendered=crawler.stats.rendered,
        requests=stats.requests,
        fetch_rate=crawler.settings.fetch_rate,
    )


def _reasons(counts: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in counts.items()) or "none"


def retry_line(retries: int, recovered: int, final: int) -> str:
    """The same three names in the summary, the progress display and `webcrawler stats`."""
    return f"retries {retries}, recovered {recovered}, final failures {final}"


def line(s: Snapshot) -> str:
    return (f"{s.elapsed:7.1f}s  docs {s.retrieved}  ({s.per_second:.1f}/s, {s.per_hour:,.0f}/h)  "
            f"servers {s.servers_visited}/{s.servers_known}  queue {s.queued}  "
            f"in flight {s.in_flight}  failures {sum(s.failures.values())}  "
            f"retries {s.retries}"
            + (f"  {s.recrawl}" if s.recrawl else ""))


def block(s: Snapshot) -> list[str]:
    return [
        f"webcrawler index   {s.elapsed:8.1f} s",
        f"  documents   {s.retrieved:>9,}   {s.per_second:8.1f}/s  {s.per_hour:>12,.0f}/hour",
        f"  servers     {s.servers_visited:>9,} visited of {s.servers_known:,} known",
        f"  queue       {s.queued:>9,}   in flight {s.in_flight}",
        f"  failures    {sum(s.failures.values()):>9,}   {_reasons(s.failures)}"[:160],
        f"  excluded    {sum(s.excluded.values()):>9,}   {_reasons(s.excluded)}"[:160],
        f"  retries     {s.retries:>9,}   {retry_line(s.retries, s.recovered, sum(s.failures.values()))}",
    ] + ([f"  {s.recrawl}"[:160]] if s.recrawl else [])


def summary(s: Snapshot) -> str:
    return "\n".join([
        f"Crawl finished ({s.stop_reason or 'stopped'}) after {s.elapsed:.1f} s:",
        f"  documents retrieved  {s.retrieved} ({s.per_second:.1f} per second, "
        f"{s.per_hour:,.0f} per hour)",
        f"  answers              {s.answered}",
        f"  requests             {s.bandwidth()}",
        f"  servers              {s.servers_visited} visited of {s.servers_known} known",
        f"  still queued         {s.queued}",
        f"  failures             {sum(s.failures.values())}: {_reasons(s.failures)}",
        f"  excluded             {sum(s.excluded.values())}: {_reasons(s.excluded)}",
        f"  retried              {retry_line(s.retries, s.recovered, sum(s.failures.values()))}",
    ] + ([f"  rendered             {s.rendered} (their scripts ran in Chromium)"] if s.rendered else [])
      + ([f"  {s.found}"] if s.found else []) + ([f"  {s.recrawl}"] if s.recrawl else []))


class ProgressReporter:
    """Called by the crawler every `progress_interval` seconds and once at the end."""

    def __init__(self, stream: TextIO = sys.stderr, live: bool | None = None) -> None:
        self.stream = stream
        self.live = stream.isatty() if live is None else live
        self._lines_drawn = 0

    def __call__(self, crawler: CrawlLoop) -> None:
        s = snapshot(crawler)
        if not self.live:
            print(line(s), file=self.stream, flush=True)
            return
        lines = block(s)
        if self._lines_drawn:
            self.stream.write(f"\x1b[{self._lines_drawn}F")
        for text in lines:
            self.stream.write("\x1b[2K" + text + "\n")
        self.stream.flush()
        self._lines_drawn = len(lines)
