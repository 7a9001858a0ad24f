"""The sharded index's commands: `index-writer`, and the options `index` and `optimize`
take for shards (docs/scale-out.md, "Index shards").

`webcrawler index-writer --shard K --shards S` is one shard's writer: it needs the
database (`--db`, shared by every host) and its shard's directory, runs until
interrupted (or, `--until-empty`, until nothing waits for it), shows its progress on
stderr and its summary on stdout. Registered on the CLI group by `cli/main.py`.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable
from typing import Any

import click

PROGRESS_SECONDS = 2.0


def register_shard_commands(group: click.Group, data_dir_option: Callable, db_option: Callable) -> None:
    """Add `index-writer` to the CLI group, with the group's --data-dir and --db options."""
    group.add_command(db_option(data_dir_option(_index_writer)))


@click.command("index-writer")
@click.option("--shard", type=click.IntRange(0), required=True, help="The shard this writer owns (0..S-1).")
@click.option("--shards", type=click.IntRange(1, 64), required=True, help="How many shards the index has.")
@click.option("--until-empty", is_flag=True, help="Stop when nothing waits for this shard.")
@click.option("--progress/--no-progress", default=True, help="Show progress on stderr.")
def _index_writer(shard: int, shards: int, until_empty: bool, progress: bool, **flags: Any) -> None:
    """Index one shard of a sharded index from the shared database's outbox."""
    from webcrawler.config.options import crawl_settings
    from webcrawler.database.schema import check_database
    from webcrawler.engine.pipeline.shard_writer import run_shard_writer

    if shard >= shards:
        raise click.UsageError(f"--shard must be one of 0..{shards - 1}")
    settings = crawl_settings(flags)
    if not settings.data_dir.is_dir():  # a mistyped --data-dir: never a new, empty crawl
        raise click.ClickException(f"no data directory {settings.data_dir}: give the one the "
                                   "shard's index lives in (--data-dir or WEBCRAWLER_DATA)")
    check_database(settings.database_url)
    stopping: list[int] = []

    def stop(signum: int, _frame: Any) -> None:
        stopping.append(signum)

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    summary = run_shard_writer(settings.index_dir, settings.database_url, shard, shards,
                               lambda: bool(stopping), until_empty=until_empty,
                               report=_reporter() if progress else None)
    click.echo(str(summary))


def _reporter() -> Callable[[Any], None]:
    """A progress callback that writes a line at most every PROGRESS_SECONDS."""
    last = [0.0]

    def report(summary: Any) -> None:
        if time.monotonic() - last[0] >= PROGRESS_SECONDS:
            last[0] = time.monotonic()
            print(summary, file=sys.stderr)

    return report


def optimize_option(command: Any) -> Any:
    return click.option("--shard", type=click.IntRange(0), default=None,
                        help="Of a sharded index: only this shard (on the host that writes it).")(command)
