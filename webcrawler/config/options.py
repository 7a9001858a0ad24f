"""The command line's side of configuration: click options generated from the settings
tables, and the calls that turn the flags a command was given into its settings.

    option / options    one flag, or several, of a table's settings (flag, type, bounds, help)
    crawl_settings      flags -> Settings, through file and environment
    serve_configuration flags -> Configuration (Settings and ServeSettings)

No command spells a setting's flag, type, bounds or help: they are the table's
(webcrawler/settings/). A bad file or variable is one line and exit status 2 (ConfigError),
never a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import Field
from typing import Any

import click

from webcrawler.config.bounds import click_type
from webcrawler.config.helptext import help_of
from webcrawler.config.kinds import kind_of
from webcrawler.config.layers import Configuration, configure, variables
from webcrawler.settings import Settings
from webcrawler.settings.declare import fields_of, flag_of, spec_of

Decorator = Callable[[Any], Any]
_UNSET: Any = object()


def option(table: type, name: str, *, help: str | None = None,  # noqa: A002 - click's word
           shown: Any = _UNSET, envvar: str | None = None, defaulted: bool = False) -> Decorator:
    """The click option of setting `name` of `table`, default None (so that file and
    environment show through; the help names the default), or with `defaulted` the table's
    default and the setting's variable (a program without layers: the Workbench). `help`
    replaces the table's sentence where a command means something more; `shown` is the
    default the help names when the command has its own (a real-time search's 4 agents)."""
    field = fields_of(table)[name]
    spec, kind, flag = spec_of(field), kind_of(field), flag_of(field)
    if flag is None:
        raise ValueError(f"{table.__name__}.{name} has no flag")
    text = help_of(help or spec.help, field.default if shown is _UNSET else shown)
    if defaulted and envvar is None:
        envvar = next(iter(variables(table, name)), None)
    common: dict[str, Any] = {"help": text, "envvar": envvar, "show_envvar": envvar is not None}
    default = field.default if defaulted else None
    if kind == "boolean":
        if spec.off:
            return click.option(f"{flag}/{spec.off}", name, default=default, **common)
        return click.option(flag, name, is_flag=True, default=default, **common)
    if kind == "list of strings" and spec.split:
        return click.option(flag, name, default=None, callback=_splitter(field), **common)
    if kind == "list of strings":
        return click.option(flag, name, multiple=True, metavar=spec.metavar,
                            callback=_patterns if spec.pattern else None, **common)
    return click.option(flag, name, type=click_type(field), default=default, metavar=spec.metavar,
                        **common)


def options(table: type, names: Iterable[str], defaulted: bool = False,
            special: Mapping[str, dict[str, Any]] | None = None) -> Decorator:
    """The options of `names`, in that order in the help; `special[name]` holds option()'s
    keywords for one of them."""
    chosen, special = list(names), special or {}

    def decorate(command: Any) -> Any:
        for name in reversed(chosen):
            command = option(table, name, defaulted=defaulted, **special.get(name, {}))(command)
        return command

    return decorate


def _splitter(field: Field) -> Callable[[Any, Any, str | None], tuple[str, ...] | None]:
    """A list given as one text (`--types html,pdf`): split, lower-cased, each a choice."""
    spec = spec_of(field)

    def split(_ctx: Any, param: Any, value: str | None) -> tuple[str, ...] | None:
        if value is None:
            return None
        items = tuple(dict.fromkeys(k.strip().lower() for k in value.split(spec.split)
                                    if k.strip()))
        unknown = [k for k in items if spec.choices and k not in spec.choices]
        if unknown or not items:
            raise click.BadParameter(f"{', '.join(unknown) or 'nothing'}: choose from "
                                     f"{', '.join(spec.choices)}", param=param)
        return items

    return split


def _patterns(_ctx: Any, param: Any, values: tuple[str, ...]) -> tuple[str, ...]:
    for value in values:
        try:
            re.compile(value)
        except (re.error, RecursionError, OverflowError) as exc:
            raise click.BadParameter(f"{value!r} is not a regular expression ({exc})",
                                     param=param) from None
    return values


def crawl_settings(flags: Mapping[str, Any]) -> Settings:
    """The command's Settings: defaults <- webcrawler.toml <- WEBCRAWLER_* <- given flags."""
    return _configure(flags, {}).crawl.value


def serve_configuration(crawl_flags: Mapping[str, Any],
                        serve_flags: Mapping[str, Any]) -> Configuration:
    return _configure(crawl_flags, serve_flags)


def _configure(crawl_flags: Mapping[str, Any], serve_flags: Mapping[str, Any]) -> Configuration:
    return configure(_given(crawl_flags), _given(serve_flags))  # or ConfigError


def _given(flags: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
    """The flags that were given, each with the flag as the user would type it."""
    return {name: (value, _typed(name, value)) for name, value in flags.items()
            if value is not None and value != ()}


def _typed(name: str, value: Any) -> str:
    context = click.get_current_context(silent=True)
    for param in context.command.params if context else ():
        if param.name == name and isinstance(param, click.Option):
            return param.secondary_opts[0] if value is False and param.secondary_opts else param.opts[0]
    return "--" + name.replace("_", "-")
