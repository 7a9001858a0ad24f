"""The workbench's app factory and the options an operator sets (limits, policy, hosts)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask

from webcrawler.datadir import DataDir
from webcrawler.query_server import templates_dir
from webcrawler.settings import Settings
from webcrawler.web import errors, guard
from webcrawler.workbench import api, openapi, page
from webcrawler.workbench.crawls import Crawls

MAX_BODY = 64 * 1024  # bytes: a crawl definition is small

# Options create_app accepts, with their defaults: the operator's bounds and request policy.
OPTIONS: dict[str, Any] = {
    "max_crawls": 2,  # crawls running at once
    "max_pages": 1000,  # per-crawl caps: a definition asking for more is refused
    "max_depth": None,
    "max_seconds": 600.0,
    "max_bytes": 100_000_000,
    "agents": 4,  # agent processes per crawl
    "delay": 1.0,  # seconds between two requests to one server
    "policy_hosts": (),  # the RequestPolicy: hosts crawls may reach (empty: any)
    "policy_rate": None,  # requests per second per crawl
    "policy_bytes": None,  # byte budget per crawl
    "audit_log": None,  # a file receiving every request's decision (JSON lines)
    "allowed_hosts": (),  # Host names answered besides localhost and the bound address
    "testing": False,
}


def create_app(data_dir: Path, **options: Any) -> Flask:
    """The workbench for `data_dir` (crawls in `data_dir/workbench/`). Unknown options: TypeError."""
    unknown = sorted(set(options) - set(OPTIONS))
    if unknown:
        raise TypeError(f"unknown workbench option(s): {', '.join(unknown)}")
    config = {**OPTIONS, **options}
    app = Flask(__name__, template_folder=str(templates_dir()),
                static_folder=str(Path(__file__).parent / "static"), static_url_path="/static")
    app.config.update({key.upper(): value for key, value in config.items()})
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.config["CRAWL_CAPS"] = {name: config[f"max_{name}"] for name in ("pages", "depth", "seconds", "bytes")
                                if config[f"max_{name}"] is not None}
    data_dir = Path(data_dir)
    settings = Settings(data_dir=data_dir, agents=config["agents"], delay=config["delay"])
    app.extensions["webcrawler.workbench"] = Crawls(
        DataDir(data_dir).workbench, settings, policy(config), config["max_crawls"])
    guard.init_app(app)
    errors.init_app(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(openapi.bp)
    app.register_blueprint(page.bp)
    return app


def policy(config: dict[str, Any]) -> dict[str, Any] | None:
    """The operator's RequestPolicy as JSON for the crawl processes (None: no policy)."""
    given = {"allowed_hosts": list(config["policy_hosts"]), "max_rate": config["policy_rate"],
             "max_bytes": config["policy_bytes"],
             "audit_path": str(Path(config["audit_log"]).resolve()) if config["audit_log"] else None}
    return given if any(given.values()) else None
