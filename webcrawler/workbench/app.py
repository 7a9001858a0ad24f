"""The workbench's app factory and the options an operator sets (limits, policy, hosts).

A workbench fetches what its visitors ask for, so it must not be an open proxy: its
crawls obey the data directory's crawl settings (webcrawler.toml [crawl], WEBCRAWLER_*),
refuse loopback and private addresses unless the operator names them (as real-time
search does), and, with a token, answer no API call without it (access.py).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from flask import Flask

from webcrawler.config.layers import configure
from webcrawler.datadir import DataDir
from webcrawler.errors import refuse_unknown
from webcrawler.query_server import templates_dir
from webcrawler.settings import Settings
from webcrawler.settings.workbench import WorkbenchSettings
from webcrawler.toolkit.crawler import TOOLKIT_AGENTS
from webcrawler.web import errors, guard
from webcrawler.workbench import access, api, openapi, page
from webcrawler.workbench.crawls import Crawls

MAX_BODY = 64 * 1024  # bytes: a crawl definition is small

# Options create_app accepts, with their defaults: the Workbench's settings table's
# (settings/workbench.py) but where to listen; `settings`, the crawl Settings (None: the data
# directory's file and variables); and Flask's TESTING flag.
OPTIONS: dict[str, Any] = {**WorkbenchSettings().app_options(), "settings": None, "testing": False}


def create_app(data_dir: Path, **options: Any) -> Flask:
    """The workbench for `data_dir` (crawls in `data_dir/workbench/`). Unknown options:
    UnknownOption (a TypeError)."""
    refuse_unknown("workbench", options, OPTIONS)
    config = {**OPTIONS, **options}
    app = Flask(__name__, template_folder=str(templates_dir()),
                static_folder=str(Path(__file__).parent / "static"), static_url_path="/static")
    app.config.update({key.upper(): value for key, value in config.items()})
    app.config["MAX_CONTENT_LENGTH"] = MAX_BODY
    app.config["CRAWL_CAPS"] = {name: config[f"max_{name}"] for name in ("pages", "depth", "seconds", "bytes")
                                if config[f"max_{name}"] is not None}
    data_dir = Path(data_dir).absolute()  # Flask's send_file reads a relative path from the package
    app.extensions["webcrawler.workbench"] = Crawls(
        DataDir(data_dir).workbench, crawl_settings(data_dir, config), policy(config),
        config["max_crawls"], keep_events=config["keep_events"], keep_crawls=config["keep_crawls"],
        use_credentials=config["use_credentials"])
    guard.init_app(app)
    access.init_app(app)
    errors.init_app(app)
    page.init_errors(app)
    app.register_blueprint(api.bp)
    app.register_blueprint(openapi.bp)
    app.register_blueprint(page.bp)
    return app


def crawl_settings(data_dir: Path, config: dict[str, Any]) -> Settings:
    """The Settings every crawl of this workbench runs with: the data directory's layers (as
    `webcrawler index` reads them), the operator's agents and delay, and the private-address
    safety, which only the workbench's own options relax. ConfigError for a bad file."""
    settings = config["settings"]
    if settings is None:
        layered = configure({"data_dir": (data_dir, "--data-dir")}).crawl
        settings = layered.value
        if layered.origins["agents"].source == "default":  # neither file nor variable says
            settings = replace(settings, agents=TOOLKIT_AGENTS)
    chosen = {k: config[k] for k in ("agents", "delay") if config[k] is not None}
    return replace(settings, data_dir=data_dir, **chosen,
                   deny_private=not config["allow_private_fetch"],
                   scope_hosts=tuple(sorted({h.lower() for h in config["private_hosts"]})))


def policy(config: dict[str, Any]) -> dict[str, Any] | None:
    """The operator's RequestPolicy as JSON for the crawl processes (None: no policy)."""
    given = {"allowed_hosts": list(config["policy_hosts"]), "max_rate": config["policy_rate"],
             "max_bytes": config["policy_bytes"],
             "audit_path": str(Path(config["audit_log"]).resolve()) if config["audit_log"] else None}
    return given if any(given.values()) else None
