"""The command line's side of configuration: options generated from the settings'
dataclasses, and the calls that turn the flags a command was given into its settings.

    tuning_options      `index` and `search`: the crawl's expert knobs (timeouts, sizes, ...)
    serve_options       `serve`: one option per ServeSettings field
    crawl_settings      flags -> Settings, through file and environment
    serve_configuration flags -> Configuration (Settings and ServeSettings)

A bad file or variable is one line and exit status 2 (ConfigError), never a traceback.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import fields
from typing import Any

import click

from webcrawler.config.helptext import with_default
from webcrawler.config.kinds import ConfigError, FiniteFloat, kind_of
from webcrawler.config.layers import Configuration, Layered, configure
from webcrawler.config.serve import ServeSettings
from webcrawler.settings import Settings

# Settings fields that once had only a variable, with their flags' help.
TUNING = {
    "connect_timeout": "Seconds to wait for a server to accept the connection (default 10).",
    "read_timeout": "Seconds to wait for each read from a server (default 20).",
    "total_timeout": "Seconds one retrieval may take in all (default 60).",
    "max_bytes": "Largest body kept, in bytes after decompression (default 1048576).",
    "max_url_length": "Longest URL fetched, in characters (default 2048).",
    "user_agent": "The whole User-Agent header (default: from --user-agent-token).",
    "robots_ttl": "Seconds a robots.txt stays valid (default 86400).",
    "robots_retry": "Seconds before a robots.txt that failed (5xx, unreachable) is asked "
                    "again (default 600).",
    "commit_seconds": "Commit at least this often, in seconds, so another writer never waits "
                      "long (default 5).",
    "agent_max_urls": "Replace an agent process after this many URLs (default 500).",
    "agent_memory_mb": "Replace an agent process that grows past this many MB (default 512).",
    "agent_deadline": "Seconds an agent may hold one URL (default 0: --total-timeout + 15).",
    "progress_interval": "Seconds between progress lines (default 2).",
    "retries": "Tries of a page after a passing failure (refused, reset, timeout, DNS, 429, "
               "500, 502, 503, 504) (default 3; 0: the first failure is final).",
    "retry_backoff": "Seconds before the first retry, doubled for each next one, with jitter "
                     "(default 1).",
    "max_retry_after": "Longest wait honoured, in seconds (Retry-After or backoff); a server "
                       "asking for more is left until a later crawl (default 300).",
    "delay_factor": "Politeness grows to this many times a server's response time (with "
                    "--delay above 0); 429 and 503 double it (default 2; 0: fixed delay).",
    "max_delay": "Largest politeness delay the adaptation may reach, in seconds (default 60).",
    "min_revisit": "An incremental crawl fetches one page at most once in this many seconds "
                   "(default 60).",
    "trap_repeats": "A URL whose path repeats one segment more than this many times is a link "
                    "loop, refused as 'trap' (default 3; 0: no check).",
    "trap_budget": "Pages per server whose URLs differ only by a date (a calendar) fetched at "
                   "most (default 400; 0: no date rule at all).",
    "ca_bundle": "PEM file of the certificate authorities to trust (default: the system's).",
    "client_cert": "PEM client certificate to present to servers that ask for one.",
    "client_key": "The client certificate's private key (PEM), when not in --client-cert.",
    "insecure_skip_tls_verify": "Accept any server certificate: UNSAFE, anyone on the path "
                                "can read and change what is crawled.",
    "render_timeout": "Seconds one page may take in the browser under --render (default 10).",
    "metrics_port": "Serve the crawl's Prometheus metrics at http://127.0.0.1:PORT/metrics "
                    "(default 0: off).",
}
# TUNING fields whose flag takes other values than _type's positive numbers
TUNING_TYPES: dict[str, Any] = {
    "retries": click.IntRange(0, 20), "trap_repeats": click.IntRange(0),
    "trap_budget": click.IntRange(0), "metrics_port": click.IntRange(0, 65535),
    "delay_factor": FiniteFloat(0), "min_revisit": FiniteFloat(0),
}
PATTERN_FIELDS = ("include", "exclude")  # Settings fields holding regular expressions
SERVE_RANGES = {"port": click.IntRange(0, 65535), "threads": click.IntRange(1, 64),
                "realtime_seconds": FiniteFloat(1)}


def flag_of(name: str) -> str:
    return "--" + name.replace("_", "-")


def _type(kind: str) -> Any:
    return {"integer": click.IntRange(1), "number": FiniteFloat(0)}.get(kind, str)


def serve_type(name: str, kind: str) -> Any:
    """The click type of a ServeSettings field: its flag's, and what file and variables must obey."""
    return SERVE_RANGES.get(name, _type(kind))


# TUNING fields a real-time search (`webcrawler search`) never reads: it commits after every
# document, reports its own progress, recrawls nothing and serves no metrics.
NOT_IN_SEARCH = ("commit_seconds", "progress_interval", "min_revisit", "metrics_port")


