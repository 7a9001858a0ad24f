"""Traps that stop traps: requests an endless date sequence costs, and whether a real archive
is crawled whole.

    python -m bench.traps [--json bench/results/traps.json]

Served from this process on 127.0.8.x (tests/support/calendars.py, dates counted from
today): a monthly calendar running both ways without end ("no events"), a daily one ("Nothing
on Sunday, 29 November 2026"), a monthly agenda whose pages differ and which runs into the
future only, and a blog's archive of the last 120 months, each month naming its own posts.
Each is crawled alone by `webcrawler index` with the default trap settings, 4 agents and
`--delay 0`; requests are the server's own count, its home page and robots.txt aside.
"""

from __future__ import annotations

import argparse
import datetime
import tempfile
from collections.abc import Callable
from pathlib import Path

from bench.common import publish, table
from tests.support.calendars import (
    busy_calendar,
    daily_calendar,
    endless_calendar,
    monthly_archive,
)
from webcrawler.commands.index import run_index
from webcrawler.demoweb.server import LoopbackWeb, Routes, Site
from webcrawler.settings import Settings

TITLE = "Traps that stop traps: endless calendars against a ten-year archive"
FEW_DOZEN = 36
ARCHIVE = 120
SITES: dict[str, Callable[[datetime.date], Routes]] = {
    "monthly calendar, both ways, 'no events'": endless_calendar,
    "daily calendar, 'Nothing on <date>'": daily_calendar,
    "monthly agenda into the future, pages differ": busy_calendar,
    f"blog archive, {ARCHIVE} past months": lambda today: monthly_archive(today, ARCHIVE),
}


def crawl(routes: Routes, data: Path) -> dict[str, float]:
    with LoopbackWeb([Site("127.0.8.50", routes)]) as web:
        settings = Settings(data_dir=data, agents=4, delay=0.0, hours=0.05,
                            progress_interval=60.0, seeds=(web.url("127.0.8.50"),))
        run_index(settings, progress=False)
        asked = [p for p in web.log.paths() if p not in ("/", "/robots.txt")]
    return {"requests": len(asked)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args()
    today = datetime.date.today()
    runs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for n, (name, site) in enumerate(SITES.items()):
            runs[name] = crawl(site(today), Path(tmp) / str(n))
            print(f"{name}: {runs[name]}", flush=True)
    rows = [[name, int(m["requests"])] for name, m in runs.items()]
    body = table(["site", "requests (home and robots.txt aside)"], rows)
    archive = int(list(runs.values())[-1]["requests"]) - 1  # its /archive/ index page aside
    worst = max(int(m["requests"]) for m in list(runs.values())[:-1])
    publish(TITLE, body + "\n\nA date beyond a year ahead is refused, and so is the rest of a "
            "pattern once 8 of its pages said the same but for their dates "
            "(engine/loop/traps.py). Before (af28249, the same webs crawled by tests/realweb's "
            "settings), every calendar ran into the per-pattern budget of 100 or the depth "
            "limit: 99, 99 and 50 requests, and the archive lost 20 of its 120 months to the same budget.\n",
            args.json,
            headline=f"an endless calendar: at most {worst} requests; the archive: "
                     f"{archive} of {ARCHIVE} months",
            goal=f"an endless date sequence stopped within {FEW_DOZEN} requests, a ten-year "
                 "monthly archive crawled whole",
            met=worst <= FEW_DOZEN and archive == ARCHIVE)


if __name__ == "__main__":
    main()
