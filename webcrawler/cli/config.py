"""`webcrawler config [--data-dir D] [--json]`: the effective configuration, every crawl
and query-server setting with its value and where it came from (default, file,
environment, stored with the crawl, flag), on stdout. The crawl's stored scope shows as
"stored", as the crawl commands apply it: over file and environment, under a flag."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import click

from webcrawler.config.kinds import plain
from webcrawler.config.layers import Configuration, Layered, Origin
from webcrawler.config.options import options, serve_configuration
from webcrawler.settings import Settings


@click.command("config")
@options(Settings, ("data_dir", "db_url"), special={
    "data_dir": {"help": "The data directory whose webcrawler.toml to read (default "
                         "./webcrawler-data, or $WEBCRAWLER_DATA)."},
    "db_url": {"help": "SQLAlchemy database URL, as other commands take it."}})
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def config_command(data_dir: Path | None, db_url: str | None, as_json: bool) -> None:
    """Print the effective configuration and where each value came from (docs/configuration.md)."""
    configuration = with_stored_scope(serve_configuration({"data_dir": data_dir,
                                                           "db_url": db_url}, {}))
    click.echo(json.dumps(to_json(configuration), indent=2) if as_json else to_text(configuration))


def with_stored_scope(configuration: Configuration) -> Configuration:
    """The configuration with the crawl's stored scope in place of what it replaces (nothing
    when no crawl is stored; nothing is created or written to find out)."""
    from webcrawler.database.dialects import sqlite_file
    from webcrawler.database.schema import connect
    from webcrawler.engine.store.scope import FIELDS, load

    settings = configuration.crawl.value
    path = sqlite_file(settings.database_url)
    if path is not None and not path.is_file():
        return configuration
    engine = connect(settings.database_url, readonly=True)
    try:
        stored = load(engine)
    except Exception:  # noqa: BLE001 - no schema yet, or unreadable: show the layers only
        stored = {}
    finally:
        engine.dispose()
    origins = dict(configuration.crawl.origins)
    changes: dict[str, Any] = {}
    for name in FIELDS:
        if name in stored and origins[name].source != "flag":
            value = stored[name]
            changes[name] = tuple(value) if isinstance(value, list) else value
            origins[name] = Origin("stored", "with the crawl")
    if stored.get("hosts"):
        changes["scope_hosts"], origins["scope_hosts"] = tuple(stored["hosts"]), Origin(
            "stored", "with the crawl")
    crawl = Layered(dataclasses.replace(settings, **changes), origins)
    return dataclasses.replace(configuration, crawl=crawl)


def to_json(configuration: Configuration) -> dict[str, Any]:
    return {"file": str(configuration.file), "file_found": configuration.file_found,
            "crawl": _section_json(configuration.crawl),
            "serve": _section_json(configuration.serve)}


def _section_json(layered: Layered[Any]) -> dict[str, Any]:
    values = asdict(layered.value)
    return {name: {"value": plain(values[name]), "source": origin.source,
                   **({"from": origin.name} if origin.name else {})}
            for name, origin in layered.origins.items()}


def to_text(configuration: Configuration) -> str:
    found = "" if configuration.file_found else " (not found: every value below is a default, "\
        "a variable or a flag)"
    lines = [f"config file: {configuration.file}{found}"]
    for title, layered in (("crawl", configuration.crawl), ("serve", configuration.serve)):
        lines += ["", f"[{title}]"]
        for f in fields(layered.value):
            shown = json.dumps(plain(getattr(layered.value, f.name)))
            lines.append(f"{f.name:<24} {shown:<28} {layered.origins[f.name]}")
    return "\n".join(lines)
