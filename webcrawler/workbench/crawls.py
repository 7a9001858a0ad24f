"""The workbench's crawls: each a child process in its own process group, its events spilled.

A crawl is `python -m webcrawler.workbench.runner JOB.json`, kept by the
bookkeeping the query server's real-time searches share (web/jobs.py):
started in a new session (web/processes.py), so stopping it ends every
process it started (agents, the multiprocessing forkserver and its tracker), and a
thread feeds the child's JSON lines to the crawl, which appends them to its folder
(eventlog.py: memory holds none of them); listeners of the event stream wait on a
condition. At most `max_crawls` run at once (the operator's cap); every crawl is
bounded by the operator's per-crawl limits, and by a watchdog past its time limit.

Each crawl's folder (`DATA/workbench/<id>/`) keeps its definition, its events, its
result and its status, each state file written whole (a temporary file, then
os.replace) so a full disk or a crash never leaves one half-written. A crawl whose
workbench died (kill -9) stops by itself (the runner watches its parent) and is
listed as "interrupted" by the next workbench. Only the newest `keep_crawls`
finished crawls are kept: older folders are removed.

    Crawls(root, settings, policy, max_crawls, keep_events, keep_crawls)
        start(definition) -> Crawl | None     None: too many running; OSError: disk
        get(id), all(), stop(crawl), close()
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webcrawler.datadir import PRIVATE_DIR, create_private
from webcrawler.settings import Settings
from webcrawler.web.jobs import BackgroundJob, JobList
from webcrawler.workbench.definition import Definition, parse
from webcrawler.workbench.eventlog import FILE_NAME as EVENTS
from webcrawler.workbench.eventlog import EventLog, count_lines
from webcrawler.workbench.runner import settings_json

log = logging.getLogger(__name__)

OVERSTAY = 30.0  # seconds past its time limit before a crawl is killed


def write_atomic(path: Path, text: str) -> None:
    """`path` holds `text` whole, or keeps what it held: never a truncated file."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix="." + path.name, suffix=".part")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


@dataclass
class Crawl(BackgroundJob):
    """One crawl; its state is running, stopping, done, stopped, failed or interrupted."""

    definition: Definition
    folder: Path
    started: float = field(default_factory=time.time)
    counters: dict[str, Any] = field(default_factory=dict)
    finished: dict[str, Any] | None = None
    changed: threading.Condition = field(default_factory=threading.Condition)
    log: EventLog | None = None
    kept: int = 0  # events in the folder
    dropped: int = 0  # events counted, not kept

    @property
    def events_path(self) -> Path:
        return self.folder / EVENTS

    def view(self) -> dict[str, Any]:
        done = self.finished or {}
        return {"id": self.id, "state": self.state, "started": self.started,
                "definition": self.definition.as_json(), "counters": self.counters,
                "summary": done.get("summary"), "action": done.get("action"),
                "result": done.get("result"), "processed": done.get("processed"),
                "refused": done.get("refused"),
                "events": self.kept, "events_dropped": self.dropped,
                "error": self.error or None}

    def add(self, event: dict[str, Any]) -> None:
        with self.changed:
            if self.log is not None:
                self.log.append(event)
                self.kept, self.dropped = self.log.count, self.log.dropped
            if event.get("t") == "counters":
                self.counters = {k: v for k, v in event.items() if k != "t"}
            elif event.get("t") == "finished":
                self.finished = event
            self.changed.notify_all()

    def end(self, state: str, error: str = "") -> None:
        with self.changed:
            self.state, self.error = state, error
            if self.log is not None:
                self.log.close()
                self.log = None
            self.changed.notify_all()
        self.save()

    def save(self) -> None:
        """The crawl's status file, whole (a full disk keeps the previous one and is logged)."""
        try:
            write_atomic(self.folder / "status.json", json.dumps(self.view()))
        except OSError as error:
            log.warning("crawl %s: could not write its status: %s", self.id, error)

    def wait(self, seen: int, timeout: float) -> bool:
        """Until more than `seen` events are kept or the crawl ended; False at the timeout."""
        with self.changed:
            return self.changed.wait_for(lambda: self.kept > seen or not self.alive(), timeout)

    def alive(self) -> bool:
        return self.state in ("running", "stopping")

    def busy(self) -> bool:
        return self.alive()

    def take(self, event: dict[str, Any]) -> None:
        self.add(event)

    def ended(self, code: int, errors: str) -> None:
        stopped = self.state == "stopping"
        if self.finished is not None:
            self.end("stopped" if stopped else "done")
        else:
            log.warning("crawl %s ended with code %s: %s", self.id, code, errors.strip()[-2000:])
            self.end("stopped" if stopped else "failed",
                     "" if stopped else f"the crawl process ended with code {code}")

    def result_path(self) -> Path | None:
        name = (self.finished or {}).get("result")
        return self.folder / name if name else None


