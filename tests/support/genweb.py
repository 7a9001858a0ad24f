"""A generated web for scale: any number of servers, pages computed from their URL.

`GenWeb` describes the web; nothing is stored. A page is a pure function of
(seed, server, page number), so a web of ten million pages costs no disk and
the same URL always answers the same bytes. `genweb_server` serves it.

Shape, after what crawls of the real Web found:

- servers on consecutive loopback addresses from `first_address` (default
  127.0.8.0: the range 127.0.8.0-127.0.47.255 holds 10,240 servers), all on
  one port;
- every page links to `branching` child pages (so every page is reachable
  from its server's home page) and to about `links_per_page` others chosen
  with a Zipf law (popular pages and popular servers get most links: a
  power-law in-degree); `cross_share` of them go to other servers, and each
  home page links to `branching` other servers' home pages (a tree, so every
  server is reachable from server 0);
- page text drawn from a Zipf vocabulary, sizes log-normal around
  `page_bytes` (a long tail up to 40 times that);
- robots.txt rules: `/private/` for everyone, `/page/1` (so /page/1.html,
  /page/10-19.html, /page/100-199.html...) on every fourth server, and a
  `BadBot` shut out; some pages link to private and to missing pages.

Hostile corners (`hostile=`), each on a server of its own after the normal
ones, linked from server 0's home page: see `HOSTILE`.

`ground_truth()` walks the web the way a polite crawler must (robots.txt
honoured, fragments none) and says which pages exist, which are excluded and
which links are broken; `expected_failures()` says how each hostile URL must
end. This module must never name an address outside 127.0.0.0/8.
"""

from __future__ import annotations

import ipaddress
import math
import random
import re
from collections import deque
from dataclasses import dataclass, field
from functools import cache

from tests.support.replies import Reply

HOSTILE = {
    "calendar": "/calendar/2024-01-01.html",  # next day, next month, next year: never ends
    "redirect-loop": "/loop/index.html",  # /loop/a <-> /loop/b, and /chain/1 -> /chain/2 -> ...
    "never-finishes": "/slow/index.html",  # /slow/trickle.html: a byte every 0.2 s; /slow/stall.html: nothing
    "huge": "/huge/index.html",  # 20 MB pages, with and without Content-Length
    "gzip-bomb": "/bomb.html",  # 1 MB on the wire, 256 MiB of zeros once inflated
    "binary": "/binary.html",  # random bytes (a PNG header) served as text/html
    "robots-503": "/",  # robots.txt answers 503 Service Unavailable, always
}
BOMB_MIB = 256
SLOW_SECONDS = 600.0  # a page that never finishes still gives up after this long
SERVER_TREE = 4  # each home page links to this many other servers' home pages


@dataclass
class GroundTruth:
    """What a polite crawler named WebCrawler finds from the seed, on the normal servers."""

    pages: set[str] = field(default_factory=set)  # answer 200 with HTML, allowed, reachable
    excluded: set[str] = field(default_factory=set)  # reachable but disallowed by robots.txt
    broken: set[str] = field(default_factory=set)  # reachable links that answer 404
    links: int = 0  # distinct (page, target) pairs among `pages`
    hostile: set[str] = field(default_factory=set)  # hostile entry URLs linked from the seed


