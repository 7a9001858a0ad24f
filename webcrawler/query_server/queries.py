"""What users type, checked before it reaches the index.

`check_query` turns the raw `q` parameter into a query the index may parse,
or raises `BadQuery` with a message fit to show on the page. It never
rejects a query for looking like markup: that is only text, escaped when shown.
`parse_int` does the same for numeric parameters (page, n), and `run_query`
checks a query and runs it, turning the index's QueryError into BadQuery.
"""

from __future__ import annotations

import re
import unicodedata

from webcrawler.index import QueryError, SearchResults
from webcrawler.query_server.sources import Sources
from webcrawler.web.payload import BadQuery

# Whitespace controls become spaces; any other control character (or lone surrogate) is refused.
_WHITESPACE = re.compile(r"[\t\n\r\f\v\u0085\u2028\u2029]+")


def check_query(raw: str | None, max_length: int) -> str:
    """The query to run: whitespace tidied, checked for length and control characters."""
    text = _WHITESPACE.sub(" ", raw or "").strip()
    if not text:
        raise BadQuery("Type one or more words to search for.")
    if len(text) > max_length:
        raise BadQuery(
            f"That query is {len(text):,} characters long; the limit is {max_length:,}. "
            "A few well-chosen words work best."
        )
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text):
        raise BadQuery("The query contains control characters; please retype it.")
    if text.count('"') % 2:
        raise BadQuery('The query has an unbalanced quote: close each "quoted phrase".')
    return text


def check_prefix(raw: str | None, max_length: int) -> str:
    """A half-typed query for autocomplete: required (may be empty), whitespace kept at
    the end (a space after the last word means it is finished)."""
    if raw is None:
        raise BadQuery("q is required: the start of a query to complete.")
    text = _WHITESPACE.sub(" ", raw).lstrip()
    if len(text) > max_length:
        raise BadQuery(f"q is {len(text):,} characters long; the limit is {max_length:,}.")
    if any(unicodedata.category(ch) in ("Cc", "Cs") for ch in text):
        raise BadQuery("q contains control characters.")
    return text


def parse_int(raw: str | None, name: str, default: int, low: int, high: int) -> int:
    """`raw` as an int in [low, high]; `default` when absent or empty."""
    if raw is None or raw.strip() == "":
        return default
    try:
        value = int(raw.strip(), 10)
    except ValueError:
        raise BadQuery(f"{name} must be a whole number from {low} to {high}.") from None
    if not low <= value <= high:
        raise BadQuery(f"{name} must be a whole number from {low} to {high}.")
    return value


def parse_flag(raw: str | None) -> bool:
    """A checkbox or API flag: "1", "true", "on", "yes" mean True."""
    return (raw or "").strip().lower() in ("1", "true", "on", "yes")


def run_query(
    sources: Sources, raw: str | None, page: int, per_page: int, expand: bool, max_length: int
) -> tuple[str, SearchResults | None]:
    """(the checked query, its results); results are None when there is no index yet.
    Raises BadQuery for anything the user should retype, including what the index rejects."""
    query = check_query(raw, max_length)
    try:
        return query, sources.search(query, page=page, per_page=per_page, expand=expand)
    except QueryError as error:
        raise BadQuery(str(error) or "The index could not understand that query.") from None


def more_query(query: str, site: str) -> str:
    """The query of a "more from this site" link: the query narrowed to `site`."""
    return f"{query} site:{site}"


FILTER_OPERATORS = ("site", "type", "lang")  # the facets' operators, as the page lists them


def active_filters(query: str) -> list[tuple[str, str]]:
    """(operator, value) of each facet filter the query holds, in the page's order."""
    found: dict[str, str] = {}
    for part in query.split():
        operator, colon, value = part.partition(":")
        if colon and value and operator.lower() in FILTER_OPERATORS:
            found[operator.lower()] = value  # the last one given, as index.words.query.parse reads it
    return [(operator, found[operator]) for operator in FILTER_OPERATORS if operator in found]


def without_operator(query: str, operator: str) -> str:
    """The query with its `operator:` filter removed (what a filter's remove control links to)."""
    return " ".join(part for part in query.split() if not part.lower().startswith(operator + ":"))


def with_operator(query: str, operator: str, value: str) -> str:
    """The query of a facet's link: the query with `operator:value` (replacing one given)."""
    return f"{without_operator(query, operator)} {operator}:{value}".lstrip()
