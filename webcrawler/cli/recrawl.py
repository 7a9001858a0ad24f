"""The `webcrawler index` options of the incremental crawl (registered in webcrawler/cli/main.py)."""

from __future__ import annotations

from typing import Any

import click

from webcrawler.config.kinds import FiniteFloat

# policies.POLICIES, named here so that the CLI starts without numpy
POLICY_NAMES = ("none", "uniform", "adaptive", "buckets")


def recrawl_options(command: Any) -> Any:
    """--incremental, --recrawl, --fetch-rate, --recrawl-share, --keep-responses (docs:
    webcrawler/recrawl/)."""
    options = [
        click.option("--incremental", is_flag=True, default=None,
                     help="Keep crawling for --hours: new URLs and recrawls of stored pages "
                          "as they fall due (WebFountain)."),
        click.option("--recrawl", type=click.Choice(POLICY_NAMES), default=None,
                     help="Recrawl policy of --incremental (default buckets; none = batch "
                          "order, still running for --hours)."),
        click.option("--fetch-rate", type=FiniteFloat(0), default=None,
                     help="Requests per second over all servers, the bandwidth (0 = no cap)."),
        click.option("--recrawl-share", type=FiniteFloat(0, 1), default=None,
                     help="Weight 0..1 of each server's recrawl queue against its new URLs "
                          "(default 0.5)."),
        click.option("--keep-responses", is_flag=True, default=None,
                     help="Store each page's raw response (headers, compressed body) for "
                          "`export --format warc` (--incremental crawls always do)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command