@dataclass(frozen=True)
class GenWeb:
    servers: int = 20
    pages_per_server: int = 50
    links_per_page: int = 20
    cross_share: float = 0.1
    page_bytes: int = 8000
    branching: int = 4
    hostile: tuple[str, ...] = ()
    seed: int = 1994
    first_address: str = "127.0.8.0"
    port: int = 0
    bomb_mib: int = BOMB_MIB

    def __post_init__(self) -> None:
        unknown = set(self.hostile) - set(HOSTILE)
        if unknown:
            raise ValueError(f"unknown hostile corners: {sorted(unknown)}")
        first = ipaddress.ip_address(self.first_address)
        last = first + self.total_servers - 1
        if not (first.is_loopback and last.is_loopback):
            raise ValueError("a generated web serves on 127.0.0.0/8 only")

    # --- addresses ----------------------------------------------------
    @property
    def total_servers(self) -> int:
        return self.servers + len(self.hostile)

    def address(self, server: int) -> str:
        n = _address_int(self.first_address) + server
        return f"{n >> 24}.{(n >> 16) & 255}.{(n >> 8) & 255}.{n & 255}"

    def server_of(self, address: str) -> int | None:
        """The server number of `address`, or None when it is not one of ours."""
        try:
            n = _address_int(address) - _address_int(self.first_address)
        except ValueError:
            return None
        return n if 0 <= n < self.total_servers else None

    def origin(self, server: int) -> str:
        return f"http://{self.address(server)}:{self.port}"

    def url(self, server: int, page: int) -> str:
        return self.origin(server) + page_path(page)

    @property
    def seed_url(self) -> str:
        return self.url(0, 0)

    @property
    def include_pattern(self) -> str:
        return rf"^http://127\.[0-9]+\.[0-9]+\.[0-9]+:{self.port}/"

    def hostile_server(self, corner: str) -> int:
        return self.servers + self.hostile.index(corner)

    # --- pages --------------------------------------------------------
    def _rng(self, server: int, page: int, salt: int) -> random.Random:
        return random.Random(((self.seed * 1_000_003 + server) * 1_000_000_007 + page) * 7 + salt)

    def title(self, server: int, page: int) -> str:
        words = _hashed_words(self.seed, server, page, 3)
        return f"{' '.join(words).capitalize()} ({server}.{page})"

    def links(self, server: int, page: int) -> list[tuple[str, str]]:
        """(absolute URL, anchor text) of every link on a normal page, in page order."""
        rng = self._rng(server, page, 1)
        n, b = self.pages_per_server, self.branching
        targets: list[tuple[int, int]] = []
        if page == 0:
            first = server * SERVER_TREE + 1
            targets += [(t, 0) for t in range(first, first + SERVER_TREE) if t < self.servers]
        targets += [(server, c) for c in range(page * b + 1, page * b + b + 1) if c < n]
        count = max(0, round(rng.lognormvariate(math.log(self.links_per_page), 0.5)) - len(targets))
        for _ in range(min(count, 400)):
            if self.servers > 1 and rng.random() < self.cross_share:
                other = _zipf(rng, self.servers)
                targets.append((other if other != server else (other + 1) % self.servers, _zipf(rng, n)))
            else:
                targets.append((server, _zipf(rng, n)))
        out = [(self.url(t, p), self.title(t, p)) for t, p in targets]
        if page % 17 == 5:
            out.append((f"{self.origin(server)}/private/{page}.html", "private notes"))
        if page % 23 == 7:
            out.append((f"{self.origin(server)}/missing/{page}.html", "a page that went away"))
        if server == 0 and page == 0:
            out += [(self.origin(self.hostile_server(c)) + HOSTILE[c], c) for c in self.hostile]
        return out

    def html(self, server: int, page: int) -> bytes:
        rng = self._rng(server, page, 3)
        size = min(40 * self.page_bytes, max(300, int(rng.lognormvariate(math.log(self.page_bytes), 0.8))))
        words = random_text(rng, size).split(" ")
        links = self.links(server, page)
        parts = [f"<!DOCTYPE html><html><head><title>{self.title(server, page)}</title></head>"
                 f"<body><h1>{self.title(server, page)}</h1>\n"]
        per = max(1, len(words) // (len(links) + 1))
        for i, (href, anchor) in enumerate(links):
            parts.append(f"<p>{' '.join(words[i * per:(i + 1) * per])} <a href=\"{href}\">{anchor}</a></p>\n")
        parts.append(f"<p>{' '.join(words[len(links) * per:])}</p></body></html>\n")
        return "".join(parts).encode()

    def robots_txt(self, server: int) -> str:
        lines = ["User-agent: BadBot", "Disallow: /", "", "User-agent: *", "Disallow: /private/"]
        if server % 4 == 1:
            lines.append("Disallow: /page/1")
        return "\n".join(lines) + "\n"

    def allowed(self, server: int, path: str) -> bool:
        """robots.txt's verdict for WebCrawler (the rules above are plain prefixes)."""
        return not (path.startswith("/private/") or (server % 4 == 1 and path.startswith("/page/1")))

    def respond(self, server: int, path: str) -> Reply:
        """The answer to GET `path` on `server` (any server number, hostile ones included)."""
        if server >= self.servers:
            from tests.support.genweb_hostile import hostile_reply

            return hostile_reply(self, self.hostile[server - self.servers], path)
        if path == "/robots.txt":
            return Reply(200, self.robots_txt(server).encode(), "text/plain")
        page = page_number(path)
        if page is not None and page < self.pages_per_server:
            return Reply(200, self.html(server, page))
        match = re.fullmatch(r"/private/(\d+)\.html", path)
        if match:
            return Reply(200, b"<html><title>Private</title><body>plugh</body></html>")
        return Reply(404, b"not found", "text/plain")

    def answer(self, server: int, path: str, headers: dict[str, str]) -> Reply:
        """The answer to GET `path` with these (lower-case) request headers: a changing web
        (`changeweb.py`) reads them; this one does not."""
        return self.respond(server, path)

    # --- ground truth -------------------------------------------------
    def ground_truth(self, limit: int = 100_000) -> GroundTruth:
        """Breadth-first from the seed over the normal servers, robots.txt honoured."""
        truth = GroundTruth()
        seen = {self.seed_url}
        queue = deque([self.seed_url])
        while queue and len(truth.pages) < limit:
            url = queue.popleft()
            server, path = self._locate(url)
            if server >= self.servers:
                truth.hostile.add(url)
                continue
            if not self.allowed(server, path):
                truth.excluded.add(url)
                continue
            page = page_number(path)
            if page is None or page >= self.pages_per_server:
                truth.broken.add(url)
                continue
            truth.pages.add(url)
            targets = {href for href, _ in self.links(server, page)}
            truth.links += len(targets)
            for href in targets:
                if href not in seen:
                    seen.add(href)
                    queue.append(href)
        return truth

    def _locate(self, url: str) -> tuple[int, str]:
        match = re.match(r"http://([0-9.]+):\d+(/.*)", url)
        assert match, url
        server = self.server_of(match.group(1))
        assert server is not None, url
        return server, match.group(2)

    def expected_failures(self) -> dict[str, tuple[str, str | None]]:
        """Hostile URL -> (state, reason) the database must record for it."""
        from tests.support.genweb_hostile import expected_failures

        return expected_failures(self)


def page_path(page: int) -> str:
    return "/" if page == 0 else f"/page/{page}.html"


def page_number(path: str) -> int | None:
    if path in ("/", "/index.html"):
        return 0
    match = re.fullmatch(r"/page/([1-9]\d*)\.html", path)
    return int(match.group(1)) if match else None


def _zipf(rng: random.Random, n: int) -> int:
    """0..n-1 with P(k) about proportional to 1/(k+1): a power law."""
    return min(n - 1, int(n ** rng.random()) - 1) if n > 1 else 0


@cache
def _vocabulary() -> tuple[list[str], list[float]]:
    """20,000 pronounceable words and Zipf cumulative weights (rank r has weight 1/(r+3))."""
    rng = random.Random(1994)
    onsets = "b c d f g h j k l m n p r s t v w z br cr dr fl gr pl pr sl st tr ch sh th".split()
    vowels = "a e i o u ai ea ee oo ou".split()
    codas = ["", "", "n", "r", "s", "t", "l", "m", "nd", "st", "ck"]
    words: list[str] = []
    seen: set[str] = set()
    while len(words) < 20_000:
        word = "".join(rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
                       for _ in range(rng.choice((1, 2, 2, 3))))
        if word not in seen:
            seen.add(word)
            words.append(word)
    total, cumulative = 0.0, []
    for rank in range(len(words)):
        total += 1.0 / (rank + 3)
        cumulative.append(total)
    return words, cumulative


def _words(rng: random.Random, k: int) -> list[str]:
    words, cumulative = _vocabulary()
    return rng.choices(words, cum_weights=cumulative, k=k)


@cache
def _address_int(address: str) -> int:
    return int(ipaddress.ip_address(address))


@cache
def _word_table() -> tuple[str, ...]:
    """65,536 words drawn from the Zipf vocabulary: a hash picks one in O(1)."""
    return tuple(_words(random.Random(8), 1 << 16))


@cache
def _pool() -> str:
    """A million characters of Zipf text; a page's text is a slice of it."""
    return " ".join(_words(random.Random(9), 160_000))


def random_text(rng: random.Random, size: int) -> str:
    pool = _pool()
    start = pool.find(" ", rng.randrange(len(pool) - min(size, len(pool) // 2))) + 1
    end = pool.rfind(" ", start, start + size)
    return pool[start:end if end > start else start + size]


def _hashed_words(seed: int, server: int, page: int, k: int) -> list[str]:
    table = _word_table()
    h = (((seed * 0x9E3779B1 + server) * 0x85EBCA77 + page) * 0xC2B2AE3D) & 0xFFFFFFFFFFFFFFFF
    h ^= h >> 29
    h = (h * 0xBF58476D1CE4E5B9) & 0xFFFFFFFFFFFFFFFF
    h ^= h >> 32
    return [table[(h >> (16 * i)) & 0xFFFF] for i in range(k)]


def vocabulary() -> list[str]:
    """The words pages are made of, most frequent first (for benchmark queries)."""
    return list(_vocabulary()[0])
