"""The `webcrawler index` options that say what counts as one document and which kinds are
fetched (registered in webcrawler/cli/main.py): tracking parameters, sitemaps, document types,
near-duplicates, main content, rendering."""

from __future__ import annotations

from typing import Any

import click

from webcrawler.config.kinds import FiniteFloat
from webcrawler.protocol.messages import DOCUMENT_TYPES


def content_options(command: Any) -> Any:
    """--strip-param (urls.strip_params), --sitemaps (engine/loop/sitemaps.py), --types
    (agents/extract.py), --near-duplicates (engine/loop/near_duplicates.py) and
    --main-content/--all-text (agents/parse.py) and --render (agents/render.py)."""
    options = [
        click.option("--strip-param", "strip_params", multiple=True,
                     help="A query or path parameter dropped from every URL (tracking, session "
                          "ids; 'utm_*' is a prefix; repeatable; replaces the default list; "
                          "--strip-param '' keeps every parameter)."),
        click.option("--sitemaps/--no-sitemaps", default=None,
                     help="Read each server's sitemaps: robots.txt's Sitemap: lines, else "
                          "/sitemap.xml (default: on)."),
        click.option("--near-duplicates", type=FiniteFloat(0, 1), default=None,
                     help="Resemblance (0..1) of a page's text to an indexed page from which it "
                          "is stored as a near-duplicate, not indexed (default 0.8; 0: off)."),
        click.option("--main-content/--all-text", "main_content", default=None,
                     help="Index each page's main content, its navigation, sidebars, headers and "
                          "footers dropped, or all its text (default: main content)."),
        click.option("--render", type=click.Choice(["never", "auto", "always"]), default=None,
                     help="Run pages' scripts in headless Chromium before indexing them: auto, "
                          "pages that look like script shells; always, every HTML page "
                          "(default never; needs webcrawler-search[render] and Debian's chromium)."),
        click.option("--types", callback=_types, default=None,
                     help=f"Kinds of document fetched and indexed, comma-separated "
                          f"(default {','.join(DOCUMENT_TYPES)})."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _types(_ctx: Any, param: Any, value: str | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    kinds = tuple(dict.fromkeys(k.strip().lower() for k in value.split(",") if k.strip()))
    unknown = [k for k in kinds if k not in DOCUMENT_TYPES]
    if unknown or not kinds:
        raise click.BadParameter(f"{', '.join(unknown) or 'nothing'}: choose from "
                                 f"{', '.join(DOCUMENT_TYPES)}", param=param)
    return kinds
