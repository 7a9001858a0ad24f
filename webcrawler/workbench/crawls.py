"""The workbench's crawls: each a child process in its own process group, its events kept.

A crawl is `python -m webcrawler.workbench.runner JOB.json`, kept by the
bookkeeping the query server's real-time searches share (web/jobs.py):
started in a new session (web/processes.py), so stopping it ends every
process it started (agents, the multiprocessing forkserver and its tracker), and a
thread reads the child's JSON lines into `Crawl.events`; listeners of the event
stream wait on a condition. At most `max_crawls` run at once (the operator's cap);
every crawl is bounded by the operator's per-crawl limits, and by a watchdog past
its time limit. Each crawl's folder (`DATA/workbench/<id>/`) keeps its definition,
its result and its final status, so finished crawls stay listed after a restart.

    Crawls(root, settings, policy, max_crawls)
        start(definition) -> Crawl | None     None: too many running
        get(id), all(), stop(crawl), close()
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webcrawler.settings import Settings
from webcrawler.web.jobs import BackgroundJob, JobList
from webcrawler.workbench.definition import Definition, parse
from webcrawler.workbench.runner import settings_json

log = logging.getLogger(__name__)

OVERSTAY = 30.0  # seconds past its time limit before a crawl is killed
KEEP = 200  # finished crawls listed


@dataclass
class Crawl(BackgroundJob):
    """One crawl; its state is running, stopping, done, stopped or failed."""

    definition: Definition
    folder: Path
    started: float = field(default_factory=time.time)
    events: list[dict[str, Any]] = field(default_factory=list)
    counters: dict[str, Any] = field(default_factory=dict)
    finished: dict[str, Any] | None = None
    changed: threading.Condition = field(default_factory=threading.Condition)

    def view(self) -> dict[str, Any]:
        done = self.finished or {}
        return {"id": self.id, "state": self.state, "started": self.started,
                "definition": self.definition.as_json(), "counters": self.counters,
                "summary": done.get("summary"), "action": done.get("action"),
                "result": done.get("result"), "events": len(self.events),
                "error": self.error or None}

    def add(self, event: dict[str, Any]) -> None:
        with self.changed:
            self.events.append(event)
            if event.get("t") == "counters":
                self.counters = {k: v for k, v in event.items() if k != "t"}
            elif event.get("t") == "finished":
                self.finished = event
            self.changed.notify_all()

    def end(self, state: str, error: str = "") -> None:
        with self.changed:
            self.state, self.error = state, error
            self.changed.notify_all()
        status = {**self.view(), "events": None}
        (self.folder / "status.json").write_text(json.dumps(status), encoding="utf-8")

    def wait(self, seen: int, timeout: float) -> bool:
        """Until there are more than `seen` events or the crawl ended; False at the timeout."""
        with self.changed:
            return self.changed.wait_for(lambda: len(self.events) > seen or not self.alive(),
                                         timeout)

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
                 max_crawls: int) -> None:
        self.root, self.settings, self.policy = root, settings, policy
        self._crawls: JobList[Crawl] = JobList(max_crawls, name="crawl")
        self._load()

    def start(self, definition: Definition) -> Crawl | None:
        seconds = float(definition.limits.get("seconds") or 3600)
        return self._crawls.start(lambda crawl_id: self._prepare(crawl_id, definition),
                                  seconds + OVERSTAY)

    def _prepare(self, crawl_id: str, definition: Definition) -> tuple[Crawl, list[str]]:
        """The crawl's folder, with its definition and the runner's job file; the command."""
        crawl = Crawl(crawl_id, definition, self.root / crawl_id)
        crawl.folder.mkdir(parents=True)
        (crawl.folder / "definition.json").write_text(json.dumps(definition.as_json(), indent=2),
                                                      encoding="utf-8")
        job = crawl.folder / "job.json"
        job.write_text(json.dumps({"definition": definition.as_json(), "out_dir": str(crawl.folder),
                                   "settings": settings_json(self.settings),
                                   "policy": self.policy}), encoding="utf-8")
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

    def _load(self) -> None:
        """Finished crawls from earlier runs of the workbench, with their definitions."""
        folders = sorted(self.root.glob("*/status.json"), key=lambda p: p.stat().st_mtime)[-KEEP:]
        for status_file in folders:
            try:
                status = json.loads(status_file.read_text(encoding="utf-8"))
                crawl = Crawl(status["id"], parse(status["definition"]), status_file.parent,
                              started=status["started"], state=status["state"],
                              counters=status.get("counters") or {})
                crawl.finished = {"summary": status.get("summary"), "action": status.get("action"),
                                  "result": status.get("result")}
            except (ValueError, KeyError, OSError) as error:
                log.warning("skipping %s: %s", status_file, error)
                continue
            self._crawls.add(crawl)
