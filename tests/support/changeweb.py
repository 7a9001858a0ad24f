"""A generated web whose pages change, are born and die over accelerated time.

`ChangingWeb` is a `GenWeb` (same servers, links, robots.txt) on a clock
(`changes.py`): `day_seconds` real seconds make one simulated day. At any moment a
page has a real version (how many non-trivial changes it has had, and for a home
page how many new pages it lists) and a trivial version (its clock or counter
line). A real change rewrites one of the page's five sections (about a fifth of
its words: an edited paragraph); a trivial one changes one short line.

HTTP, as a careful server does it: `ETag` names the real+trivial version,
`Last-Modified` the time of the latest change of either kind; `If-None-Match`
(or, without it, `If-Modified-Since`) that still holds is answered 304 with no
body. A dead page answers 410 (odd page numbers) or 404. `truth(now)` says what
every page is at that moment, so a benchmark can tell an obsolete copy from a
fresh one. This module must never name an address outside 127.0.0.0/8.
"""

from __future__ import annotations

import dataclasses
import math
import random
import time
import zlib
from dataclasses import dataclass, field
from email.utils import formatdate, parsedate_to_datetime

from tests.support.changes import Changes, Clock, Spread, spread_from
from tests.support.genweb import GenWeb, page_number, page_path, random_text
from tests.support.replies import Reply

SECTIONS = 5  # a real change rewrites one of these
WEEKDAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
MIN_BYTES = 1500  # of text: a fifth of it (a real change) is then at least ~45 words


@dataclass(frozen=True)
class PageState:
    """A page at one moment: `real` changes only with non-trivial changes."""

    alive: bool
    real: str  # "<changes>.<new pages listed>"
    trivial: int
    modified: float  # real Unix time of the latest change of either kind

    @property
    def etag(self) -> str:
        return f'"{self.real}-{self.trivial}"'


