"""The workbench's JSON API (a contract: docs/workbench.md) and its server-sent event stream.

    POST   /api/crawls              a crawl definition (JSON) -> 202 {"id", ...}; 400 with the
                                    field at fault; 429 when the operator's cap is reached;
                                    507 when the disk is full
    GET    /api/crawls              every crawl, newest first, with its definition
    GET    /api/crawls/<id>         state, counters, summary, the result's name
    GET    /api/crawls/<id>/events  text/event-stream: every event from `after` (or
                                    Last-Event-ID) on, then "end" once the crawl is over
    DELETE /api/crawls/<id>         stop it (its whole process group ends)
    GET    /api/crawls/<id>/result  the action's result, as a download

Start and stop take same-origin JSON only (web/guard.py). The event
stream is bounded: it ends with the crawl, or after the crawl's time limit.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

from flask import Blueprint, Response, current_app, jsonify, request, send_file, url_for
from flask.typing import ResponseReturnValue

from webcrawler.database.storage_errors import is_disk_full
from webcrawler.web.payload import BadQuery, count_param
from webcrawler.workbench.crawls import OVERSTAY, Crawl, Crawls
from webcrawler.workbench.definition import DefinitionError, parse
from webcrawler.workbench.eventlog import open_reader, read_lines

bp = Blueprint("workbench_api", __name__, url_prefix="/api")

KEEPALIVE = 10.0  # seconds between comments on a quiet stream
MAX_EVENTS = 10_000_000  # the largest `after`
BATCH = 500  # events sent at once


def crawls() -> Crawls:
    return current_app.extensions["webcrawler.workbench"]


def _missing() -> ResponseReturnValue:
    return jsonify(error="No such crawl."), 404


@bp.post("/crawls")
def start() -> ResponseReturnValue:
    try:
        data = json.loads(request.get_data(cache=True))
    except (ValueError, RecursionError):
        return jsonify(error="Send a crawl definition as a JSON object."), 400
    try:
        definition = parse(data, current_app.config["CRAWL_CAPS"])
    except DefinitionError as error:
        return jsonify(error=str(error)), 400
    try:
        crawl = crawls().start(definition)
    except OSError as error:
        if not is_disk_full(error):
            raise
        return jsonify(error="The workbench's disk is full: no crawl can start until space is "
                             "freed (remove old crawls from its data directory)."), 507
    if crawl is None:
        return jsonify(error="Too many crawls are running: wait for one to end, or stop one."), 429
    return jsonify(id=crawl.id, status_url=url_for(".status", crawl_id=crawl.id),
                   events_url=url_for(".events", crawl_id=crawl.id),
                   result_url=url_for(".result", crawl_id=crawl.id)), 202


@bp.get("/crawls")
def listing() -> ResponseReturnValue:
    return jsonify(crawls=[crawl.view() for crawl in crawls().all()])


@bp.get("/crawls/<crawl_id>")
def status(crawl_id: str) -> ResponseReturnValue:
    crawl = crawls().get(crawl_id)
    return _missing() if crawl is None else jsonify(crawl.view())


@bp.delete("/crawls/<crawl_id>")
def stop(crawl_id: str) -> ResponseReturnValue:
    crawl = crawls().get(crawl_id)
    if crawl is None:
        return _missing()
    crawls().stop(crawl)
    return jsonify(crawl.view())


@bp.get("/crawls/<crawl_id>/result")
def result(crawl_id: str) -> ResponseReturnValue:
    crawl = crawls().get(crawl_id)
    if crawl is None:
        return _missing()
    path = crawl.result_path()
    if path is None or not path.is_file():
        return jsonify(error="This crawl has no result (yet)."), 404
    return send_file(path, as_attachment=True, download_name=f"{crawl.id}-{path.name}")


@bp.get("/crawls/<crawl_id>/events")
def events(crawl_id: str) -> ResponseReturnValue:
    crawl = crawls().get(crawl_id)
    if crawl is None:
        return _missing()
    try:
        after = count_param(request.args.get("after") or request.headers.get("Last-Event-ID"),
                            "after", 0, MAX_EVENTS)
    except BadQuery as error:
        return jsonify(error=str(error)), 400
    response = Response(_stream(crawl, after), mimetype="text/event-stream")
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Accel-Buffering"] = "no"
    return response


def _stream(crawl: Crawl, after: int) -> Iterator[str]:
    """Every event from `after` on as `id: N` / `data: JSON`, then `event: end`. The events
    are read from the crawl's folder (eventlog.py), never held here."""
    seconds = float(crawl.definition.limits.get("seconds") or 3600)
    deadline = time.monotonic() + seconds + OVERSTAY + 30
    yield "retry: 2000\n\n"
    opened = open_reader(crawl.events_path, after)
    if opened is None:
        yield _end(crawl)
        return
    reader, sent = opened
    with reader:
        while time.monotonic() < deadline:
            ended = not crawl.alive()
            batch = read_lines(reader, BATCH)
            if batch:
                yield "".join(f"id: {sent + i + 1}\ndata: {line}\n\n" for i, line in enumerate(batch))
                sent += len(batch)
            elif ended:
                yield _end(crawl)
                return
            elif not crawl.wait(sent, KEEPALIVE):
                yield ": waiting\n\n"


def _end(crawl: Crawl) -> str:
    return f"event: end\ndata: {json.dumps({'state': crawl.state})}\n\n"
