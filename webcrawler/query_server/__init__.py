"""The Query Server: a Flask app that answers searches from the index and the database.

It only reads. The index is opened through `webcrawler.index` (never whoosh
directly), the database through `readonly.open_readonly` (no -wal/-shm files);
both may be absent or still being written by `webcrawler index` in another
process, and every page still answers.

    create_app(data_dir, db_url=None, **options) -> Flask     the app factory
    serve(data_dir, host, port, db_url=None, threads=8)       waitress, blocking

Modules: `sources` (the read-only index and database), `queries` (checking
what users type), `views` (HTML pages), `api` (JSON), `stats`, `opensearch`
(OpenSearch description and robots.txt), `readonly` (a database opening that
writes no file), `openapi` (/api/openapi.json), `realtime` (real-time search
jobs). The web plumbing it shares with the workbench (error pages, the Host and
origin guard, strict JSON bodies, background jobs, waitress) is `webcrawler.web`.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path
from typing import Any

from flask import Flask

from webcrawler.datadir import DataDir
from webcrawler.errors import refuse_unknown
from webcrawler.query_server import api, metrics, openapi, opensearch, realtime, stats, views
from webcrawler.query_server.sources import Sources
from webcrawler.settings.serve import ServeSettings
from webcrawler.web import errors, guard
from webcrawler.web.server import (
    PortInUseError,
    ServeError,
    ServerThread,
    exposure_warning,
    make_server,
    url_host,
)

log = logging.getLogger(__name__)

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

# Options create_app accepts (lower case), with their defaults: the query server's settings
# table's (settings/serve.py) but where to listen, and Flask's TESTING flag. They land in
# app.config upper-cased.
OPTIONS: dict[str, Any] = {**ServeSettings().app_options(), "testing": False}


def create_app(data_dir: Path, db_url: str | None = None, **options: Any) -> Flask:
    """Build the query server for `data_dir` (index in `data_dir/index`, database
    at `db_url` or `data_dir/webcrawler.db`). Unknown options raise UnknownOption (a TypeError)."""
    refuse_unknown("query server", options, OPTIONS)
    app = Flask(__name__, template_folder=str(templates_dir()), static_folder=None)
    app.config.update({key.upper(): value for key, value in {**OPTIONS, **options}.items()})
    app.config["JSON_SORT_KEYS"] = False
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    data_dir = Path(data_dir)
    paths = DataDir(data_dir)
    app.extensions["webcrawler.sources"] = Sources(
        index_dir=paths.index,
        db_url=db_url or paths.database_url,
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


def serve(
    data_dir: Path,
    host: str = "127.0.0.1",
    port: int = 5000,
    db_url: str | None = None,
    threads: int = 8,
    **options: Any,
) -> None:
    """Serve searches of `data_dir` until interrupted (Ctrl-C); `options` go to `create_app`."""
    if not Path(data_dir).is_dir():
        raise ServeError(f"there is no data directory at {data_dir}: run webcrawler index first, "
                         "or give the right --data-dir")
    warning = exposure_warning(host)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    app = create_app(Path(data_dir), db_url=db_url, **options)
    server = make_server(app, host=host, port=port, threads=threads)
    app.extensions["webcrawler.sources"].warm()
    print(f"Search at http://{url_host(host)}:{server.effective_port}/", flush=True)
    try:
        server.run()
    except KeyboardInterrupt:
        log.info("query server interrupted")
    finally:
        server.close()
        app.extensions["webcrawler.sources"].close()


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
