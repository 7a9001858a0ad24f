"""The `webcrawler` command: the one place where the pieces are wired together.

Errors become one-line messages and exit codes here, once (`_Commands`: every
`webcrawler.errors.WebcrawlerError`, with its kind's exit status); logs go to
stderr, results (summaries, answers) to stdout.
"""

from __future__ import annotations

import contextlib
import json
import logging
import signal
import sys
from collections.abc import Iterator
from dataclasses import fields
from pathlib import Path
from typing import Any

import click

from webcrawler.cli.agent_hosts import agent_host, agent_scheduler
from webcrawler.cli.config import config_command
from webcrawler.cli.crawl_options import (
    SEARCH_AGENTS,
    data_dir_option,
    db_option,
    index_head_options,
    index_options,
    search_options,
)
from webcrawler.cli.ending import end_process, end_without_teardown
from webcrawler.cli.export import export
from webcrawler.cli.help import defaults_in_help
from webcrawler.cli.plan import plan_recrawl
from webcrawler.cli.shards import optimize_option, register_shard_commands
from webcrawler.cli.workbench import crawl_command, workbench_command
from webcrawler.config.kinds import FiniteFloat
from webcrawler.config.options import crawl_settings, options, serve_configuration
from webcrawler.errors import DISTRIBUTION, NothingToDo, WebcrawlerError
from webcrawler.settings import Settings
from webcrawler.settings.serve import ServeSettings

log = logging.getLogger("webcrawler")


def _setup_logging(verbose: int) -> None:
    level = logging.WARNING - 10 * verbose
    logging.basicConfig(level=max(logging.DEBUG, level), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def _settings(**flags: Any) -> Settings:
    """Defaults <- DATA/webcrawler.toml <- WEBCRAWLER_* environment <- flags that were given."""
    return crawl_settings(flags)


class _Commands(click.Group):
    """The command group, and the edge where errors meet the user: a `WebcrawlerError`,
    wherever a command meets it (a damaged data directory, a bad setting, a port in use,
    nothing to crawl, ...), is its one line and its kind's exit status."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        """As click's; run as the console script (no arguments given: sys.argv's), a
        command that asks for it ends its process past its exit handlers without tearing its
        interpreter down (ending.py)."""
        try:
            return super().main(*args, **kwargs)
        except SystemExit as end:
            if kwargs.get("args", args[0] if args else None) is None:
                end_process(end.code)
            raise

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except WebcrawlerError as exc:
            click.echo(f"Error: {exc}", err=True)  # as click shows its own errors
            ctx.exit(exc.exit_code)
        except Exception as exc:
            damaged = _damaged_database(exc)
            if damaged is None:
                raise
            click.echo(f"Error: {damaged}", err=True)
            ctx.exit(1)


def _damaged_database(error: Exception) -> Exception | None:
    """The one-line error for a database found damaged mid-command (past `check_database`);
    None for any other error. No database opened, no sqlalchemy imported: not one of its."""
    if "sqlalchemy.exc" not in sys.modules:
        return None
    from webcrawler.database.schema import unreadable

    return unreadable(error)


@click.group(cls=_Commands)
@click.option("-v", "--verbose", count=True, help="More log output on stderr (-vv for debug).")
@click.version_option(package_name=DISTRIBUTION)
def main(verbose: int) -> None:
    """webcrawler: your own search engine for a set of web sites (after WebCrawler, 1994)."""
    _setup_logging(verbose)


def _existing_data(settings: Settings) -> None:
    """Commands that read a crawl refuse a data directory that does not exist (a mistyped
    --data-dir), in one line, before anything could create a file in it."""
    if not settings.db_url and not settings.data_dir.is_dir():
        raise NothingToDo(f"no crawl in {settings.data_dir}: the directory does not "
                                   "exist (run webcrawler index --seed URL first, or give the "
                                   "right --data-dir)")


def _explicit(flags: dict[str, Any]) -> set[str]:
    """The settings given on the command line: they win over the crawl's stored scope."""
    return {k for k, v in flags.items() if v is not None and v != ()}


@main.command()
@index_head_options
@click.option("--seeds-file", type=click.File("r"), default=None, help="A file of seed URLs, one a line.")
@click.option("--progress/--no-progress", default=True, help="Show progress on stderr.")
@click.option("--reindex", is_flag=True,
              help="Rebuild the index from the database's documents (the old index is moved "
                   "aside), then stop; no crawl.")