def tuning_options(command: Any, without: tuple[str, ...] = ()) -> Any:
    """`--connect-timeout` ... `--progress-interval`: every TUNING field but `without`, none
    defaulted here."""
    known = {f.name: f for f in fields(Settings)}
    for name in reversed([name for name in TUNING if name not in without]):
        kind = kind_of(known[name])
        if kind == "boolean":
            option = click.option(flag_of(name), is_flag=True, default=None, help=TUNING[name])
        else:
            option = click.option(flag_of(name), type=TUNING_TYPES.get(name, _type(kind)),
                                  default=None, help=TUNING[name])
        command = option(command)
    return command


def search_tuning_options(command: Any) -> Any:
    """The TUNING options `webcrawler search` uses: its help lists no option that does nothing."""
    return tuning_options(command, without=NOT_IN_SEARCH)


def serve_options(command: Any) -> Any:
    """One option per ServeSettings field, default None (so file and environment show
    through), the default named in the help instead."""
    for f in reversed(fields(ServeSettings)):
        kind, text = kind_of(f), f.metadata["help"]
        if kind == "boolean":
            option = click.option(f"{flag_of(f.name)}/--no-{f.name.replace('_', '-')}",
                                  default=None, help=text)
        elif kind == "list of strings":
            option = click.option(flag_of(f.name).removesuffix("s"), f.name, multiple=True,
                                  help=text)
        else:
            shown = text if f.default is None else with_default(text, f.default)
            option = click.option(flag_of(f.name), type=serve_type(f.name, kind),
                                  default=None, help=shown)
        command = option(command)
    return command


def crawl_settings(flags: Mapping[str, Any]) -> Settings:
    """The command's Settings: defaults <- webcrawler.toml <- WEBCRAWLER_* <- given flags."""
    return _configure(flags, {}).crawl.value


def serve_configuration(crawl_flags: Mapping[str, Any],
                        serve_flags: Mapping[str, Any]) -> Configuration:
    return _configure(crawl_flags, serve_flags)


def _configure(crawl_flags: Mapping[str, Any], serve_flags: Mapping[str, Any]) -> Configuration:
    configuration = configure(_given(crawl_flags), _given(serve_flags))  # or ConfigError
    _check_ranges(configuration.crawl, "index")
    _check_patterns(configuration.crawl)
    _check_serve_ranges(configuration.serve)
    return configuration


def _check_patterns(layered: Layered[Settings]) -> None:
    """Every include and exclude regex compiles, whichever layer gave it: one line naming
    where it came from, never a raw re.error in the middle of a crawl."""
    for name in PATTERN_FIELDS:
        origin = layered.origins[name]
        for pattern in getattr(layered.value, name):
            try:
                re.compile(pattern)
            except (re.error, RecursionError, OverflowError) as error:
                where = (f"{origin.name}: [crawl] {name}" if origin.source == "file"
                         else origin.name or name)
                raise ConfigError(f"{where}: {pattern!r} is not a regular expression ({error})") \
                    from None


def _check_serve_ranges(layered: Layered[ServeSettings]) -> None:
    """A `[serve]` value from the file or a WEBCRAWLER_SERVE_* variable within its flag's range
    (`per_page = 0` would divide by zero on every result page): one line and exit 2."""
    for f in fields(ServeSettings):
        origin, kind = layered.origins[f.name], serve_type(f.name, kind_of(f))
        if origin.source not in ("file", "environment") or not isinstance(
                kind, (click.IntRange, click.FloatRange)):
            continue
        value = getattr(layered.value, f.name)
        try:
            kind.convert(value, None, None)
        except click.BadParameter as error:
            line = (f"{origin.name}: [serve] {f.name} = {value!r}" if origin.source == "file"
                    else f"{origin.name}={value!r}")
            raise ConfigError(f"{line}: {error.message}") from None


def _check_ranges(layered: Layered[Any], command: str) -> None:
    """A `[crawl]` file value within the range or choices the command's flag takes (`agents = 0`,
    `order = "fastest"`): the same one line and exit 2 as a wrong type. Variables are left
    as they always were (WEBCRAWLER_AGENTS=100 has long been allowed). The serve section has
    its own check (`_check_serve_ranges`)."""
    context = click.get_current_context(silent=True)
    group = context.find_root().command if context else None
    target = group.commands.get(command) if isinstance(group, click.Group) else None
    params = {p.name: p for p in target.params} if target else {}
    for name, origin in layered.origins.items():
        param = params.get(name)
        if origin.source != "file" or not isinstance(param, click.Option) or not isinstance(
                param.type, (click.IntRange, click.FloatRange, click.Choice)):
            continue
        value = getattr(layered.value, name)
        try:
            param.type.convert(value, param, context)
        except click.BadParameter as error:
            raise ConfigError(f"{origin.name}: [crawl] {name} = {value!r}: {error.message}") from None


def _given(flags: Mapping[str, Any]) -> dict[str, tuple[Any, str]]:
    """The flags that were given, each with the flag as the user would type it."""
    return {name: (value, _typed(name, value)) for name, value in flags.items()
            if value is not None and value != ()}


def _typed(name: str, value: Any) -> str:
    context = click.get_current_context(silent=True)
    for param in context.command.params if context else ():
        if param.name == name and isinstance(param, click.Option):
            return param.secondary_opts[0] if value is False and param.secondary_opts else param.opts[0]
    return flag_of(name)
