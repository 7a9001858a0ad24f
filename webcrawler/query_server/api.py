"""The JSON search API: /api/search?q=...&n=...&page=...&expand=1, /api/suggest?q=...&n=8.

/api/search answers `{"query", "total", "took_ms", "page", "per_page", "suggestion",
"expansions", "results": [{"rank", "score", "title", "url", "snippet", "type", "site",
"more"}], "facets": {"site": [{"value", "count"}], "type": [...], "language": [...]}}` with
integer scores, 1000 for the best document; `type` is the kind of document (html, pdf,
docx, odt, text); `snippet` is HTML (escaped text with <b> around query words);
`suggestion` is the query with its typos corrected, or null; `expansions` the words the
thesaurus added. Facets count every match, not the page; `more` is the query for "more
from this site" on a site's last result of the page (when the site has more), else null.
/api/suggest answers `{"query", "suggestions": [...]}`, completions of a half-typed
query. A bad query or parameter gets 400 `{"error": message}`; with no index yet, an
empty answer with a "message".
"""

from __future__ import annotations

from flask import Blueprint, current_app, jsonify, request
from flask.typing import ResponseReturnValue

from webcrawler.query_server.queries import check_prefix, more_query, parse_flag, parse_int, run_query
from webcrawler.query_server.sources import NO_INDEX, Sources
from webcrawler.web.payload import BadQuery

bp = Blueprint("api", __name__, url_prefix="/api")

SUGGESTIONS = 8  # completions by default
MAX_SUGGESTIONS = 20


@bp.get("/search")
def search() -> ResponseReturnValue:
    config = current_app.config
    sources: Sources = current_app.extensions["webcrawler.sources"]
    try:
        per_page = parse_int(
            request.args.get("n"), "n", config["PER_PAGE"], 1, config["MAX_PER_PAGE"]
        )
        page = parse_int(request.args.get("page"), "page", 1, 1, config["MAX_PAGE"])
        expand = parse_flag(request.args.get("expand"))
        query, results = run_query(
            sources, request.args.get("q"), page, per_page, expand, config["MAX_QUERY_LENGTH"]
        )
    except BadQuery as error:
        return jsonify(error=str(error)), 400
    if results is None:
        return jsonify(
            query=query,
            total=0,
            took_ms=0.0,
            page=page,
            per_page=per_page,
            suggestion=None,
            expansions=[],
            results=[],
            facets={"site": [], "type": [], "language": []},
            message=NO_INDEX,
        )
    return jsonify(
        query=query,
        total=results.total,
        took_ms=round(results.took_ms, 3),
        page=results.page,
        per_page=results.per_page,
        suggestion=results.suggestion,
        expansions=list(results.expansions),
        results=[
            {
                "rank": hit.rank,
                "score": int(hit.score),
                "title": hit.title,
                "url": hit.url,
                "snippet": hit.snippet,
                "type": hit.kind,
                "site": hit.site,
                "more": more_query(results.query, hit.site) if hit.more else None,
            }
            for hit in results.hits
        ],
        facets={name: [{"value": value, "count": count} for value, count in values]
                for name, values in results.facets.items()},
    )


@bp.get("/suggest")
def suggest() -> ResponseReturnValue:
    config = current_app.config
    sources: Sources = current_app.extensions["webcrawler.sources"]
    try:
        n = parse_int(request.args.get("n"), "n", SUGGESTIONS, 1, MAX_SUGGESTIONS)
        text = check_prefix(request.args.get("q"), config["MAX_QUERY_LENGTH"])
    except BadQuery as error:
        return jsonify(error=str(error)), 400
    return jsonify(query=text, suggestions=sources.suggest(text, n))