@index_options
def index(seeds_file: Any, progress: bool, reindex: bool, **flags: Any) -> None:
    """Crawl from the seeds (or resume the crawl in the data dir) and index what is found."""
    end_without_teardown()  # its engine's teardown is CPU a crawl pays for nothing (ending.py)
    from webcrawler.commands.index import run_index
    from webcrawler.engine.loop.outcome import SeedsFailed
    from webcrawler.engine.pipeline.reindex import run_reindex

    seeds = list(flags.pop("seeds") or ())
    if seeds_file is not None:
        seeds += [line.strip() for line in seeds_file if line.strip() and not line.startswith("#")]
    if reindex and seeds:
        raise click.UsageError("--reindex rebuilds the index and crawls nothing: give no --seed")
    settings = _settings(seeds=tuple(seeds), **flags)
    if settings.plan == "auto":
        from webcrawler.recrawl.solve import check_solver

        check_solver()  # ExtraMissing (one line) before the crawl, not at its first plan
    received: list[int] = []  # the signal that stopped the crawl, if one did
    try:
        with _disk_full(settings):
            if reindex:
                click.echo(run_reindex(settings, progress=progress))
                return
            summary, rejected = run_index(settings, progress=progress,
                                          install_signals=lambda stop: _install_signals(
                                              stop, received),
                                          explicit=_explicit(flags))
    except SeedsFailed as exc:
        click.echo(exc.summary)  # what was tried, then the one line (at the CLI's edge)
        raise
    for url in rejected:
        click.echo(f"warning: outside the scope, skipped: {url}", err=True)
    click.echo(summary)
    _exit_if_stopped(received)


@main.command("evaluate-ordering")
@click.option("--importance", default="backlink", show_default=True,
              help="I(P): backlink, pagerank, location, similarity:WORDS, or conditions joined by & "
                   "(e.g. 'similarity:replication&backlink>=3').")
@click.option("--threshold", type=FiniteFloat(), default=None,
              help="G: pages with I(P) >= G are hot (default: about the top 10%; > 0 for similarity).")
@click.option("--orders", default="breadth-first,backlink,pagerank,server-first,random",
              show_default=True, help="Comma-separated virtual crawlers to compare.")
@click.option("--start", multiple=True, help="URL the virtual crawlers start from (default: the first seed).")
@click.option("--out", "out_dir", type=click.Path(path_type=Path), default=Path("ordering-eval"),
              show_default=True, help="Directory for the PNG plots and the CSV of curves.")
@data_dir_option
@db_option
def evaluate_ordering_command(importance: str, threshold: float | None, orders: str,
                              start: tuple[str, ...], out_dir: Path, data_dir: Path | None,
                              db_url: str | None) -> None:
    """Replay the stored crawl in other orders (virtual crawlers) and measure PCS, PST and PBC."""
    from webcrawler.errors import OrderingError
    from webcrawler.evaluate import ORDER_NAMES, evaluate_ordering
    from webcrawler.importance import ImportanceError
    from webcrawler.plots import require_plots

    settings = _settings(data_dir=data_dir, db_url=db_url)
    require_plots()  # a missing extra first: one line before anything is read
    _existing_data(settings)
    _check_database(settings)
    names = [o.strip() for o in orders.split(",") if o.strip()]
    unknown = [o for o in names if o not in ORDER_NAMES]
    if unknown or not names:
        raise click.UsageError(f"unknown order(s) {', '.join(unknown)}: choose from {', '.join(ORDER_NAMES)}")
    try:
        evaluation, text, plots = evaluate_ordering(
            settings.database_url, settings.index_dir, importance, threshold=threshold,
            orders=names, start=list(start), out_dir=out_dir)
    except (ImportanceError, OrderingError):
        raise  # one line and the kind's exit status at the CLI's edge
    except ValueError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(text)
    click.echo(f"\n{evaluation.seconds:.1f} s; wrote {', '.join(str(p) for p in plots)} and "
               f"{out_dir / 'ordering-curves.csv'}")


def _check_database(settings: Settings) -> None:
    """A damaged or unreachable database: one line naming it (_Commands), before any work."""
    from webcrawler.database.schema import check_database

    check_database(settings.database_url)


@contextlib.contextmanager
def _disk_full(settings: Settings) -> Iterator[None]:
    """A full disk met where no StorageFull was raised (a library's own error): StorageFull."""
    from webcrawler.database.storage_errors import StorageFull, is_disk_full

    try:
        yield
    except WebcrawlerError:
        raise
    except Exception as exc:
        if is_disk_full(exc):
            raise StorageFull(settings.data_dir) from None
        raise