class Crawls:
    """The crawls of one workbench (`jobs.JobList` keeps them); thread-safe."""

    def __init__(self, root: Path, settings: Settings, policy: dict[str, Any] | None,
                 max_crawls: int, keep_events: int = 20_000, keep_crawls: int = 200) -> None:
        self.root, self.settings, self.policy = root, settings, policy
        self.keep_events, self.keep_crawls = keep_events, keep_crawls
        self._crawls: JobList[Crawl] = JobList(max_crawls, keep_finished=keep_crawls, name="crawl")
        self._load()

    def start(self, definition: Definition) -> Crawl | None:
        seconds = float(definition.limits.get("seconds") or 3600)
        crawl = self._crawls.start(lambda crawl_id: self._prepare(crawl_id, definition),
                                   seconds + OVERSTAY)
        if crawl is not None:
            self._remove_old()
        return crawl

    def _prepare(self, crawl_id: str, definition: Definition) -> tuple[Crawl, list[str]]:
        """The crawl's folder, with its definition, status and the runner's job file; the
        command. On any error (a full disk) no folder is left behind."""
        crawl = Crawl(crawl_id, definition, self.root / crawl_id)
        create_private(crawl.folder.parent)
        crawl.folder.mkdir(mode=PRIVATE_DIR)
        try:
            write_atomic(crawl.folder / "definition.json", json.dumps(definition.as_json(), indent=2))
            job = crawl.folder / "job.json"
            write_atomic(job, json.dumps({
                "definition": definition.as_json(), "out_dir": str(crawl.folder),
                "settings": settings_json(self.settings), "policy": self.policy,
                "exempt_roots": False}))
            write_atomic(crawl.folder / "status.json", json.dumps(crawl.view()))
            crawl.log = EventLog(crawl.events_path, self.keep_events)
        except BaseException:
            if crawl.log is not None:
                crawl.log.close()
            shutil.rmtree(crawl.folder, ignore_errors=True)
            raise
        return crawl, [sys.executable, "-m", "webcrawler.workbench.runner", str(job)]

    def get(self, crawl_id: str) -> Crawl | None:
        return self._crawls.get(crawl_id)

    def all(self) -> list[Crawl]:
        return sorted(self._crawls.all(), key=lambda c: c.started, reverse=True)

    def stop(self, crawl: Crawl) -> None:
        """Ask the crawl to stop (SIGTERM to its runner: the action writes what it has); its
        whole process group is ended when the runner exits, or after STOP_GRACE seconds."""
        self._crawls.stop(crawl, "stopping", whole_group=False)

    def close(self) -> None:
        """Stop every crawl and wait for its processes (the workbench is going away)."""
        self._crawls.close()

    def _remove_old(self) -> None:
        """Remove the folders of finished crawls no longer listed (beyond `keep_crawls`)."""
        listed = {crawl.id for crawl in self._crawls.all()}
        for status_file in self.root.glob("*/status.json"):
            folder = status_file.parent
            if folder.name in listed:
                continue
            try:
                state = json.loads(status_file.read_text(encoding="utf-8")).get("state")
            except (ValueError, OSError, AttributeError):
                continue
            if state not in ("running", "stopping"):
                shutil.rmtree(folder, ignore_errors=True)

    def _load(self) -> None:
        """The crawls of earlier runs of the workbench, with their definitions; one that was
        still running when its workbench died is "interrupted" (it has stopped by itself), and
        so is one whose status file was lost (an older workbench on a full disk)."""
        folders = [f for f in self.root.glob("*") if (f / "definition.json").is_file()]
        folders.sort(key=lambda f: (f / "definition.json").stat().st_mtime)
        for folder in folders[-self.keep_crawls:]:
            crawl = self._restore(folder)
            if crawl is not None:
                self._crawls.add(crawl)

    def _restore(self, folder: Path) -> Crawl | None:
        try:
            definition = parse(json.loads((folder / "definition.json").read_text(encoding="utf-8")))
        except (ValueError, OSError) as error:
            log.warning("skipping %s: %s", folder, error)
            return None
        try:
            status = json.loads((folder / "status.json").read_text(encoding="utf-8"))
            crawl = Crawl(folder.name, definition, folder, started=float(status["started"]),
                          state=str(status["state"]), counters=status.get("counters") or {})
            crawl.finished = {key: status.get(key)
                              for key in ("summary", "action", "result", "processed", "refused")}
            crawl.dropped = int(status.get("events_dropped") or 0)
        except (ValueError, KeyError, TypeError, AttributeError, OSError):
            crawl = Crawl(folder.name, definition, folder,
                          started=(folder / "definition.json").stat().st_mtime, state="running")
            crawl.error = "its status was lost"
        crawl.kept = count_lines(crawl.events_path)
        if crawl.alive():
            crawl.state = "interrupted"
            crawl.error = crawl.error or "the workbench stopped while it ran"
            crawl.save()
        return crawl
