"""Real-time search from the query server: a form, a JSON API, and a bounded set of jobs.

    GET    /realtime                  the form; /realtime/<id> a job's page (results appear live)
    POST   /api/realtime              start a job: q, and optionally seconds, want (and from,
                                      only when the server option `allow_from_url` is on)
                                      -> 202 {"id", "status_url"}; 429 when too many run
    GET    /api/realtime/<id>?after=N progress, the results after the first N, the summary
    DELETE /api/realtime/<id>         cancel the job

The query server only reads: a job is the engine's real-time search run as a
child process (`webcrawler search --json ... -- QUERY`: after "--" a query such as
"-foo" is never an option), kept by the bookkeeping the workbench's crawls share
(`jobs.py`): a thread collects its JSON lines, and the child leads its own process
group, ended as a whole (`processes.py`) on cancel, timeout and close. Bodies are
strict JSON objects (`payload.py`); only same-origin requests reach start and cancel
(`guard.py`); a failed job shows a reason of ours (`failures.py`), its stderr goes
to the log.
Every job is bounded in time and fetches, at most `realtime_max_jobs` run at
once, and job ids are unguessable; the page polls, so a client that goes away
cancels nothing (the job ends at its own limits).
"""

from __future__ import annotations

import logging
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from flask import Blueprint, Flask, abort, current_app, jsonify, render_template, request, url_for
from flask.typing import ResponseReturnValue

from webcrawler.index import QueryError
from webcrawler.index.words.query import parse_with_words as parse_query
from webcrawler.query_server.failures import visitor_reason
from webcrawler.query_server.queries import check_query
from webcrawler.settings.serve import ServeSettings
from webcrawler.web.errors import csp_nonce
from webcrawler.web.jobs import BackgroundJob, JobList
from webcrawler.web.payload import (
    BadQuery,
    count_param,
    http_url_field,
    json_object,
    number_field,
    text_field,
)

log = logging.getLogger(__name__)

bp = Blueprint("realtime", __name__)

# The app options of real-time search jobs (limits, and what a job may reach): the query
# server's settings table declares them (settings/serve.py), as it declares every option.
OPTIONS: dict[str, Any] = {name: value for name, value in ServeSettings().app_options().items()
                           if name.startswith("realtime_") or name.startswith("allow_")}
KEEP_FINISHED = 50  # finished jobs remembered
MAX_RESULTS = 10_000  # no job finds more (max_fetches is far smaller): the largest `after`


@dataclass
class Job(BackgroundJob):
    """One real-time search; its state is running, done, cancelled or failed."""

    query: str
    seconds: float
    want: int
    started: float = field(default_factory=time.monotonic)
    results: list[dict[str, Any]] = field(default_factory=list)
    progress: dict[str, Any] = field(default_factory=dict)
    summary: dict[str, Any] | None = None

    def view(self, after: int = 0) -> dict[str, Any]:
        return {"id": self.id, "query": self.query, "state": self.state,
                "seconds": round(time.monotonic() - self.started, 2),
                "progress": self.progress, "total": len(self.results),
                "results": self.results[after:], "summary": self.summary,
                "error": self.error or None}

    def take(self, event: dict[str, Any]) -> None:
        kind = event.pop("type", "")
        if kind == "result":
            self.results.append(event)
        elif kind == "progress":
            self.progress = event
        elif kind == "summary":
            self.summary = event

    def ended(self, code: int, errors: str) -> None:
        if self.summary is not None:
            self.state = "cancelled" if self.summary.get("stop_reason") == "cancelled" else "done"
        elif self.state != "cancelled":
            self.state = "failed"
            self.error = visitor_reason(code, errors, self.timed_out)
            log.warning("real-time search %s failed (code %s): %s", self.id, code,
                        errors.strip()[-2000:])


class Jobs:
    """The real-time searches of one app (`jobs.JobList` keeps them); thread-safe."""

    def __init__(self, data_dir: Path, db_url: str | None, config: dict[str, Any]) -> None:
        self.data_dir, self.db_url, self.config = data_dir, db_url, config
        self._jobs: JobList[Job] = JobList(config["max_jobs"], KEEP_FINISHED, "realtime")

    def start(self, query: str, seconds: float, want: int, start_url: str | None) -> Job | None:
        """Start a job; None when `realtime_max_jobs` are running already. Its processes are
        killed `realtime_grace` seconds past its limit."""
        def make(job_id: str) -> tuple[Job, list[str]]:
            job = Job(job_id, query, seconds, want)
            return job, self._command(job, start_url)

        return self._jobs.start(make, seconds + self.config["grace"])

    def get(self, job_id: str) -> Job | None:
        return self._jobs.get(job_id)

    def cancel(self, job: Job) -> None:
        """Ask the job's processes to stop (SIGTERM to its group: it keeps what it found);
        what is left after STOP_GRACE seconds is killed."""
        self._jobs.stop(job, "cancelled", whole_group=True)

    def close(self) -> None:
        """End every job and its processes, and wait for them (the app is going away)."""
        self._jobs.close("cancelled", whole_group=True)

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
        return [*command, "--", job.query]  # after "--", a query such as "-foo" is never an option


def init_app(app: Flask, data_dir: Path, db_url: str | None) -> None:
    """Register the blueprint and the app's job list (`app.config` holds the options)."""
    config = {key.removeprefix("realtime_"): app.config[key.upper()] for key in OPTIONS}
    app.extensions["webcrawler.realtime"] = Jobs(data_dir, db_url, config)
    app.register_blueprint(bp)


def _jobs() -> Jobs:
    return current_app.extensions["webcrawler.realtime"]


def _page(job: Job | None) -> ResponseReturnValue:
    html = render_template("realtime.html", job=job, query=job.query if job else "",
                           script_nonce=csp_nonce(), allow_from_url=_jobs().config["allow_from_url"],
                           placeholder=current_app.extensions["webcrawler.sources"].placeholder())
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
    try:
        data = json_object()
        query = check_query(text_field(data, "q"), current_app.config["MAX_QUERY_LENGTH"])
        parse_query(query)
        seconds = number_field(data, "seconds", jobs.config["seconds"], 1, jobs.config["seconds"])
        want = int(number_field(data, "want", jobs.config["want"], 1, 100))
        start_url = http_url_field(data, "from")
    except (QueryError, BadQuery) as error:
        return jsonify(error=str(error) or "The query could not be understood."), 400
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
    try:
        after = count_param(request.args.get("after"), "after", 0, MAX_RESULTS)
    except BadQuery as error:
        return jsonify(error=str(error)), 400
    return jsonify(job.view(after))


@bp.delete("/api/realtime/<job_id>")
def cancel(job_id: str) -> ResponseReturnValue:
    jobs = _jobs()
    job = jobs.get(job_id)
    if job is None:
        return jsonify(error="No such real-time search."), 404
    jobs.cancel(job)
    return jsonify(job.view())

