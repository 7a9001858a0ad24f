"""The `webcrawler index` options that say what counts as one document and which kinds are
fetched (registered in webcrawler/cli.py): tracking parameters, document types."""

from __future__ import annotations

from typing import Any

import click


def content_options(command: Any) -> Any:
    """--strip-param (urls.strip_params) and --types (agents/extract.py)."""
    options = [
        click.option("--strip-param", "strip_params", multiple=True,
                     help="A query or path parameter dropped from every URL (tracking, session "
                          "ids; 'utm_*' is a prefix; repeatable; replaces the default list; "
                          "--strip-param '' keeps every parameter)."),
    ]
    for option in reversed(options):
        command = option(command)
    return command
