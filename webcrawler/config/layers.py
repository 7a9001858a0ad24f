"""The four layers of a setting, lowest first: default < file < environment < flag, and
where each effective value came from (what `webcrawler config` prints)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, Generic, TypeVar

from webcrawler.config.bounds import check
from webcrawler.config.file import config_path, read_config
from webcrawler.config.kinds import from_text
from webcrawler.settings import Settings
from webcrawler.settings.declare import NO_FLAG, fields_of, spec_of
from webcrawler.settings.serve import ServeSettings

T = TypeVar("T")
# The tables whose every setting has a variable, PREFIX + NAME; the Workbench's settings have
# only those their declarations name (WEBCRAWLER_WORKBENCH_TOKEN).
PREFIXES = {Settings: "WEBCRAWLER_", ServeSettings: "WEBCRAWLER_SERVE_"}


@dataclass(frozen=True)
class Origin:
    """Where a value came from: source is default, file, environment or flag; name is the
    file, the variable or the flag ("" for a default)."""

    source: str
    name: str = ""

    def __str__(self) -> str:
        return f"{self.source} {self.name}".strip()


@dataclass(frozen=True)
class Layered(Generic[T]):
    """Settings (or ServeSettings) and each field's origin."""

    value: T
    origins: dict[str, Origin]


@dataclass(frozen=True)
class Configuration:
    """The effective configuration of one command."""

    file: Path  # the config file looked for (it may not exist)
    file_found: bool
    crawl: Layered[Settings]
    serve: Layered[ServeSettings]


def variables(cls: type, name: str) -> list[str]:
    """The environment variables of a setting of table `cls`, the later winning when both
    are set: PREFIX + NAME, and the older, shorter name its declaration gives (WEBCRAWLER_DATA)."""
    env = spec_of(fields_of(cls)[name]).env
    if env == NO_FLAG:
        return []
    usual = [PREFIXES[cls] + name.upper()] if cls in PREFIXES else []
    return [*usual, *([env] if env else [])]


def configure(crawl_flags: Mapping[str, tuple[Any, str]] | None = None,
              serve_flags: Mapping[str, tuple[Any, str]] | None = None,
              env: Mapping[str, str] | None = None) -> Configuration:
    """The layers applied. Flags map a field to (value, the flag as typed); only given
    flags belong there. The data directory (hence the file) comes from flag, environment
    or default. Raises ConfigError (one line) for a bad file or variable."""
    env = os.environ if env is None else env
    crawl_flags, serve_flags = crawl_flags or {}, serve_flags or {}
    crawl_env = environment_values(Settings, env)
    data_dir = Path(_top(Settings(), "data_dir", crawl_env, crawl_flags))
    path = config_path(data_dir)
    sections = read_config(data_dir)
    return Configuration(
        file=path, file_found=path.is_file(),
        crawl=_layer(Settings(), sections.get("crawl", {}), str(path), crawl_env, crawl_flags,
                     "crawl"),
        serve=_layer(ServeSettings(), sections.get("serve", {}), str(path),
                     environment_values(ServeSettings, env), serve_flags, "serve"))


def environment_values(cls: type, env: Mapping[str, str]) -> dict[str, tuple[Any, str]]:
    """The fields the environment sets: name -> (value, the variable that set it)."""
    found: dict[str, tuple[Any, str]] = {}
    for f in fields(cls):
        for variable in variables(cls, f.name):
            if env.get(variable, "") != "":
                found[f.name] = (from_text(f, env[variable], variable), variable)
    return found


def set_by_environment(name: str, env: Mapping[str, str] | None = None) -> bool:
    """Does a variable set the crawl setting `name`? (A personal crawl takes fewer agents
    than the engine's default unless one says otherwise.)"""
    env = os.environ if env is None else env
    return any(env.get(variable, "") != "" for variable in variables(Settings, name))


def _top(defaults: Any, name: str, *layers: Mapping[str, tuple[Any, str]]) -> Any:
    value = getattr(defaults, name)
    for layer in layers:
        if name in layer:
            value = layer[name][0]
    return value


def _layer(defaults: T, file: Mapping[str, Any], path: str, env: Mapping[str, tuple[Any, str]],
           flags: Mapping[str, tuple[Any, str]], section: str) -> Layered[T]:
    """The layers over `defaults`, each value within its setting's bounds (ConfigError, one
    line naming the setting and where its value came from, otherwise)."""
    values: dict[str, Any] = {}
    origins = {f.name: Origin("default") for f in fields(defaults)}  # type: ignore[arg-type]
    for name, value in file.items():
        values[name], origins[name] = value, Origin("file", path)
    for source, layer in (("environment", env), ("flag", flags)):
        for name, (value, where) in layer.items():
            values[name], origins[name] = value, Origin(source, where)
    layered = replace(defaults, **values)  # type: ignore[type-var]
    check(type(defaults), layered, origins, section)
    return Layered(layered, origins)


def from_environment(env: Mapping[str, str] | None = None, base: Settings | None = None) -> Settings:
    """Apply ``WEBCRAWLER_<FIELD>`` variables (and WEBCRAWLER_DATA / WEBCRAWLER_DB) to `base`;
    a variable that is not a number where one is expected, or is out of its setting's bounds,
    raises ConfigError (a ValueError)."""
    found = environment_values(Settings, os.environ if env is None else env)
    return _layer(base or Settings(), {}, "", found, {}, "crawl").value
