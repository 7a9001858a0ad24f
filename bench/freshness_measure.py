"""Freshness measured from the changing web's request log and its truth.

WebFountain (section 3): a stored page is up to date or obsolete; it is obsolete
once the live page changed non-trivially, and pages the crawler has no copy of
count as obsolete too. Here, at a moment t:

- the universe is every page alive at t that robots.txt lets the crawler fetch,
  plus every page the crawler still holds although it has died;
- the crawler holds, for each URL, the real version of the last page answer it
  received before t (a 200 brings that version; a 304 confirms the version the
  server names; a 404/410 means the crawler drops the page);
- obsolete = live pages held at another real version or never fetched (known or
  not: stricter than the paper, the same for every policy) + dead pages held.

The log has one line per request: time, URL, status, served version
("<changes>.<new pages listed>.<trivial tick>"), written by the server as it answers.
"""

from __future__ import annotations

import bisect
import math
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from tests.support.changeweb import ChangingWeb
from webcrawler.recrawl.allocation import allocate, freshness

PAGE = re.compile(r"^(http://[0-9.]+:\d+)(/|/page/[1-9]\d*\.html)$")


@dataclass
class Fetches:
    """Each page URL's answers in time order: (time, status, served version or '')."""

    by_url: dict[str, list[tuple[float, int, str]]] = field(default_factory=lambda: defaultdict(list))
    statuses: Counter[int] = field(default_factory=Counter)
    trivial_served: int = 0  # 200s whose real version equals the previous 200's but the trivial tick not
    real_served: int = 0  # 200s whose real version differs from the previous answer's

    def held(self, url: str, t: float) -> str | None:
        """The real version the crawler holds of `url` at t (None: no copy)."""
        answers = self.by_url.get(url)
        if not answers:
            return None
        k = bisect.bisect_right(answers, (t, 10**9, "\uffff"))
        for _when, status, version in reversed(answers[:k]):
            if status in (200, 304):
                return _real(version)
            if status in (404, 410):
                return None
        return None  # only errors so far: no copy (an error later leaves a copy as it was)


def read_log(path: Path) -> Fetches:
    """Parse the server's request log (page URLs only; robots.txt and the rest are skipped)."""
    fetches = Fetches()
    last: dict[str, str] = {}
    with open(path, encoding="utf-8") as log:
        for line in log:
            when, url, status, version = line.rstrip("\n").split("\t")
            if not PAGE.match(url):
                continue
            code = int(status)
            fetches.statuses[code] += 1
            fetches.by_url[url].append((float(when), code, version if version != "-" else ""))
            if code == 200:
                previous = last.get(url)
                if previous is not None and _real(previous) == _real(version) and previous != version:
                    fetches.trivial_served += 1
                elif previous is not None and _real(previous) != _real(version):
                    fetches.real_served += 1
                last[url] = version
    for answers in fetches.by_url.values():
        answers.sort()
    return fetches


def _real(version: str) -> str:
    return version.rsplit(".", 1)[0]


@dataclass(frozen=True)
class Sample:
    day: float
    live: int  # pages alive (and allowed)
    never_fetched: int  # live pages the crawler has no copy of
    stale: int  # live pages held at an older real version
    dead_held: int  # dead pages the crawler still holds

    @property
    def obsolete(self) -> float:
        total = self.live + self.dead_held
        return (self.never_fetched + self.stale + self.dead_held) / total if total else 0.0


def sample(web: ChangingWeb, fetches: Fetches, t: float) -> Sample:
    """The obsolete pages at real time t."""
    live = web.pages_at(t)
    never = stale = 0
    for url, state in live.items():
        held = fetches.held(url, t)
        if held is None:
            never += 1
        elif held != state.real:
            stale += 1
    dead_held = sum(1 for url in fetches.by_url if url not in live and fetches.held(url, t) is not None)
    return Sample(round(web.clock.day(t), 3), len(live), never, stale, dead_held)


def timeline(web: ChangingWeb, fetches: Fetches, start: float, end: float, per_day: int = 2) -> list[Sample]:
    """Samples every 1/per_day simulated day from `start` to `end` (real times)."""
    step = web.day_seconds / per_day
    count = int((end - start) / step)
    return [sample(web, fetches, start + (i + 1) * step) for i in range(count)]


def true_rate(days: float, day_seconds: float) -> float:
    """Mean real changes a second of a page whose changes are `days` simulated days apart on
    average (0: it never changes): the known rate every optimum here is computed from."""
    return 0.0 if math.isinf(days) else 1.0 / (days * day_seconds)


def expected_optimum(rates: np.ndarray, fetch_rate: float) -> float:
    """Mean F(l_i, f_i) of Cho and Garcia-Molina's known-rate allocation of `fetch_rate`
    fetches a second over pages of these true rates: the optimum's Poisson expectation."""
    return float(np.mean(freshness(rates, allocate(rates, np.ones(len(rates)), fetch_rate))))


def mean_sd(values: list[float]) -> str:
    """"mean ± sd" of a figure over seeds (the one value alone when there is one)."""
    return f"{np.mean(values):.3f} ± {np.std(values):.3f}" if len(values) > 1 else f"{values[0]:.3f}"


def words(markup_or_text: str) -> list[str]:
    return re.sub(r"<[^>]+>", " ", markup_or_text).split()


def resemblance(a: list[str], b: list[str], w: int = 4) -> float:
    """Jaccard of word w-shingles (Broder): 1 for the same text, ~0.65 after one real change."""
    sa = {tuple(a[i:i + w]) for i in range(max(1, len(a) - w + 1))}
    sb = {tuple(b[i:i + w]) for i in range(max(1, len(b) - w + 1))}
    return len(sa & sb) / len(sa | sb) if sa | sb else 1.0


def live_share(web: ChangingWeb, exported: list[dict], t: float, threshold: float = 0.9) -> dict[str, float]:
    """Of the exported pages with text, the share whose text is the live version at t.

    The live page's visible words (its trivial line differs by a few words only) are
    compared with the exported text; one real change lowers resemblance to about 0.65,
    a trivial one leaves it above 0.95, so 0.9 separates them.
    """
    live = web.pages_at(t)
    current = checked = 0
    for record in exported:
        if record.get("status") != 200 or not record.get("text"):
            continue
        checked += 1
        state = live.get(record["url"])
        if state is None:
            continue
        server = web.server_of(record["url"].split("//")[1].split(":")[0])
        page = _page_of(record["url"])
        assert server is not None and page is not None
        page_words = words(web.render(server, page, state).decode())
        current += resemblance(page_words, words(record["text"])) >= threshold
    return {"exported": checked, "live": len(live), "current": current,
            "share": current / checked if checked else 0.0}


def _page_of(url: str) -> int | None:
    match = re.search(r"/page/(\d+)\.html$", url)
    return int(match.group(1)) if match else 0 if url.endswith("/") else None