@dataclass(frozen=True)
class ChangingWeb(GenWeb):
    day_seconds: float = 60.0  # real seconds per simulated day
    epoch: float = 0.0  # real Unix time of day 0 (0: now, when built)
    spread: str | Spread = "cho"  # a name in changes.SPREADS, or a Spread (changes.mixed)
    log_path: str = ""  # where the server appends one line per request ("" = none)
    changes: Changes = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "spread", spread_from(self.spread) if isinstance(self.spread, dict)
                           else self.spread)
        if self.day_seconds <= 0:
            raise ValueError("day_seconds must be positive")
        if not self.epoch:
            object.__setattr__(self, "epoch", time.time())
        object.__setattr__(self, "changes", Changes(self.seed, spread_from(self.spread)))

    @property
    def clock(self) -> Clock:
        return Clock(self.epoch, self.day_seconds)

    def config(self) -> dict[str, object]:
        """The settings a server process needs to build the same web."""
        fields = [f for f in GenWeb.__dataclass_fields__] + ["day_seconds", "epoch", "spread", "log_path"]
        settings = {name: getattr(self, name) for name in fields}
        if isinstance(self.spread, Spread):
            settings["spread"] = dataclasses.asdict(self.spread)
        return settings

    # --- the truth ----------------------------------------------------
    def born(self, server: int, page: int) -> float:
        """The day the page appears (0 for the pages the web starts with)."""
        extra = page - self.pages_per_server
        if extra < 0:
            return 0.0
        births = self.changes.births(server, self.pages_per_server)
        return float(births[extra]) if extra < len(births) else math.inf

    def new_pages(self, server: int, day: float) -> int:
        """How many pages the server has gained by `day`."""
        return int(self.changes.births(server, self.pages_per_server).searchsorted(day, side="right"))

    def state(self, server: int, page: int, now: float) -> PageState:
        """The truth about one page at real time `now` (its versions count from its birth)."""
        day = self.clock.day(now)
        born = self.born(server, page)
        alive = born <= day < self.changes.death(server, page)
        real = self.changes.events_before(server, page, day)
        if 0 < born < math.inf:
            real = max(0, real - self.changes.events_before(server, page, born))
        listed = self.new_pages(server, day) if page == 0 else 0
        trivial = self.changes.trivial_version(server, page, day)
        last = self.changes.last_event(server, page, day)
        if last is None:  # unchanged since day 0, or since its birth: the web had a past
            last = born if born > 0 else self.changes.past_change(server, page)
        period = self.changes.trivial_period(server, page)  # inf: no clock or counter line
        ticks = [last, trivial * period if trivial else 0.0 if period < math.inf else last]
        if born > 0:
            ticks.append(born)
        if page == 0 and listed:
            ticks.append(self.born(server, self.pages_per_server + listed - 1))
        return PageState(alive, f"{real}.{listed}", trivial, self.clock.real(max(ticks)))

    def pages_at(self, now: float) -> dict[str, PageState]:
        """Every page that exists at `now` and robots.txt lets WebCrawler fetch, by URL."""
        day = self.clock.day(now)
        out = {}
        for server in range(self.servers):
            for page in range(self.pages_per_server + self.new_pages(server, day)):
                if self.allowed(server, page_path(page)):
                    state = self.state(server, page, now)
                    if state.alive:
                        out[self.url(server, page)] = state
        return out

    # --- pages --------------------------------------------------------
    def render(self, server: int, page: int, state: PageState) -> bytes:
        """The page's HTML at `state`: sections rewritten by the changes so far."""
        changes, listed = (int(x) for x in state.real.split("."))
        links = self.links(server, page)
        if page == 0:
            first = self.pages_per_server
            links += [(self.url(server, p), f"new {self.title(server, p)}")
                      for p in range(first, first + listed)]
        rng = self._rng(server, page, 3)
        words = random_text(rng, min(40 * self.page_bytes, max(MIN_BYTES, int(rng.lognormvariate(
            math.log(self.page_bytes), 0.8))))).split(" ")
        for section in range(SECTIONS):  # contiguous fifths of the words: an edited passage each
            last = _last_change_of(section, changes + listed)  # a birth is news on the home page too
            if last:
                start, end = section * len(words) // SECTIONS, (section + 1) * len(words) // SECTIONS
                fresh = random.Random(hash_key(self.seed, server, page, last, section))
                words[start:end] = random_text(fresh, 10 * (end - start) + 50).split(" ")[:end - start]
        per = max(1, len(words) // (len(links) + 1))
        chunks = [words[i * per:(i + 1) * per] for i in range(len(links))] + [words[len(links) * per:]]
        title = self.title(server, page)
        parts = [f"<!DOCTYPE html><html><head><title>{title}</title></head><body><h1>{title}</h1>\n",
                 _stamp(self.changes.trivial_period(server, page), state.trivial)]
        for chunk, (href, anchor) in zip(chunks, links, strict=False):
            parts.append(f"<p>{' '.join(chunk)} <a href=\"{href}\">{anchor}</a></p>\n")
        parts.append(f"<p>{' '.join(chunks[-1])}</p></body></html>\n")
        return "".join(parts).encode()

    def answer(self, server: int, path: str, headers: dict[str, str], now: float | None = None) -> Reply:
        """The answer to a GET with these (lower-case) headers at `now`."""
        page = page_number(path)
        if server >= self.servers or page is None:
            return self.respond(server, path)
        now = time.time() if now is None else now
        state = self.state(server, page, now)
        version = f"{state.real}.{state.trivial}"
        if not state.alive:
            if self.born(server, page) <= self.clock.day(now):
                return Reply(410 if page % 2 else 404, b"gone", "text/plain", (("X-Version", "gone"),))
            return Reply(404, b"not found", "text/plain", (("X-Version", "unborn"),))
        validators = (("ETag", state.etag), ("Last-Modified", formatdate(state.modified, usegmt=True)),
                      ("X-Version", version))
        if _not_modified(headers, state):
            return Reply(304, b"", headers=validators)
        return Reply(200, self.render(server, page, state), headers=validators)


def _last_change_of(section: int, changes: int) -> int:
    """The latest change (1..changes) that rewrote `section` (change k rewrites k % SECTIONS), 0 if none."""
    if changes < 1:
        return 0
    last = changes - ((changes - section) % SECTIONS)
    return last if last >= 1 else 0


def _stamp(period: float, tick: int) -> str:
    """The trivial line: a clock (hourly) or a visitor counter (daily), or nothing."""
    if math.isinf(period):
        return ""
    if period < 1:
        weekday = WEEKDAYS[(tick // 24) % 7]  # a word changes too, not only digits
        return f"<p class=\"stamp\">Updated {weekday} (day {tick // 24}) at {tick % 24:02d}:00</p>\n"
    return f"<p class=\"stamp\">Visitors since day 0: {1000 + 37 * tick}</p>\n"


def _not_modified(headers: dict[str, str], state: PageState) -> bool:
    """RFC 9110 13.2.2: If-None-Match decides when present; else If-Modified-Since."""
    if "if-none-match" in headers:
        tags = [t.strip().removeprefix("W/") for t in headers["if-none-match"].split(",")]
        return state.etag in tags or "*" in tags
    if "if-modified-since" in headers:
        try:
            since = parsedate_to_datetime(headers["if-modified-since"]).timestamp()
        except (TypeError, ValueError):
            return False
        return int(state.modified) <= since
    return False


def hash_key(*parts: int) -> int:
    """A stable integer from a few integers (Python's hash of a tuple changes between runs)."""
    return zlib.crc32(",".join(map(str, parts)).encode())
