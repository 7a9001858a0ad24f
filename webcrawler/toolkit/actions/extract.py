"""Extract pattern matches from visited pages to CSV or JSON Lines.

The Workbench's "extract" operation (Miller and Bharat 1998, section 3), with the
toolkit's patterns (section 2): a `Regexp` or `Tagexp` (or `Wildcard`) finds
regions of each page's HTML, and every region becomes one row: the page's URL,
its depth, the region's offsets, its visible text and its markup. Rows are
written as they are found (an aborted crawl keeps them).

Hostile input: cells are cut at `MAX_CELL` characters; a CSV cell that a
spreadsheet would run as a formula (``=``, ``+``, ``-``, ``@`` first) is
prefixed with ``'``; JSON Lines are written with every character escaped that
JSON requires, so one row is always one line.
"""

from __future__ import annotations

import csv
import html as html_entities
import json
import re
from pathlib import Path
from typing import IO, Any

from webcrawler.errors import ToolkitError
from webcrawler.toolkit.actions.base import PagePredicate, VisitAction
from webcrawler.toolkit.model import Page, Region
from webcrawler.toolkit.patterns import Pattern

FIELDS = ("url", "depth", "pattern", "start", "end", "text", "html")
MAX_CELL = 10_000
MAX_ROWS_PER_PAGE = 10_000
_TAG = re.compile(r"<[^>]*>?")
_HIDDEN = re.compile(r"<(script|style)\b.*?(</\1\s*>|\Z)", re.S | re.I)
_SPACE = re.compile(r"\s+")


class ExtractMatches(VisitAction):
    """``ExtractMatches(pattern, "out.csv")`` (or ``.jsonl``): every match of `pattern` a row."""

    def __init__(self, pattern: Pattern, path: str | Path, when: PagePredicate | None = None,
                 format: str | None = None) -> None:  # noqa: A002 - the user's word for it
        super().__init__(when)
        if not isinstance(pattern, Pattern):  # a str would fail at the first page, in Pattern.find
            raise ToolkitError(f"ExtractMatches needs a Pattern (Regexp, Wildcard or Tagexp), not "
                               f"{type(pattern).__name__}: ExtractMatches(Regexp({pattern!r}), ...)")
        self.pattern = pattern
        self.path = Path(path)
        self.format = format or ("jsonl" if self.path.suffix in (".jsonl", ".json") else "csv")
        if self.format not in ("csv", "jsonl"):
            raise ToolkitError(f"unknown format {self.format!r}: csv or jsonl")
        self.rows = 0
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file: IO[str] = self.path.open("w", encoding="utf-8", newline="")
        self._csv = csv.writer(self._file) if self.format == "csv" else None
        if self._csv is not None:
            self._csv.writerow(FIELDS)

    def handle(self, page: Page) -> None:
        for region in self.pattern.find(page)[:MAX_ROWS_PER_PAGE]:
            self._write(row_for(page, region, repr(self.pattern)))

    def _write(self, row: dict[str, Any]) -> None:
        self.rows += 1
        if self._csv is not None:
            self._csv.writerow([csv_cell(row[name]) for name in FIELDS])
        else:
            self._file.write(json.dumps(row, ensure_ascii=False) + "\n")

    def finish(self) -> str:
        self._file.close()
        return f"{self.rows} matches from {self.done} pages written to {self.path}"


def row_for(page: Page, region: Region, pattern: str) -> dict[str, Any]:
    """One match as a row: where it is and what it says."""
    markup = (page.html or "")[region.start:region.end]
    return {"url": page.url, "depth": page.depth, "pattern": pattern, "start": region.start,
            "end": region.end, "text": visible_text(markup)[:MAX_CELL], "html": markup[:MAX_CELL]}


def visible_text(markup: str) -> str:
    """The words of a piece of HTML: tags dropped, entities decoded, spaces collapsed."""
    words = _TAG.sub(" ", _HIDDEN.sub(" ", markup))
    return _SPACE.sub(" ", html_entities.unescape(words)).strip()


def csv_cell(value: Any) -> Any:
    """A value safe in a spreadsheet: a text that looks like a formula is quoted."""
    if isinstance(value, str):
        value = value.replace("\x00", "")
        if value[:1] in ("=", "+", "-", "@", "\t", "\r"):
            return "'" + value
    return value
