"""The Query Server: a Flask app that answers searches from the index and the database.

It only reads. The index is opened through `webcrawler.index` (never whoosh
directly), the database through `readonly.open_readonly` (no -wal/-shm files);
both may be absent or still being written by `webcrawler index` in another
process, and every page still answers.

    create_app(data_dir, db_url=None, **options) -> Flask     the app factory
    serve(data_dir, host, port, db_url=None, threads=8)       waitress, blocking

Modules: `sources` (the read-only index and database), `queries` (checking
what users type), `views` (HTML pages), `api` (JSON), `stats`, `opensearch`
(OpenSearch description and robots.txt), `errors` (error pages and security
headers), `guard` (allowed Host names, same-origin JSON for changes), `payload`
(strict JSON bodies), `readonly` (a database opening that writes no file),
`openapi` (/api/openapi.json), `server` (waitress, the production WSGI server).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from flask import Flask

from webcrawler.database import sqlite_url
from webcrawler.query_server import (
    api,
    errors,
    guard,
    metrics,
    openapi,
    opensearch,
    realtime,
    stats,
    views,
)
from webcrawler.query_server.server import (
    PortInUseError,
    ServeError,
    ServerThread,
    make_server,
    serve,
)
from webcrawler.query_server.sources import Sources

__all__ = [
    "OPTIONS",
    "PortInUseError",
    "ServeError",
    "ServerThread",
    "create_app",
    "make_server",
    "serve",
    "templates_dir",
]

MAX_BODY = 64 * 1024  # bytes: the largest request body (a real-time search's JSON is tiny); 413 past it

# Options create_app accepts (lower case), with their defaults; they land in app.config upper-cased.
OPTIONS: dict[str, Any] = {
    "per_page": 10,  # results on a page of /search (and the API's default n)
    "max_per_page": 100,  # the API's largest n
    "max_page": 1000,  # deepest page anyone may ask for
    "max_query_length": 1000,  # characters; longer queries are refused with a message
    "stats_ttl": 5.0,  # seconds the statistics are cached
    "testing": False,  # Flask's TESTING flag
    "allowed_hosts": (),  # Host names answered besides localhost and the bound address (guard.py)
    **realtime.OPTIONS,  # real-time search jobs: limits, and allow_from_url (off)
}


def create_app(data_dir: Path, db_url: str | None = None, **options: Any) -> Flask:
    """Build the query server for `data_dir` (index in `data_dir/index`, database
    at `db_url` or `data_dir/webcrawler.db`). Unknown options raise TypeError."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise TypeError(f"unknown query server option(s): {', '.join(unknown)}")
    app = Flask(__name__, template_folder=str(templates_dir()), static_folder=None)
    app.config.update({key.upper(): value for key, value in {**OPTIONS, **options}.items()})
    app.config["JSON_SORT_KEYS"] = False
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    data_dir = Path(data_dir)
    app.extensions["webcrawler.sources"] = Sources(
        index_dir=data_dir / "index",
        db_url=db_url or sqlite_url(data_dir),
        stats_ttl=app.config["STATS_TTL"],
    )
    guard.init_app(app)
    errors.init_app(app)
    app.register_blueprint(views.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(openapi.bp)
    app.register_blueprint(opensearch.bp)
    app.register_blueprint(stats.bp)
    app.register_blueprint(metrics.bp)
    realtime.init_app(app, data_dir, db_url)
    return app


def templates_dir() -> Path:
    """The top-level `templates/` directory: beside the package in a source or
    editable checkout, under `sys.prefix/share/webcrawler/templates` once installed."""
    candidates = [
        Path(__file__).resolve().parent.parent.parent / "templates",
        Path(sys.prefix) / "share" / "webcrawler" / "templates",
        Path(sys.base_prefix) / "share" / "webcrawler" / "templates",
    ]
    for candidate in candidates:
        if (candidate / "base.html").is_file():
            return candidate
    searched = ", ".join(str(c) for c in candidates)
    raise FileNotFoundError(f"the query server's templates are missing (looked in {searched})")
