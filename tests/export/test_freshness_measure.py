"""The freshness measure of bench/freshness.py: who holds what, from the server's request log."""

from __future__ import annotations

import json
from pathlib import Path

from bench.freshness_measure import live_share, read_log, sample
from tests.export.conftest import webcrawler
from tests.support.changeweb import ChangingWeb

DAY = 100.0
EPOCH = 1_700_000_000.0


def at(day: float) -> float:
    return EPOCH + day * DAY


def changing() -> ChangingWeb:
    return ChangingWeb(servers=2, pages_per_server=10, links_per_page=4, page_bytes=800,
                       first_address="127.0.44.64", day_seconds=DAY, epoch=EPOCH)


def first_change(web: ChangingWeb, server: int, page: int) -> float:
    """The simulated day of the page's first real change."""
    low, high = 0.0, next(d / 10 for d in range(1, 10_000) if web.changes.events_before(server, page, d / 10))
    while high - low > 1e-7:
        middle = (low + high) / 2
        low, high = (low, middle) if web.changes.events_before(server, page, middle) else (middle, high)
    return high


def logged(tmp_path: Path, web: ChangingWeb, lines: list[tuple[float, int, int, int]]) -> Path:
    """A log as the server writes it: (day, server, page, status), versions from the truth."""
    path = tmp_path / "requests.log"
    with open(path, "w") as out:
        for day, server, page, status in lines:
            state = web.state(server, page, at(day))
            out.write(f"{at(day)}\t{web.url(server, page)}\t{status}\t{state.real}.{state.trivial}\n")
    return path


def test_a_copy_is_fresh_until_the_page_changes_then_a_304_or_200_freshens_it(tmp_path: Path):
    web = changing()
    page = next(p for p in range(1, 10) if 0.2 < web.changes.interval(0, p) < 20)
    change = first_change(web, 0, page)
    url = web.url(0, page)
    later = change + 3 * web.changes.interval(0, page)
    fetches = read_log(logged(tmp_path, web, [(0.0, 0, page, 200), (change + 0.01, 0, page, 200),
                                              (later, 0, page, 304)]))
    assert fetches.held(url, at(later + 0.001)) == web.state(0, page, at(later)).real
    assert fetches.held(url, at(change / 2)) == "0.0"
    assert fetches.held(url, at(change + 0.02)) == web.state(0, page, at(change + 0.01)).real
    assert fetches.held(url, at(0) - 1) is None  # before the first fetch: no copy
    before = sample(web, fetches, at(change - 0.001))
    after = sample(web, fetches, at(change + 0.001))
    assert after.stale == before.stale + 1 and after.never_fetched == before.never_fetched
    assert before.live == len(web.pages_at(at(change))) and fetches.real_served == 1


def test_a_dead_page_held_is_obsolete_until_its_404_or_410_is_seen(tmp_path: Path):
    web = changing()
    page = min(range(1, 10), key=lambda p: web.changes.death(1, p))
    death = web.changes.death(1, page)
    status = 410 if page % 2 else 404
    fetches = read_log(logged(tmp_path, web, [(0.0, 1, page, 200), (death + 0.5, 1, page, status)]))
    assert sample(web, fetches, at(death + 0.1)).dead_held == 1
    assert sample(web, fetches, at(death + 0.6)).dead_held == 0


def test_a_real_crawl_of_a_static_web_holds_every_page_fresh_and_exports_live_text(crawled):
    web, data = crawled
    fetches = read_log(Path(web.log_path))
    now = web.epoch + 1.0
    figures = sample(web, fetches, now + 3600)
    assert figures.live > 20 and figures.never_fetched == figures.stale == figures.dead_held == 0
    lines = webcrawler("export", "--data-dir", str(data)).stdout.splitlines()
    exported = [json.loads(line) for line in lines]
    share = live_share(web, exported, now)
    assert share["exported"] == figures.live and share["share"] == 1.0


def test_text_of_an_older_version_is_not_the_live_one():
    web = changing()
    page = min(range(1, 10), key=lambda p: web.changes.interval(0, p))
    change = first_change(web, 0, page)
    old = web.render(0, page, web.state(0, page, at(0))).decode()
    record = {"url": web.url(0, page), "status": 200, "text": old}
    assert live_share(web, [record], at(0))["current"] == 1
    assert live_share(web, [record], at(change + 0.001))["current"] == 0
