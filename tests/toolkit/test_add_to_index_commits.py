"""AddToIndex commits when the toolkit crawl's loop commits (`CrawlLoop.on_commit`): one
cadence, the crawl's `commit_every`, not a copy of the default one."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from contextlib import closing, suppress
from pathlib import Path

from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.query_server import create_app
from webcrawler.settings import Settings
from webcrawler.toolkit import Crawler, Limits, Page
from webcrawler.toolkit.actions import AddToIndex
from webcrawler.toolkit.running import running_loop

ADDRESS = "127.0.16.9"
PAGES = 6  # besides the home page


def committed(data: Path) -> int:
    """Fetched documents in the data directory's database, read on a read-only connection of
    our own (the engine's `connect` begins IMMEDIATE, a writer's lock): only what was
    committed."""
    with closing(sqlite3.connect(f"file:{data / 'webcrawler.db'}?mode=ro", uri=True)) as db:
        return int(db.execute("SELECT count(*) FROM documents WHERE state = 'fetched'")
                   .fetchone()[0])


class CommitProbe:
    """Told after AddToIndex on each loop commit (it joins the loop on the first page, the
    probe on the first page-visited after it): what the database holds then."""

    def __init__(self, data: Path) -> None:
        self.data = data
        self.seen: list[int] = []

    def pending(self) -> bool:
        return False

    def commit(self) -> None:
        self.seen.append(committed(self.data))


def test_add_to_index_commits_with_the_loop_and_at_its_cadence(tmp_path):
    routes = {f"/p{i}": html(f"page {i}", f"zebra{i} words", []) for i in range(PAGES)}
    routes["/"] = html("home", "start", [(path, path) for path in routes])
    settings = Settings(delay=0.0, agents=2, hours=0.02, data_dir=tmp_path / "leases",
                        connect_timeout=2.0, read_timeout=2.0, total_timeout=5.0,
                        commit_every=2, commit_seconds=3600.0)
    data = tmp_path / "data"
    probe, at_visits = CommitProbe(data), []

    def visited(page: Page) -> None:
        loop = running_loop()
        assert loop is not None  # a listener runs inside the crawl
        loop.on_commit(probe)  # once: the loop ignores a committer it has
        at_visits.append(committed(data))

    with LoopbackWeb([Site(ADDRESS, routes)]) as web:
        crawler = Crawler(roots=[web.url(ADDRESS, "/")], limits=Limits(pages=20, seconds=60),
                          settings=settings)
        action = AddToIndex(data).attach(crawler)
        crawler.on("page-visited", visited)
        summary = crawler.run()
        assert summary.callback_errors == 0 and summary.pages == PAGES + 1
    assert running_loop() is None  # the crawl is over
    # the loop committed the pages during the crawl, every other answer, not only at the end
    assert len(probe.seen) >= 3 and 0 < probe.seen[0] < PAGES + 1
    assert probe.seen == sorted(probe.seen) and probe.seen[-1] == PAGES + 1
    # between two loop commits nothing was committed: one cadence
    assert set(at_visits) <= {0, *probe.seen}
    assert action.close() == f"{PAGES + 1} pages added to the index in {data}"
    assert committed(data) == PAGES + 1
    client = create_app(data, testing=True).test_client()
    answer = client.get("/api/search", query_string={"q": "zebra3"}).get_json()
    assert {hit["url"] for hit in answer["results"]} == {web.url(ADDRESS, "/p3")}


def test_outside_a_crawl_there_is_no_loop_and_pages_commit_on_close(tmp_path):
    """A page handed over by hand (no crawl): committed when the action closes."""
    data = tmp_path / "data"
    with AddToIndex(data) as action:
        action(Page("http://127.0.16.9/solo", html="<html><title>solo</title>"
                    "<body><p>okapi</p></body></html>", text="okapi", title="solo"))
        assert committed(data) == 0
    assert committed(data) == 1 and action.added == 1


KILLED = """
import os, signal, sqlite3
from webcrawler.settings import Settings
from webcrawler.toolkit import Crawler, Limits
from webcrawler.toolkit.actions import AddToIndex
from webcrawler.toolkit.running import running_loop

DATA = {data!r}


class Probe:
    def pending(self):
        return False

    def commit(self):
        db = sqlite3.connect(f"file:{{DATA}}/webcrawler.db?mode=ro", uri=True)
        count = db.execute("SELECT count(*) FROM documents WHERE state = 'fetched'").fetchone()[0]
        db.close()
        print("committed", count, flush=True)


probe, visits = Probe(), []


def visited(page):
    running_loop().on_commit(probe)
    visits.append(page.url)
    if len(visits) == {kill_at}:
        os.kill(os.getpid(), signal.SIGKILL)


settings = Settings(delay=0.0, agents=1, data_dir={leases!r}, commit_every=2,
                    commit_seconds=3600.0)
crawler = Crawler(roots=[{root!r}], limits=Limits(pages=20, seconds=60), settings=settings)
AddToIndex(DATA).attach(crawler)
crawler.on("page-visited", visited)
crawler.run()
"""


def test_a_killed_toolkit_crawl_keeps_what_the_loop_committed(tmp_path):
    """SIGKILL in the middle of a crawl: the data directory holds the pages of the loop's last
    commit; a second crawl adds the rest, and every page is searchable once."""
    routes = {f"/p{i}": html(f"page {i}", f"zebra{i} words", []) for i in range(PAGES)}
    routes["/"] = html("home", "start", [(path, path) for path in routes])
    data, script = tmp_path / "data", tmp_path / "killed.py"
    with LoopbackWeb([Site(ADDRESS, routes)]) as web:
        root = web.url(ADDRESS, "/")
        script.write_text(KILLED.format(data=str(data), kill_at=5, root=root,
                                        leases=str(tmp_path / "leases")))
        child = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                                 start_new_session=True)
        try:
            out, err = child.communicate(timeout=180)
        finally:
            with suppress(ProcessLookupError):
                os.killpg(child.pid, signal.SIGKILL)  # its agents and index writer, if left
        assert child.returncode == -signal.SIGKILL, err[-2000:]
        commits = [int(line.split()[1]) for line in out.splitlines() if line.startswith("committed")]
        assert commits and 0 < commits[-1] < PAGES + 1
        assert committed(data) == commits[-1]  # what the loop committed, nothing more or less
        settings = Settings(delay=0.0, agents=2, hours=0.02, data_dir=tmp_path / "leases",
                            connect_timeout=2.0, read_timeout=2.0, total_timeout=5.0)
        crawler = Crawler(roots=[root], limits=Limits(pages=20, seconds=60), settings=settings)
        AddToIndex(data).attach(crawler)
        assert crawler.run().pages == PAGES + 1  # a repeat crawl visits every page again
        assert committed(data) == PAGES + 1
        client = create_app(data, testing=True).test_client()
        for i in range(PAGES):
            answer = client.get("/api/search", query_string={"q": f"zebra{i}"}).get_json()
            assert {hit["url"] for hit in answer["results"]} == {web.url(ADDRESS, f"/p{i}")}
