"""The background-job bookkeeping the real-time searches and the workbench's crawls share
(web/jobs.py), on real child processes: the cap, the JSON lines, stop, the watchdog,
and the reaping of old finished jobs."""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field
from typing import Any

from webcrawler.web.jobs import BackgroundJob, JobList

SLEEPER = ("import json, time; print(json.dumps({'n': 1}), flush=True); print('not json', "
           "flush=True); print('[2]', flush=True); time.sleep(60)")
QUICK = "import json; print(json.dumps({'n': 2}))"


@dataclass
class Recorded(BackgroundJob):
    events: list[dict[str, Any]] = field(default_factory=list)
    code: int | None = None

    def take(self, event: dict[str, Any]) -> None:
        self.events.append(event)

    def ended(self, code: int, errors: str) -> None:
        self.code = code
        if self.state == "running":
            self.state = "done"


def maker(code: str):  # type: ignore[no-untyped-def]
    return lambda job_id: (Recorded(job_id), [sys.executable, "-c", code])


def first_event(job: Recorded) -> None:
    end = time.monotonic() + 30
    while not job.events and time.monotonic() < end:
        time.sleep(0.05)


def finish(job: Recorded) -> None:
    assert job.collector is not None
    job.collector.join(30)
    assert not job.collector.is_alive()


def test_the_cap_the_events_and_stop() -> None:
    jobs: JobList[Recorded] = JobList(max_running=1, name="test")
    try:
        first = jobs.start(maker(SLEEPER), limit=60)
        assert first is not None and jobs.get(first.id) is first
        assert jobs.start(maker(QUICK), limit=60) is None  # one runs already
        assert jobs.get("not an id") is None
        first_event(first)
        jobs.stop(first, "stopping", whole_group=True)
        finish(first)
        assert first.events == [{"n": 1}]  # the other two lines are not JSON objects
        assert first.state == "stopping" and first.code is not None and first.code != 0
        second = jobs.start(maker(QUICK), limit=60)
        assert second is not None
        finish(second)
        assert (second.state, second.code, second.events) == ("done", 0, [{"n": 2}])
    finally:
        jobs.close()


def test_the_watchdog_ends_an_overstaying_job_and_old_finished_jobs_are_reaped() -> None:
    jobs: JobList[Recorded] = JobList(max_running=2, keep_finished=1, name="test")
    try:
        slow = jobs.start(maker(SLEEPER), limit=0.5)
        assert slow is not None
        finish(slow)
        assert slow.timed_out and slow.state == "done" and slow.code != 0
        quick = jobs.start(maker(QUICK), limit=60)
        assert quick is not None
        finish(quick)
        last = jobs.start(maker(QUICK), limit=60)
        assert last is not None
        finish(last)
        assert [j.id for j in jobs.all()] == [quick.id, last.id]  # the oldest finished went
    finally:
        jobs.close()
