"""Real-time search from the query server: a form, a JSON API, and a bounded set of jobs.

    GET    /realtime                  the form; /realtime/<id> a job's page (results appear live)
    POST   /api/realtime              start a job: q, and optionally seconds, want (and from,
                                      only when the server option `allow_from_url` is on)
                                      -> 202 {"id", "status_url"}; 429 when too many run
    GET    /api/realtime/<id>?after=N progress, the results after the first N, the summary
    DELETE /api/realtime/<id>         cancel the job

The query server only reads: a job is the engine's real-time search run as a
child process (`webcrawler search --json`), whose JSON lines a thread collects.
Every job is bounded in time and fetches, at most `realtime_max_jobs` run at
once, and job ids are unguessable; the page polls, so a client that goes away
cancels nothing (the job ends at its own limits).
"""

from __future__ import annotations

import json
import logging
import secrets
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from flask import Blueprint, Flask, abort, current_app, jsonify, render_template, request, url_for
from flask.typing import ResponseReturnValue

from webcrawler.index import QueryError
from webcrawler.index.query import parse as parse_query
from webcrawler.query_server.errors import csp_nonce

log = logging.getLogger(__name__)

bp = Blueprint("realtime", __name__)

OPTIONS: dict[str, Any] = {
    "realtime_max_jobs": 2,  # real-time searches running at once
    "realtime_seconds": 30.0,  # the longest a job may run (and the default)
    "realtime_max_fetches": 100,  # documents a job may retrieve
    "realtime_want": 10,  # new documents a job looks for (the default)
    "realtime_agents": 3,  # agent processes per job
    "realtime_delay": None,  # seconds between two requests to one server (None: the crawl's)
    "allow_from_url": False,  # may a job start from a URL not in the index?
    "allow_private_fetch": False,  # may a job reach private addresses the crawl's seeds do not name?
}
KEEP_FINISHED = 50  # finished jobs remembered
GRACE = 30.0  # seconds past its limit before a job's process is killed


@dataclass
class Job:
    id: str
    query: str
    seconds: float
    want: int
    started: float = field(default_factory=time.monotonic)
    state: str = "running"  # running, done, cancelled, failed
    results: list[dict[str, Any]] = field(default_factory=list)
    progress: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] | None = None
    error: str = ""
    process: subprocess.Popen | None = None
    log: IO[str] | None = None  # the job's stderr

    def view(self, after: int = 0) -> dict[str, Any]:
        return {"id": self.id, "query": self.query, "state": self.state,
                "seconds": round(time.monotonic() - self.started, 2),
                "progress": self.progress, "total": len(self.results),
                "results": self.results[after:], "summary": self.summary,
                "error": self.error or None}


