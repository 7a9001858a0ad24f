"""A flaky web crawled with retries and without: pages recovered, requests spent, time taken.

    python -m bench.flaky_web [--sites 4] [--pages 40] [--json bench/results/flaky_web.json]

Served from this process on 127.0.8.x: a hub linking to `--sites` sites of `--pages` pages.
On each site a third of the pages fail their first request the way real servers do, in turn:
503 with Retry-After: 1, 500, a reset connection, 429 with Retry-After: 1, 502, 504, and an
answer slower than the crawler's read timeout; one page in ten of those fails its second
request too. Every failure passes on a later try, so a crawl that loses a page lost it to a
passing error. Both crawls run `webcrawler index` with 4 agents and `--delay 0`; one with
`--retries 3 --retry-backoff 0.5`, one with `--retries 0`. Requests are counted in the
servers' own access log, and so is every request that came inside a Retry-After window.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from sqlalchemy import func, select

from bench.common import publish, table
from tests.support.flakyweb import RESET, Flaky, error, slow, too_many, unavailable
from webcrawler.commands.index import run_index
from webcrawler.database.schema import connect, documents
from webcrawler.database.states import State
from webcrawler.demoweb.server import Hit, LoopbackWeb, Page, Site, html
from webcrawler.settings import Settings

TITLE = "Retries on a flaky web: `--retries 3` against `--retries 0`"
READ_TIMEOUT = 1.0
KINDS = [unavailable(1), error(500), RESET, too_many(1), error(502), error(504),
         slow(READ_TIMEOUT * 2, Page("late"))]


def site(number: int, pages: int) -> Flaky:
    routes = {"/" if i == 0 else f"/p{i}": html(
        f"site {number} page {i}", f"text {number} {i}",
        [(f"/p{(i * 3 + k) % pages}", f"page {k}") for k in range(1, 4)]) for i in range(pages)}
    failing = {path: KINDS[n % len(KINDS)] for n, path in enumerate(sorted(routes)) if n % 3 == 1}
    twice = set(sorted(failing)[::10])

    def plan(path: str, n: int) -> Page | None:
        if path in failing and (n == 1 or (n == 2 and path in twice)):
            return failing[path]
        return None
    return Flaky(routes, plan)


def inside_windows(hits: list[Hit]) -> int:
    """Requests that started within a second after a 429 or 503 of the same server ended."""
    ends = [(h.server, h.finished) for h in hits if h.status in (429, 503)]
    return sum(1 for h in hits for server, end in ends
               if h.server == server and end < h.started < end + 1.0)


def crawl(sites: int, pages: int, retries: int, data: Path) -> dict[str, float]:
    hub: dict = {}
    listed = [Site("127.0.8.1", hub)] + [Site(f"127.0.8.{10 + n}", site(n, pages))
                                         for n in range(sites)]
    with LoopbackWeb(listed) as web:
        hub["/"] = html("hub", "the root", [(web.url(f"127.0.8.{10 + n}"), f"site {n}")
                                            for n in range(sites)])
        settings = Settings(data_dir=data, agents=4, delay=0.0, hours=0.2, progress_interval=60.0,
                            read_timeout=READ_TIMEOUT, total_timeout=5.0, retries=retries,
                            retry_backoff=0.5, seeds=(web.url("127.0.8.1"),))
        started = time.monotonic()
        run_index(settings, progress=False)
        seconds = time.monotonic() - started
        web.log.settle()
        hits = [h for h in web.log.snapshot() if h.path != "/robots.txt"]
    return {"pages": fetched(settings), "requests": len(hits), "seconds": seconds,
            "violations": inside_windows(hits)}


def fetched(settings: Settings) -> int:
    engine = connect(settings.database_url)
    try:
        with engine.connect() as conn:
            return int(conn.execute(select(func.count()).where(
                documents.c.state == State.FETCHED)).scalar_one())
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sites", type=int, default=4)
    parser.add_argument("--pages", type=int, default=40)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args()
    total = 1 + args.sites * args.pages
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for retries in (3, 0):
            runs[retries] = crawl(args.sites, args.pages, retries, Path(tmp) / f"r{retries}")
            print(f"--retries {retries}: {runs[retries]}", flush=True)
    rows = [[f"--retries {r}", f"{int(m['pages'])} of {total}", int(m["requests"]),
             f"{m['seconds']:.1f}", int(m["violations"])] for r, m in runs.items()]
    body = table(["crawl", "pages indexed", "requests (robots.txt aside)", "seconds",
                  "requests inside a Retry-After window"], rows)
    with_retries, without = runs[3], runs[0]
    met = with_retries["pages"] == total and with_retries["violations"] == 0
    publish(TITLE, body + f"\n\nEvery failure on this web passes on a later try: with retries "
            f"no page is lost ({int(with_retries['pages'])} of {total}), for "
            f"{int(with_retries['requests'] - without['requests'])} more requests and "
            f"{with_retries['seconds'] - without['seconds']:.1f} s more than the crawl that "
            f"gives up at the first failure ({int(without['pages'])} of {total}).\n",
            args.json,
            headline=f"--retries 3: {int(with_retries['pages'])} of {total} pages, "
                     f"{int(with_retries['requests'])} requests, {with_retries['seconds']:.1f} s; "
                     f"--retries 0: {int(without['pages'])} of {total}",
            goal="no page lost to a passing failure, no request inside a Retry-After window",
            met=met)


if __name__ == "__main__":
    main()
