"""A crawl killed with SIGKILL resumes: nothing committed is lost or fetched again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import psutil
from sqlalchemy import func, select

from tests.support.waiting import wait_until
from webcrawler.database.schema import INDEXED, connect, documents, index_outbox
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Site
from webcrawler.index import open_searcher

from .conftest import document_states, site_pages


def fetched_count(db_url: str) -> int:
    engine = connect(db_url, readonly=True)
    try:
        with engine.connect() as conn:
            return conn.execute(select(func.count()).where(documents.c.state == State.FETCHED)).scalar()
    except Exception:  # the schema may not exist yet
        return 0
    finally:
        engine.dispose()


def index_command(data_dir, *args):
    return [sys.executable, "-m", "webcrawler.cli", "index", "--data-dir", str(data_dir),
            "--agents", "2", "--commit-every", "5", "--no-progress", *args]


def test_sigkill_then_resume_loses_nothing_and_fetches_nothing_twice(settings, tmp_path):
    pages = site_pages("k", 40)
    with LoopbackWeb([Site("127.0.4.40", pages)]) as web:
        seed = web.url("127.0.4.40", "/")
        proc = subprocess.Popen(index_command(settings.data_dir, "--seed", seed, "--delay", "0.05"),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: fetched_count(settings.database_url) >= 12, 60, "12 documents fetched")
        children = psutil.Process(proc.pid).children(recursive=True)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
        _, orphans = psutil.wait_procs(children, timeout=20)  # agents, index writer, forkserver
        for orphan in orphans:
            orphan.kill()
        assert not orphans, f"processes outlived their killed engine: {orphans}"
        committed = {url for url, (state, _) in document_states(settings).items()
                     if state == State.FETCHED}
        assert len(committed) >= 12
        served_before = len(web.log.snapshot())

        result = subprocess.run(index_command(settings.data_dir, "--delay", "0"),
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0, result.stderr
        second_run = [h.path for h in web.log.snapshot()[served_before:] if h.path != "/robots.txt"]
        states = document_states(settings)
    assert not committed & {web.url("127.0.4.40", p) for p in second_run}, "refetched committed"
    assert len(states) == 42  # /, /p1-/p40 and the missing /p41
    assert sum(state == State.FETCHED for state, _ in states.values()) == 41
    assert states[web.url("127.0.4.40", "/p41")] == (State.FAILED, "http-error")
    # The index and the database agree again: every fetched document is searchable once,
    # including those whose index batch the kill interrupted (re-sent from the outbox).
    engine = connect(settings.database_url, readonly=True)
    with engine.connect() as conn:
        fetched_ids = {i for (i,) in conn.execute(
            select(documents.c.id).where(documents.c.state == State.FETCHED,
                                         documents.c.reason.is_(None)))}
        outbox_left = conn.execute(select(func.count()).select_from(index_outbox)
                                   .where(index_outbox.c.batch != INDEXED)).scalar()
    engine.dispose()
    searcher = open_searcher(settings.index_dir)
    try:
        assert searcher.doc_count() == len(fetched_ids) == 41
        assert searcher.search("page 17").total >= 1
    finally:
        searcher.close()
    assert outbox_left == 0