def _install_signals(stop: Any, received: list[int] | None = None) -> None:
    def handler(signum: int, _frame: Any) -> None:
        click.echo(f"\n{signal.Signals(signum).name}: stopping after the documents in flight...",
                   err=True)
        if received is not None:
            received.append(signum)
        stop("interrupted")

    signal.signal(signal.SIGINT, handler)
    signal.signal(signal.SIGTERM, handler)


def _exit_if_stopped(received: list[int]) -> None:
    """A crawl stopped by a signal exits as shells expect: 128 + the signal (130 for Ctrl-C),
    after its summary; the next `index` resumes it."""
    if received:
        sys.exit(128 + received[0])


@main.command()
@click.argument("query")
@click.option("--seconds", type=FiniteFloat(1), default=30.0, show_default=True,
              help="Search for at most this long.")
@click.option("--want", type=click.IntRange(1), default=10, show_default=True,
              help="Stop when this many new documents are found.")
@click.option("--from", "start_urls", multiple=True,
              help="Start from this document too (repeatable); without it, from the index.")
@click.option("--max-fetches", type=click.IntRange(1), default=200, show_default=True,
              help="Retrieve at most this many documents.")
@click.option("--threshold", type=click.IntRange(1, 1000), default=300, show_default=True,
              help="Relevance (of 1000) a new document needs to count as found.")
@click.option("--json", "as_json", is_flag=True,
              help="One JSON object a line: results, progress, then the summary.")
@search_options
def search(query: str, seconds: float, want: int, start_urls: tuple[str, ...], max_fetches: int,
           threshold: int, as_json: bool, agents: int | None, **flags: Any) -> None:
    """Real-time search: run QUERY on the index, then crawl the links whose anchor text matches it;
    results stream as they are found (relevance of 1000, title, URL, indexed or new)."""
    from webcrawler.engine.realtime.report import show_event, show_summary
    from webcrawler.engine.realtime.search import RealtimeOptions, run_realtime
    from webcrawler.index import QueryError

    settings = _settings(agents=agents or SEARCH_AGENTS, **flags)
    _existing_data(settings)
    _check_database(settings)
    asked = RealtimeOptions(query, seconds=seconds, want=want, threshold=threshold,
                            max_fetches=max_fetches, start_urls=start_urls)
    stop: list[str] = []
    received: list[int] = []
    _install_signals(stop.append, received)
    try:
        with _disk_full(settings):
            summary = run_realtime(settings, asked, lambda e: _echo(show_event(e, as_json)),
                                   cancelled=lambda: bool(stop), explicit=_explicit(flags))
    except QueryError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(show_summary(summary, as_json))
    _exit_if_stopped(received)


def _echo(line: str | None) -> None:
    if line is not None:
        click.echo(line)


@main.command()
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@data_dir_option
@db_option
def stats(as_json: bool, data_dir: Path | None, db_url: str | None) -> None:
    """Print the database's counts: documents by state, servers, links, failures."""
    from webcrawler.engine.loop.progress import retry_line
    from webcrawler.query_server.recrawl_stats import recrawl_figures, recrawl_lines
    from webcrawler.query_server.sources import Sources
    from webcrawler.query_server.stats import gather_stats

    settings = _settings(data_dir=data_dir, db_url=db_url)
    _existing_data(settings)
    _check_database(settings)  # a database server not answering: one line, not zeros
    with Sources(index_dir=settings.index_dir, db_url=settings.database_url,
                 stats_ttl=0) as sources:
        figures = gather_stats(sources)
        recrawl = recrawl_figures(sources)
    if as_json:
        click.echo(json.dumps(figures.to_json() | {"recrawl": recrawl.to_json()}, indent=2, default=str))
        return
    docs = figures.documents
    click.echo(f"documents  {sum(docs.values())} known: " +
               ", ".join(f"{k} {v}" for k, v in sorted(docs.items())))
    click.echo(f"servers    {figures.servers_known} known, {figures.servers_visited} visited")
    click.echo(f"links      {figures.links}")
    click.echo(f"sitemaps   {figures.sitemaps} read, {figures.sitemap_urls} URLs listed")
    click.echo("failures   " + (", ".join(f"{k} {v}" for k, v in figures.failures.items()) or "none"))
    click.echo("excluded   " + (", ".join(f"{k} {v}" for k, v in figures.exclusions.items()) or "none"))
    click.echo("retried    " + retry_line(figures.retries, figures.recovered,
                                          sum(figures.failures.values())))
    click.echo(f"index      {figures.index_documents} documents, {figures.index_bytes} bytes")
    if figures.last_crawl:
        c = figures.last_crawl
        click.echo(f"last crawl {c.documents} documents, {c.rate_per_hour:.0f}/hour, "
                   f"{c.stop_reason or 'running or killed'}")
        if c.requests_per_second is not None:
            cap = (f" of the cap's {c.fetch_rate:g} ({c.requests_per_second / c.fetch_rate:.0%})"
                   if c.fetch_rate else " (no cap)")
            click.echo(f"  requests {c.requests}, {c.requests_per_second:.2f} a second{cap}")
    for line in recrawl_lines(recrawl):
        click.echo(line)


