"""`webcrawler crawl FILE.py`: run a personal crawler defined in a file.

The file defines one `Crawler` subclass (or several, and `--class` names
one); flags override its roots and limits. A live progress line goes to
stderr, the summary to stdout. Loading is by suffix (`load_crawler`), so a
`.json` crawl definition (the Workbench's) can plug in later.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

import click

from webcrawler.config.kinds import FiniteFloat
from webcrawler.config.options import options
from webcrawler.errors import WebcrawlerError
from webcrawler.settings import Settings
from webcrawler.toolkit.crawler import TOOLKIT_AGENTS, Crawler
from webcrawler.toolkit.model import as_limits
from webcrawler.toolkit.ready import ORDERS


def load_crawler(path: Path, name: str | None = None) -> type[Crawler]:
    """The crawler class defined in `path` (a .py file); click errors say what is wrong."""
    if path.suffix == ".json":
        raise click.UsageError(f"{path}: .json crawl definitions are not supported yet")
    if path.suffix != ".py":
        raise click.UsageError(f"{path}: give a Python file (.py) defining a Crawler subclass")
    spec = importlib.util.spec_from_file_location(f"_webcrawler_crawl_{path.stem}", path)
    if spec is None or spec.loader is None:
        raise click.UsageError(f"{path}: cannot be loaded as Python")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    except Exception as exc:  # noqa: BLE001 - the user's file: one line, not a traceback
        raise click.ClickException(f"{path}: {type(exc).__name__}: {exc}") from None
    return _pick(module, path, name)


def _pick(module: Any, path: Path, name: str | None) -> type[Crawler]:
    found = {n: v for n, v in vars(module).items() if isinstance(v, type)
             and issubclass(v, Crawler) and v is not Crawler and v.__module__ == module.__name__}
    if name is not None:
        if name not in found:
            raise click.UsageError(f"{path}: no Crawler subclass named {name!r} "
                                   f"(found: {', '.join(found) or 'none'})")
        return found[name]
    if len(found) != 1:
        raise click.UsageError(f"{path}: defines {len(found)} Crawler subclasses "
                               f"({', '.join(found) or 'none'}): name one with --class")
    return next(iter(found.values()))


def construct(cls: type[Crawler], roots: tuple[str, ...]) -> Crawler:
    """`cls(roots=...)`, so that the crawler's own __init__ sees the roots given on the
    command line; a constructor that raises is one line, not a traceback."""
    try:
        try:
            return cls(roots=list(roots)) if roots else cls()
        except TypeError:  # an __init__ that takes no roots: set them afterwards
            if not roots:
                raise
            crawler = cls()
            crawler.roots = list(roots)
            return crawler
    except Exception as exc:  # noqa: BLE001 - the user's code: one line, not a traceback
        raise click.ClickException(f"{cls.__name__}(): {type(exc).__name__}: {exc}") from None


class ProgressLine:
    """A progress line on stderr, redrawn in place on a terminal, every few seconds otherwise."""

    def __init__(self) -> None:
        self.live = sys.stderr.isatty()
        self._last = 0.0

    def __call__(self, run: Any) -> None:
        now = time.monotonic()
        if self.live:
            sys.stderr.write("\r\x1b[2K" + run.progress_line())
            sys.stderr.flush()
        elif now - self._last >= 5.0:
            print(run.progress_line(), file=sys.stderr, flush=True)
            self._last = now

    def close(self) -> None:
        if self.live:
            sys.stderr.write("\n")


@click.command("crawl")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--root", "roots", multiple=True,
              help="A URL to start from (repeatable; replaces the class's roots).")
@click.option("--pages", type=click.IntRange(1), default=None,
              help="Stop after visiting this many pages.")
@click.option("--depth", type=click.IntRange(0), default=None,
              help="Pages this many links from a root are leaves.")
@click.option("--seconds", type=FiniteFloat(0.1), default=None, help="Stop after this long.")
@click.option("--order", type=click.Choice(list(ORDERS)), default=None,
              help="bfs (FIFO), dfs (LIFO) or priority.")
@click.option("--class", "class_name", default=None,
              help="The Crawler subclass to run, when the file has several.")
@options(Settings, ("agents", "delay"), special={"agents": {"shown": TOOLKIT_AGENTS}})
@click.option("--use-credentials", is_flag=True, default=False,
              help="Send the data directory's [[credentials]] (webcrawler.toml) to their servers "
                   "(not sent without it).")
def crawl_command(file: Path, roots: tuple[str, ...], pages: int | None, depth: int | None,
                  seconds: float | None, order: str | None, class_name: str | None,
                  agents: int | None, delay: float | None, use_credentials: bool = False) -> None:
    """Run the personal crawler (a Crawler subclass) defined in FILE (docs/toolkit.md)."""
    crawler = construct(load_crawler(file, class_name), roots)
    crawler.use_credentials = crawler.use_credentials or use_credentials
    changes: dict[str, Any] = {k: v for k, v in {"pages": pages, "depth": depth, "seconds": seconds}.items()
               if v is not None}
    crawler.limits = dataclasses.replace(as_limits(crawler.limits, type(crawler).__name__), **changes)
    crawler.order = order or crawler.order
    settings = crawler.engine_settings()
    tuned: dict[str, Any] = {k: v for k, v in {"agents": agents, "delay": delay}.items() if v is not None}
    crawler.settings = dataclasses.replace(settings, **tuned)
    progress = ProgressLine()
    try:
        summary = crawler.run(progress=progress)
    except WebcrawlerError:
        raise  # ToolkitError, ConfigError, ...: one line and its kind's status at the CLI's edge
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        progress.close()
    click.echo(summary.line())
    for error in crawler.errors[:10]:
        click.echo(f"  {error}", err=True)
