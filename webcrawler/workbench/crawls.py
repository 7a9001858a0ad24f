"""The workbench's crawls: each a child process in its own process group, its events kept.

A crawl is `python -m webcrawler.workbench.runner JOB.json` started in a new
session (query_server/processes.py), so stopping it ends every process it
started: agents, the multiprocessing forkserver and its tracker. A thread reads
the child's JSON lines into `Crawl.events`; listeners of the event stream wait
on a condition. At most `max_crawls` run at once (the operator's cap); every
crawl is bounded by the operator's per-crawl limits, and by a watchdog past its
time limit. Each crawl's folder (`DATA/workbench/<id>/`) keeps its definition,
its result and its final status, so finished crawls stay listed after a restart.

    Crawls(root, settings, policy, max_crawls)
        start(definition) -> Crawl | None     None: too many running
        get(id), all(), stop(crawl), close()
"""

from __future__ import annotations

import json
import logging
import re
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from webcrawler.query_server import processes
from webcrawler.settings import Settings
from webcrawler.workbench.definition import Definition, parse
from webcrawler.workbench.runner import settings_json

log = logging.getLogger(__name__)

CRAWL_ID = re.compile(r"[A-Za-z0-9_-]{16}")
STOP_GRACE = 5.0  # seconds between asking a crawl to stop and killing what is left
OVERSTAY = 30.0  # seconds past its time limit before a crawl is killed
KEEP = 200  # finished crawls listed


@dataclass
class Crawl:
    id: str
    definition: Definition
    folder: Path
    started: float = field(default_factory=time.time)
    state: str = "running"  # running, done, stopped, failed
    events: list[dict[str, Any]] = field(default_factory=list)
    counters: dict[str, Any] = field(default_factory=dict)
    finished: dict[str, Any] | None = None
    error: str = ""
    process: subprocess.Popen[str] | None = None
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

    def result_path(self) -> Path | None:
        name = (self.finished or {}).get("result")
        return self.folder / name if name else None


class Crawls:
    """The crawls of one workbench; thread-safe."""

    def __init__(self, root: Path, settings: Settings, policy: dict[str, Any] | None,
                 max_crawls: int) -> None:
        self.root, self.settings, self.policy, self.max_crawls = root, settings, policy, max_crawls
        self._crawls: dict[str, Crawl] = {}
        self._lock = threading.Lock()
        self._threads: list[threading.Thread] = []
        self._load()

    def start(self, definition: Definition) -> Crawl | None:
        with self._lock:
            if sum(c.alive() for c in self._crawls.values()) >= self.max_crawls:
                return None
            crawl_id = secrets.token_urlsafe(12)
            crawl = Crawl(crawl_id, definition, self.root / crawl_id)
            crawl.folder.mkdir(parents=True)
            (crawl.folder / "definition.json").write_text(json.dumps(definition.as_json(), indent=2),
                                                          encoding="utf-8")
            job = crawl.folder / "job.json"
            job.write_text(json.dumps({"definition": definition.as_json(), "out_dir": str(crawl.folder),
                                       "settings": settings_json(self.settings),
                                       "policy": self.policy}), encoding="utf-8")
            stderr = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed by _collect
            command = [sys.executable, "-m", "webcrawler.workbench.runner", str(job)]
            crawl.process = processes.start(command, stderr)
            self._crawls[crawl_id] = crawl
        thread = threading.Thread(target=self._collect, args=(crawl, stderr), daemon=True,
                                  name=f"crawl-{crawl_id[:6]}")
        self._threads.append(thread)
        thread.start()
        return crawl

    def get(self, crawl_id: str) -> Crawl | None:
        if not CRAWL_ID.fullmatch(crawl_id):
            return None
        with self._lock:
            return self._crawls.get(crawl_id)

    def all(self) -> list[Crawl]:
        with self._lock:
            return sorted(self._crawls.values(), key=lambda c: c.started, reverse=True)

    def stop(self, crawl: Crawl) -> None:
        """Ask the crawl to stop (SIGTERM to its runner: the action writes what it has); its
        whole process group is ended when the runner exits, or after STOP_GRACE seconds."""
        process = crawl.process
        if process is None or process.poll() is not None:
            return
        crawl.state = "stopping"
        try:
            process.send_signal(processes.signal.SIGTERM)
        except ProcessLookupError:
            return
        killer = threading.Timer(STOP_GRACE, processes.end_group, (process, STOP_GRACE))
        killer.daemon = True
        killer.start()

    def close(self) -> None:
        """Stop every crawl and wait for its processes (the workbench is going away)."""
        for crawl in self.all():
            if crawl.process is not None:
                processes.end_group(crawl.process, STOP_GRACE)
        for thread in self._threads:
            thread.join(STOP_GRACE)

    def _collect(self, crawl: Crawl, stderr: IO[str]) -> None:
        process = crawl.process
        assert process is not None and process.stdout is not None
        seconds = float(crawl.definition.limits.get("seconds") or 3600)
        watchdog = threading.Timer(seconds + OVERSTAY, processes.end_group, (process, STOP_GRACE))
        watchdog.daemon = True
        watchdog.start()
        with process:
            try:
                for line in process.stdout:
                    self._take(crawl, line)
                code = process.wait()
            finally:
                watchdog.cancel()
                processes.end_group(process, STOP_GRACE)  # agents, forkserver: none stay
        stderr.seek(0)
        errors = stderr.read()[-20000:]
        stderr.close()
        stopped = crawl.state == "stopping"
        if crawl.finished is not None:
            crawl.end("stopped" if stopped else "done")
        else:
            log.warning("crawl %s ended with code %s: %s", crawl.id, code, errors.strip()[-2000:])
            crawl.end("stopped" if stopped else "failed",
                      "" if stopped else f"the crawl process ended with code {code}")

    @staticmethod
    def _take(crawl: Crawl, line: str) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            return
        if isinstance(event, dict):
            crawl.add(event)

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
            self._crawls[crawl.id] = crawl
