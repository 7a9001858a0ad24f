"""`webcrawler config [--data-dir D] [--json]`: the effective configuration, every crawl
and query-server setting with its value and where it came from (default, file,
environment, flag), on stdout."""

from __future__ import annotations

import json
from dataclasses import asdict, fields
from pathlib import Path
from typing import Any

import click

from webcrawler.config.layers import Configuration, Layered
from webcrawler.config.options import serve_configuration


@click.command("config")
@click.option("--data-dir", type=click.Path(path_type=Path), default=None,
              help="The data directory whose webcrawler.toml to read (default ./webcrawler-data, "
                   "or $WEBCRAWLER_DATA).")
@click.option("--db", "db_url", default=None, help="SQLAlchemy database URL, as other commands take it.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def config_command(data_dir: Path | None, db_url: str | None, as_json: bool) -> None:
    """Print the effective configuration and where each value came from (docs/configuration.md)."""
    configuration = serve_configuration({"data_dir": data_dir, "db_url": db_url}, {})
    click.echo(json.dumps(to_json(configuration), indent=2) if as_json else to_text(configuration))


def to_json(configuration: Configuration) -> dict[str, Any]:
    return {"file": str(configuration.file), "file_found": configuration.file_found,
            "crawl": _section_json(configuration.crawl),
            "serve": _section_json(configuration.serve)}


def _section_json(layered: Layered[Any]) -> dict[str, Any]:
    values = asdict(layered.value)
    return {name: {"value": _plain(values[name]), "source": origin.source,
                   **({"from": origin.name} if origin.name else {})}
            for name, origin in layered.origins.items()}


def _plain(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, tuple):
        return list(value)
    return value


def to_text(configuration: Configuration) -> str:
    found = "" if configuration.file_found else " (not found: every value below is a default, "\
        "a variable or a flag)"
    lines = [f"config file: {configuration.file}{found}"]
    for title, layered in (("crawl", configuration.crawl), ("serve", configuration.serve)):
        lines += ["", f"[{title}]"]
        for f in fields(layered.value):
            shown = json.dumps(_plain(getattr(layered.value, f.name)))
            lines.append(f"{f.name:<24} {shown:<28} {layered.origins[f.name]}")
    return "\n".join(lines)