@main.command()
@data_dir_option
@optimize_option
def optimize(data_dir: Path | None, shard: int | None) -> None:
    """Merge the index (each shard) into one segment: slower to write, fastest to search."""
    import time

    from webcrawler.index import optimize as optimize_index

    settings = _settings(data_dir=data_dir)
    if not settings.index_dir.exists():
        raise click.ClickException(f"no index in {settings.data_dir}: run webcrawler index first")
    started = time.monotonic()
    optimize_index(settings.index_dir, only=shard)
    click.echo(f"index optimized in {time.monotonic() - started:.1f} s")


@main.command()
@click.argument("robots_file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.argument("user_agent")
@click.argument("urls", nargs=-1, required=True)
def robots(robots_file: Path, user_agent: str, urls: tuple[str, ...]) -> None:
    """Check URLs against a robots.txt on disk: `allowed<TAB>URL` or `disallowed<TAB>URL`."""
    from webcrawler.protocol.robots import check_file, format_check

    try:
        results = check_file(robots_file, user_agent, urls)
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None
    click.echo(format_check(results))


@main.command()
@data_dir_option
@db_option
@options(ServeSettings, [f.name for f in fields(ServeSettings)])
def serve(data_dir: Path | None, db_url: str | None, **flags: Any) -> None:
    """Serve the search page and its JSON API (waitress, a production WSGI server)."""
    from webcrawler.commands.index import check_data
    from webcrawler.query_server import serve as run_server

    configuration = serve_configuration({"data_dir": data_dir, "db_url": db_url}, flags)
    settings, options = configuration.crawl.value, configuration.serve.value
    check_data(settings)  # a damaged database or index: one line (_Commands), before serving
    run_server(settings.data_dir, host=options.host, port=options.port,
               db_url=settings.db_url or None, threads=options.threads, **options.app_options())


@main.command()
@click.option("--port", type=click.IntRange(0, 65535), default=5000, show_default=True,
              help="Port of the search page.")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address of the search page.")
@click.option("--seconds", type=FiniteFloat(1), default=60.0, show_default=True,
              help="Crawl for at most this long.")
@click.option("--agents", type=click.IntRange(1, 64), default=8, show_default=True,
              help="Agent processes.")
@click.option("--data-dir", type=click.Path(path_type=Path), default=Path("webcrawler-demo"),
              show_default=True, help="Where the demo's database and index go (wiped each run).")
@click.option("--web-port", type=click.IntRange(0, 65535), default=0,
              help="Port of the demo web's servers (default: any free port).")
@click.option("--serve/--no-serve", default=True, help="Serve the search page after the crawl.")
def demo(port: int, host: str, seconds: float, agents: int, data_dir: Path, web_port: int,
         serve: bool) -> None:
    """Crawl a demo web (the standard library's pydoc pages, served on 127.0.5.x), index it,
    print a summary, then serve the search page until Ctrl-C (a Ctrl-C during the crawl ends
    the crawl early and serves what it found)."""
    from webcrawler.cli.demo import run_demo

    run_demo(data_dir, port=port, seconds=seconds, host=host, agents=agents, serve=serve,
             install_signals=_install_signals, web_port=web_port)

main.add_command(plan_recrawl)

main.add_command(crawl_command)  # the personal-crawler toolkit, and workbench definitions (.json)
main.add_command(workbench_command)  # the Crawler Workbench
register_shard_commands(main, data_dir_option, db_option)  # index shards
main.add_command(agent_scheduler)  # agent hosts through Dask
main.add_command(agent_host)
main.add_command(export)  # the stored crawl out, JSON Lines or WARC
main.add_command(config_command)  # the effective configuration
defaults_in_help(main)  # "(default X)", once, for the options that would show "[default: X]"

if __name__ == "__main__":
    main()