class Jobs:
    """The running and recently finished jobs of one app; thread-safe."""

    def __init__(self, data_dir: Path, db_url: str | None, config: dict[str, Any]) -> None:
        self.data_dir, self.db_url, self.config = data_dir, db_url, config
        self._jobs: OrderedDict[str, Job] = OrderedDict()
        self._lock = threading.Lock()

    def start(self, query: str, seconds: float, want: int, start_url: str | None) -> Job | None:
        """Start a job; None when `realtime_max_jobs` are running already."""
        with self._lock:
            if sum(j.state == "running" for j in self._jobs.values()) >= self.config["max_jobs"]:
                return None
            job = Job(secrets.token_urlsafe(12), query, seconds, want)
            job.log = tempfile.TemporaryFile("w+")  # noqa: SIM115 - closed by _collect
            job.process = subprocess.Popen(self._command(job, start_url), stdout=subprocess.PIPE,
                                           stderr=job.log, text=True)
            self._jobs[job.id] = job
            finished = [k for k, j in self._jobs.items() if j.state != "running"]
            for key in finished[: max(0, len(finished) - KEEP_FINISHED)]:
                del self._jobs[key]
        threading.Thread(target=self._collect, args=(job,), daemon=True,
                         name=f"realtime-{job.id[:6]}").start()
        return job

    def get(self, job_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(job_id)

    def cancel(self, job: Job) -> None:
        """Ask the job to stop (it keeps what it found); its process ends on its own."""
        if job.process is not None and job.process.poll() is None:
            job.process.terminate()
            job.state = "cancelled"

    def close(self) -> None:
        with self._lock:
            jobs = list(self._jobs.values())
        for job in jobs:
            self.cancel(job)
        for job in jobs:
            if job.process is not None:
                try:
                    job.process.wait(timeout=GRACE)
                except subprocess.TimeoutExpired:
                    job.process.kill()

    def _command(self, job: Job, start_url: str | None) -> list[str]:
        """`webcrawler search` for the job: the crawl's stored scope applies (no scope flag is
        given), private addresses are refused unless the operator allowed them, and the
        query comes after ``--`` so that it can never be read as an option."""
        c = self.config
        command = [sys.executable, "-m", "webcrawler.cli", "search", "--json",
                   "--seconds", str(job.seconds), "--want", str(job.want),
                   "--max-fetches", str(c["max_fetches"]), "--agents", str(c["agents"]),
                   "--data-dir", str(self.data_dir),
                   "--allow-private" if c["allow_private_fetch"] else "--deny-private"]
        if self.db_url:
            command += ["--db", self.db_url]
        if c["delay"] is not None:
            command += ["--delay", str(c["delay"])]
        if start_url:
            command += ["--from", start_url]
        return [*command, "--", job.query]

    def _collect(self, job: Job) -> None:
        """Read the job's JSON lines until it ends; kill it if it overstays its limit."""
        process = job.process
        assert process is not None and process.stdout is not None
        watchdog = threading.Timer(job.seconds + GRACE, process.kill)
        watchdog.daemon = True
        watchdog.start()
        with process:  # closes the pipes
            try:
                for line in process.stdout:
                    self._take(job, line)
                code = process.wait()
            finally:
                watchdog.cancel()
        assert job.log is not None
        job.log.seek(0)
        error = job.log.read()[-20000:]
        job.log.close()
        if job.summary is not None:
            job.state = "cancelled" if job.summary.get("stop_reason") == "cancelled" else "done"
        elif job.state != "cancelled":
            job.state = "failed"
            job.error = (error.strip().splitlines() or [f"stopped with code {code}"])[-1][:300]
            log.warning("real-time search %s failed: %s", job.id, error.strip()[-2000:])

    @staticmethod
    def _take(job: Job, line: str) -> None:
        try:
            event = json.loads(line)
        except ValueError:
            return
        kind = event.pop("type", "")
        if kind == "result":
            job.results.append(event)
        elif kind == "progress":
            job.progress = event
        elif kind == "summary":
            job.summary = event


def init_app(app: Flask, data_dir: Path, db_url: str | None) -> None:
    """Register the blueprint and the app's job list (`app.config` holds the options)."""
    config = {key.removeprefix("realtime_"): app.config[key.upper()] for key in OPTIONS}
    app.extensions["webcrawler.realtime"] = Jobs(data_dir, db_url, config)
    app.register_blueprint(bp)


def _jobs() -> Jobs:
    return current_app.extensions["webcrawler.realtime"]  # type: ignore[no-any-return]


def _page(job: Job | None) -> ResponseReturnValue:
    html = render_template("realtime.html", job=job, query=job.query if job else "",
                           script_nonce=csp_nonce(), allow_from_url=_jobs().config["allow_from_url"])
    response = current_app.make_response(html)
    response.headers["Content-Security-Policy"] = (
        f"default-src 'none'; style-src 'nonce-{csp_nonce()}'; script-src 'nonce-{csp_nonce()}'; "
        "connect-src 'self'; img-src 'self' data:; form-action 'self'; base-uri 'none'; "
        "frame-ancestors 'none'")
    return response


@bp.get("/realtime")
def form() -> ResponseReturnValue:
    return _page(None)


@bp.get("/realtime/<job_id>")
def job_page(job_id: str) -> ResponseReturnValue:
    job = _jobs().get(job_id)
    if job is None:
        abort(404)
    return _page(job)


@bp.post("/api/realtime")
def start() -> ResponseReturnValue:
    jobs = _jobs()
    data = request.get_json(silent=True) if request.is_json else request.form
    data = data or {}
    try:
        query = str(data.get("q", "")).strip()
        parse_query(query)
        seconds = _number(data.get("seconds"), jobs.config["seconds"], 1, jobs.config["seconds"])
        want = int(_number(data.get("want"), jobs.config["want"], 1, 100))
    except (QueryError, ValueError) as error:
        return jsonify(error=str(error)), 400
    start_url = str(data.get("from") or "").strip() or None
    if start_url and not jobs.config["allow_from_url"]:
        return jsonify(error="This server starts real-time searches from its index only."), 403
    job = jobs.start(query, seconds, want, start_url)
    if job is None:
        return jsonify(error="Too many real-time searches are running: try again shortly."), 429
    status = url_for("realtime.status", job_id=job.id)
    return jsonify(id=job.id, status_url=status,
                   page_url=url_for("realtime.job_page", job_id=job.id)), 202


@bp.get("/api/realtime/<job_id>")
def status(job_id: str) -> ResponseReturnValue:
    job = _jobs().get(job_id)
    if job is None:
        return jsonify(error="No such real-time search."), 404
    after = request.args.get("after", "0")
    return jsonify(job.view(int(after) if after.isdigit() else 0))


@bp.delete("/api/realtime/<job_id>")
def cancel(job_id: str) -> ResponseReturnValue:
    jobs = _jobs()
    job = jobs.get(job_id)
    if job is None:
        return jsonify(error="No such real-time search."), 404
    jobs.cancel(job)
    return jsonify(job.view())


def _number(value: Any, default: float, low: float, high: float) -> float:
    if value in (None, ""):
        return default
    number = float(value)
    if not low <= number <= high:
        raise ValueError(f"Give a number from {low:g} to {high:g}.")
    return number
