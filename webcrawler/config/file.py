"""The optional config file `<data_dir>/webcrawler.toml`: a [crawl] section of Settings
fields and a [serve] section of ServeSettings fields, read with the standard library's
tomllib. Every problem is a ConfigError of one line naming the file, the key and what
was expected, so the CLI can print it and exit 2:

    [crawl]
    agents = 8
    delay = 0.5
    include = ['^https://docs\\.example\\.org/']

    [serve]
    port = 8080
    per_page = 20
"""

from __future__ import annotations

import difflib
from dataclasses import Field, fields
from pathlib import Path

from webcrawler.config.credentials import parse as parse_credentials
from webcrawler.config.kinds import ConfigError, from_toml
from webcrawler.config.toml_file import read_toml
from webcrawler.datadir import DataDir
from webcrawler.settings import Settings
from webcrawler.settings.declare import spec_of
from webcrawler.settings.serve import ServeSettings

SECTIONS: dict[str, type] = {"crawl": Settings, "serve": ServeSettings}


def config_path(data_dir: Path) -> Path:
    return DataDir(data_dir).config_file


def read_config(data_dir: Path) -> dict[str, dict[str, object]]:
    """The file's checked values by section ({} when there is no file)."""
    path = config_path(data_dir)
    try:
        document = read_toml(path)
    except FileNotFoundError:
        return {}
    parse_credentials(path, document.pop("credentials", []))  # checked; only agents get them
    return {name: _section(path, name, table) for name, table in document.items()}


def _section(path: Path, name: str, table: object) -> dict[str, object]:
    if name not in SECTIONS:
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {name} is outside a section: put it under [crawl] or "
                              "[serve]")
        raise ConfigError(f"{path}: unknown section [{name}]: the sections are [crawl], "
                          "[serve] and [[credentials]]")
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: {name} must be a section ([{name}]), not a single value")
    known = {f.name: f for f in fields(SECTIONS[name])}
    return {key: _value(path, name, key, value, known) for key, value in table.items()}


def _value(path: Path, section: str, key: str, value: object, known: dict[str, Field]) -> object:
    where = f"{path}: [{section}] {key}"
    if key not in known:
        near = difflib.get_close_matches(key.replace("-", "_"), known, n=1)
        hint = f" (did you mean {near[0]}?)" if near else " (docs/configuration.md lists them)"
        raise ConfigError(f"{where} is not a setting of [{section}]{hint}")
    refused = spec_of(known[key]).not_in_file
    if refused:
        raise ConfigError(f"{where} cannot be set in the file: {refused}")
    return from_toml(known[key], value, where)
