"""A rate-limited server: how many of our requests it refuses, and whether a page is lost.

    python -m bench.rate_limit [--pages 60] [--json bench/results/rate_limit.json]

Served from this process on 127.0.8.x: one site of `--pages` pages behind a rate limit as
nginx's `limit_req` keeps one (no burst, no Retry-After): a request that starts less than the
limit's interval after the last accepted one is answered 429 (tests/support/flakyweb.py's
`RateLimited`, robots.txt included). Two crawls, each `webcrawler index` with 4 agents and the
default retries: `--delay 0` against a 0.05 s limit (the server is the only politeness), and
`--delay 0.2` against a 0.3 s limit (our delay is shorter than the server's: the case the
old rule answered with one refused request in two). Refusals and requests are the server's
own counts; a page is lost when it is not fetched at the end.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from bench.common import publish, table
from bench.flaky_web import fetched
from tests.support.flakyweb import RateLimited
from webcrawler.commands.index import run_index
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.settings import Settings

TITLE = "Politeness that learns: a rate-limited server's refusals"
GOAL_SHARE = 0.1
RUNS = ((0.0, 0.05), (0.2, 0.3))  # (--delay, the server's interval)


def routes(pages: int) -> dict:
    found = {"/": html("limited home", "the home page", [(f"/p{i}", f"page {i}")
                                                        for i in range(1, pages)])}
    for i in range(1, pages):
        found[f"/p{i}"] = html(f"limited page {i}", f"text of page {i}", [("/", "home")])
    return found


def crawl(pages: int, delay: float, interval: float, data: Path) -> dict[str, float]:
    limited = RateLimited(routes(pages), interval)
    with LoopbackWeb([Site("127.0.8.40", limited)]) as web:
        settings = Settings(data_dir=data, agents=4, delay=delay, hours=0.2,
                            progress_interval=60.0, seeds=(web.url("127.0.8.40"),))
        started = time.monotonic()
        run_index(settings, progress=False)
        seconds = time.monotonic() - started
    asked = limited.accepted + limited.refused
    return {"requests": asked, "refused": limited.refused, "share": limited.refused / asked,
            "pages": fetched(settings), "seconds": seconds}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--pages", type=int, default=60)
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args()
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for delay, interval in RUNS:
            runs[delay, interval] = crawl(args.pages, delay, interval, Path(tmp) / f"d{delay}")
            print(f"--delay {delay}, limit {interval} s: {runs[delay, interval]}", flush=True)
    rows = [[f"--delay {d:g}", f"{i:g} s", int(m["requests"]), int(m["refused"]),
             f"{m['share']:.1%}", f"{int(m['pages'])} of {args.pages}", f"{m['seconds']:.1f}"]
            for (d, i), m in runs.items()]
    body = table(["crawl", "server's limit", "requests (robots.txt included)", "refused (429)",
                  "refused share", "pages fetched", "seconds"], rows)
    worst = max(m["share"] for m in runs.values())
    lost = sum(args.pages - m["pages"] for m in runs.values())
    publish(TITLE, body + "\n\nAfter a refusal the delay is twice the refused interval and "
            "stays there for 10 answers, then comes down by a twentieth an answer "
            "(engine/scheduling/politeness.py). Before (af28249, the same command) it halved "
            "at the next fast answer: 12 of 73 requests refused (16.4%) in 37.5 s at "
            "`--delay 0`, 30 of 91 (33.0%) in 63.4 s at `--delay 0.2`; no page lost either.\n", args.json,
            headline=f"refused at most {worst:.1%} of requests; {lost} pages lost",
            goal=f"refused requests at most {GOAL_SHARE:.0%} of a rate-limited server's, "
                 "no page lost",
            met=worst <= GOAL_SHARE and lost == 0)


if __name__ == "__main__":
    main()
