"""Background jobs of a server: a child process group each, its JSON lines collected, bounded.

The one bookkeeping of the query server's real-time searches (`realtime.py`) and
the workbench's crawls (`workbench/crawls.py`): an unguessable id, a cap on the jobs
running at once, the child started in its own session (`processes.py`), a thread
that feeds the child's JSON lines to the job and a watchdog that ends the whole
group past the job's time limit, a stop (SIGTERM, then the group ended after a grace
period), a list, and the reaping of old finished jobs. What a job's events mean
and what its end leaves behind belong to the job (`BackgroundJob.take`, `.ended`).

This module starts processes and reads their output; it writes nothing (no
database, no index, no file but the child's stderr in an anonymous temporary
file), so the query server that uses it still only reads.

    JobList(max_running, keep_finished, name)
        start(make, limit) -> job | None      None: `max_running` are busy already
        get(id), all(), add(job), stop(job, state, whole_group), close(state, whole_group)
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass
from typing import IO, Any, Generic, TypeVar

from webcrawler.web import processes

log = logging.getLogger(__name__)

JOB_ID = re.compile(r"[A-Za-z0-9_-]{16}")  # what secrets.token_urlsafe(12) makes
STOP_GRACE = 5.0  # seconds a job's processes get between SIGTERM and SIGKILL


@dataclass
class BackgroundJob:
    """What the bookkeeping needs of a job; subclasses keep what its events say."""

    id: str
    _: KW_ONLY
    state: str = "running"
    error: str = ""
    process: subprocess.Popen[str] | None = None
    timed_out: bool = False  # the watchdog ended it
    collector: threading.Thread | None = None

    def busy(self) -> bool:
        """Does the job count against the cap?"""
        return self.state == "running"

    def take(self, event: dict[str, Any]) -> None:
        """One JSON object the child printed."""

    def ended(self, code: int, errors: str) -> None:
        """The child exited with `code` (its group is ended); `errors`: the tail of its stderr."""


J = TypeVar("J", bound=BackgroundJob)


class JobList(Generic[J]):
    """The running and recently finished jobs of one app; thread-safe."""

    def __init__(self, max_running: int, keep_finished: int | None = None, name: str = "job") -> None:
        self.max_running, self.keep_finished, self.name = max_running, keep_finished, name
        self._jobs: dict[str, J] = {}  # in the order they started
        self._lock = threading.Lock()

    def start(self, make: Callable[[str], tuple[J, list[str]]], limit: float) -> J | None:
        """`make(id)` -> (job, command), run; the group is ended `limit` seconds after the
        start if still there. None (and `make` not called) when the cap is reached."""
        with self._lock:
            if sum(job.busy() for job in self._jobs.values()) >= self.max_running:
                return None
            job, command = make(secrets.token_urlsafe(12))
            stderr = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed by _collect
            job.process = processes.start(command, stderr)
            self._jobs[job.id] = job
            self._reap()
        job.collector = threading.Thread(target=self._collect, args=(job, stderr, limit),
                                         daemon=True, name=f"{self.name}-{job.id[:6]}")
        job.collector.start()
        return job

    def get(self, job_id: str) -> J | None:
        if not JOB_ID.fullmatch(job_id):
            return None
        with self._lock:
            return self._jobs.get(job_id)

    def all(self) -> list[J]:
        with self._lock:
            return list(self._jobs.values())

    def add(self, job: J) -> None:
        """A finished job known from elsewhere (a previous run's records)."""
        with self._lock:
            self._jobs[job.id] = job

    def stop(self, job: J, state: str, whole_group: bool) -> None:
        """Ask a running job to stop: SIGTERM to its group, or to the child alone (it then
        ends the rest itself); what is left after STOP_GRACE seconds is killed."""
        process = job.process
        if process is None or process.poll() is not None:
            return
        job.state = state
        try:
            if whole_group:
                processes.signal_group(process.pid, signal.SIGTERM)
            else:
                process.send_signal(signal.SIGTERM)
        except ProcessLookupError:
            return
        killer = threading.Timer(STOP_GRACE, processes.end_group, (process, STOP_GRACE))
        killer.daemon = True
        killer.start()

    def close(self, state: str | None = None, whole_group: bool = True) -> None:
        """End every job and its processes (stopped as `state` first, if given), and wait."""
        jobs = self.all()
        if state is not None:
            for job in jobs:
                self.stop(job, state, whole_group)
        for job in jobs:
            if job.process is not None:
                processes.end_group(job.process, STOP_GRACE)
            if job.collector is not None:
                job.collector.join(STOP_GRACE)

    def _reap(self) -> None:
        """Forget the oldest finished jobs beyond `keep_finished` (called under the lock); a job
        still busy (a stopped one whose processes are ending) is kept, so `close` ends it."""
        if self.keep_finished is None:
            return
        finished = [key for key, job in self._jobs.items() if not job.busy()]
        for key in finished[: max(0, len(finished) - self.keep_finished)]:
            del self._jobs[key]

    def _collect(self, job: J, stderr: IO[str], limit: float) -> None:
        """Feed the job its child's JSON lines until it ends; end the group if it overstays."""
        process = job.process
        assert process is not None and process.stdout is not None
        watchdog = threading.Timer(limit, _overstayed, (job,))
        watchdog.daemon = True
        watchdog.start()
        with process:  # closes the pipes
            try:
                for line in process.stdout:
                    event = _event(line)
                    if event is not None:
                        job.take(event)
                code = process.wait()
            finally:
                watchdog.cancel()
                processes.end_group(process, STOP_GRACE)  # agents, forkserver, indexer: none stay
        stderr.seek(0)
        errors = stderr.read()[-20000:]
        stderr.close()
        job.ended(code, errors)


def _overstayed(job: BackgroundJob) -> None:
    job.timed_out = True
    if job.process is not None:
        processes.end_group(job.process, STOP_GRACE)


def _event(line: str) -> dict[str, Any] | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) else None
