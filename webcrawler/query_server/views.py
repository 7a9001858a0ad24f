"""The HTML pages: the search form (/) and the results (/search), as in the paper's Figure 3.

Results are ranked with their relevance as a four-digit number, 1000 for the
best document (the real-time page prints the same format), then the title (or
the URL when there is none) linking to the document, its URL and a snippet with
the query words in bold; above them a "Did you mean" for a misspelled query and
the words the thesaurus added. Everything shown is escaped by the templates; only
the index's snippet, already HTML-safe, is marked safe. A bad query is answered
with a message and 400. The search box's script (/search.js: completions, `/` to
focus, arrow keys) is a file of the templates, run under the page's CSP nonce.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from flask import Blueprint, current_app, render_template, request, send_from_directory
from flask.typing import ResponseReturnValue
from markupsafe import Markup

from webcrawler.query_server.queries import (
    BadQuery,
    active_filters,
    more_query,
    parse_flag,
    parse_int,
    run_query,
    with_operator,
    without_operator,
)
from webcrawler.query_server.sources import NO_INDEX, Sources
from webcrawler.query_server.stats import current_stats

bp = Blueprint("views", __name__)


@bp.get("/")
def home() -> ResponseReturnValue:
    stats = current_stats()
    notice = None if stats.index else NO_INDEX
    return render_template("index.html", stats=stats, notice=notice, query="", expand=False,
                           placeholder=_sources().placeholder())


@bp.get("/search.js")
def script() -> ResponseReturnValue:
    return send_from_directory(current_app.template_folder, "search.js",  # type: ignore[arg-type]
                               mimetype="text/javascript", max_age=300)


def _sources() -> Sources:
    return current_app.extensions["webcrawler.sources"]


@bp.get("/search")
def search() -> ResponseReturnValue:
    config = current_app.config
    sources = _sources()
    raw = request.args.get("q", "")
    expand = parse_flag(request.args.get("expand"))
    context = {"query": raw, "expand": expand, "results": None, "notice": None, "error": None,
               "placeholder": sources.placeholder()}
    try:
        page = parse_int(request.args.get("page"), "page", 1, 1, config["MAX_PAGE"])
        query, results = run_query(
            sources, raw, page, config["PER_PAGE"], expand, config["MAX_QUERY_LENGTH"]
        )
    except BadQuery as error:
        context["error"] = str(error)
        if len(raw) > config["MAX_QUERY_LENGTH"]:
            context["query"] = ""  # do not echo ten thousand characters back into the form
        return render_template("search.html", **context), 400
    context.update(query=query, results=results, notice=NO_INDEX if results is None else None)
    if results is not None:
        context["pages"] = page_numbers(results.total, page, results.per_page, config["MAX_PAGE"])
        context["last_page"] = last_page(results.total, results.per_page, config["MAX_PAGE"])
    return render_template("search.html", **context)


def last_page(total: int, per_page: int, max_page: int) -> int:
    return max(1, min(max_page, -(-total // per_page)))


def page_numbers(total: int, page: int, per_page: int, max_page: int, width: int = 9) -> list[int]:
    """The page numbers to offer: a window of `width` pages around `page`."""
    last = last_page(total, per_page, max_page)
    first = max(1, min(page - width // 2, last - width + 1))
    return list(range(first, min(last, first + width - 1) + 1))


@bp.app_template_filter("relevance")
def relevance(score: int) -> str:
    """A score as the paper prints it: four digits, 1000 for the best document."""
    return f"{max(0, min(1000, int(score))):04d}"


@bp.app_template_filter("link_target")
def link_target(url: str) -> str | None:
    """`url` when it is safe to link to (http or https), else None (shown as text only)."""
    try:
        scheme = urlsplit(url).scheme.lower()
    except ValueError:
        return None
    return url if scheme in ("http", "https") else None


@bp.app_template_filter("snippet")
def snippet(html: str) -> Markup:
    """The index's snippet, which is escaped text with <b> around query words."""
    return Markup(html)


@bp.app_template_filter("with_operator")
def add_operator(query: str, operator: str, value: str) -> str:
    """The query of a facet value's link (`queries.with_operator`)."""
    return with_operator(query, operator, value)


@bp.app_template_filter("more_from_site")
def more_from_site(query: str, site: str) -> str:
    """The query of a "more from this site" link (`queries.more_query`)."""
    return more_query(query, site)


@bp.app_template_filter("active_filters")
def filters_of(query: str) -> list[tuple[str, str]]:
    """The facet filters the query holds (`queries.active_filters`)."""
    return active_filters(query)


@bp.app_template_filter("without_operator")
def remove_operator(query: str, operator: str) -> str:
    """The query of a filter's remove control (`queries.without_operator`)."""
    return without_operator(query, operator)
