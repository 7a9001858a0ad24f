"""A cancelled, timed-out or abandoned real-time job leaves no process behind.

`webcrawler search` starts agents, a multiprocessing forkserver, its resource
tracker and an indexer; the test notes every descendant of the job while it
runs, then counts which are still alive (and what is left in the job's
process group) once the job has ended.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest
from flask import Flask

from tests.realtime.test_realtime_api import make_app
from webcrawler.web.processes import group_members


@pytest.fixture
def app(indexed: Path) -> Iterator[Flask]:
    yield from make_app(indexed, realtime_delay=0.2, realtime_agents=2, realtime_seconds=20.0,
                        realtime_max_fetches=1000, realtime_grace=0.0)


def start_busy_job(app: Flask, seconds: int = 20) -> tuple[str, set[int]]:
    """A job that runs until stopped, and the pids of its process tree once its agents work."""
    client = app.test_client()
    answer = client.post("/api/realtime", json={"q": "sailing boats", "want": 100,
                                                "seconds": seconds})
    assert answer.status_code == 202, answer.get_json()
    job_id = answer.get_json()["id"]
    job = app.extensions["webcrawler.realtime"].get(job_id)
    end = time.monotonic() + 30
    tree: set[int] = set()
    while time.monotonic() < end and job.state == "running":
        try:
            tree = {job.process.pid} | {p.pid for p in psutil.Process(job.process.pid).children(True)}
        except psutil.NoSuchProcess:
            break
        if job.progress.get("fetched", 0) > 0 and len(tree) >= 4:  # child, agents, forkserver...
            return job_id, tree
        time.sleep(0.1)
    raise AssertionError(f"the job never got going: {job.state} {job.error} {tree}")


def alive(pids: set[int]) -> set[int]:
    left = set()
    for pid in pids:
        try:
            if psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
                left.add(pid)
        except psutil.NoSuchProcess:
            continue
    return left


def finished(app: Flask, job_id: str) -> None:
    job = app.extensions["webcrawler.realtime"].get(job_id)
    job.collector.join(60)
    assert not job.collector.is_alive() and job.state != "running"


def test_cancel_ends_every_process(app: Flask) -> None:
    job_id, tree = start_busy_job(app)
    pgid = app.extensions["webcrawler.realtime"].get(job_id).process.pid
    assert os.getpgid(pgid) == pgid  # the job leads its own process group
    assert app.test_client().delete(f"/api/realtime/{job_id}").status_code == 200
    finished(app, job_id)
    assert alive(tree) == set() and group_members(pgid) == []


def test_a_job_past_its_limit_is_killed_with_its_processes(app: Flask) -> None:
    # grace 0: the watchdog ends it at 8 s (a loaded machine takes seconds to start its agents)
    job_id, tree = start_busy_job(app, seconds=8)
    pgid = app.extensions["webcrawler.realtime"].get(job_id).process.pid
    finished(app, job_id)
    assert alive(tree) == set() and group_members(pgid) == []


def test_closing_the_app_ends_running_jobs(app: Flask) -> None:
    job_id, tree = start_busy_job(app)
    pgid = app.extensions["webcrawler.realtime"].get(job_id).process.pid
    app.extensions["webcrawler.realtime"].close()
    assert alive(tree) == set() and group_members(pgid) == []
