"""`webcrawler export`: the click command (registered in webcrawler/cli/main.py)."""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click

log = logging.getLogger(__name__)


@click.command("export")
@click.option("--format", "fmt", type=click.Choice(["jsonl", "warc"]), default="jsonl", show_default=True,
              help="JSON Lines (one document a line) or WARC (the stored responses, gzipped records).")
@click.option("--data-dir", type=click.Path(path_type=Path), default=None,
              help="Where the database lives (default ./webcrawler-data, or $WEBCRAWLER_DATA).")
@click.option("--db", "db_url", default=None,
              help="SQLAlchemy database URL (default: SQLite in the data dir; $WEBCRAWLER_DB).")
@click.option("--output", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Write here instead of stdout.")
def export(fmt: str, data_dir: Path | None, db_url: str | None, output: Path | None) -> None:
    """Every stored document, one record each, to stdout or --output (streamed)."""
    from sqlalchemy.exc import OperationalError

    from webcrawler.config.options import crawl_settings
    from webcrawler.database.schema import check_database
    from webcrawler.export.records import read_records
    from webcrawler.export.writers import write_jsonl, write_warc
    from webcrawler.query_server.readonly import open_readonly

    settings = crawl_settings({"data_dir": data_dir, "db_url": db_url})
    _check_exists(settings.database_url)
    check_database(settings.database_url)
    engine = open_readonly(settings.database_url)
    missing = [0]
    try:
        with engine.connect() as conn, _opened(output, binary=fmt == "warc") as out:
            records = read_records(conn, with_responses=fmt == "warc")
            count = (write_warc(_counting_missing(records, missing), out) if fmt == "warc"
                     else write_jsonl(records, out))
    except OperationalError as error:
        raise click.ClickException(f"cannot read the database: {error.orig}") from None
    finally:
        engine.dispose()
    click.echo(f"exported {count} documents as {fmt}" + (f" to {output}" if output else ""), err=True)
    if missing[0]:
        click.echo(f"warning: {missing[0]} fetched documents have no kept response, only a metadata "
                   "record: crawl with --keep-responses (or --incremental) to keep responses", err=True)


def _counting_missing(records: Iterator[Any], missing: list[int]) -> Iterator[Any]:
    """The records, counting in missing[0] the fetched documents whose response was not kept."""
    from webcrawler.database.states import State
    for record in records:
        if record.response is None and record.state == State.FETCHED:
            missing[0] += 1
        yield record


def _check_exists(url: str) -> None:
    from sqlalchemy.engine import make_url

    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite" and parsed.database and not Path(parsed.database).is_file():
        raise click.ClickException(f"no crawl to export: {parsed.database} does not exist")


@contextlib.contextmanager
def _opened(output: Path | None, binary: bool) -> Iterator[Any]:
    if output is None:
        yield sys.stdout.buffer if binary else sys.stdout
        return
    with open(output, "wb" if binary else "w", encoding=None if binary else "utf-8") as out:
        yield out
