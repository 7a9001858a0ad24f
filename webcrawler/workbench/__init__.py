"""The Crawler Workbench (SPHINX, Miller and Bharat 1998, section 3): define, run, watch and
refine a crawl in the browser, without programming.

A Flask app separate from the read-only query server, since it starts crawls.
It keeps the query server's conventions (web/guard.py: the Host
allow-list, same-origin JSON for changes; errors.py: clean errors, CSP and
security headers; server.py: waitress) and runs each crawl as a child process
in its own process group (crawls.py, runner.py).

    definition.py  the crawl definition (JSON), checked strictly
    timed.py       its patterns: case-insensitive unless asked, each match time-bounded
    build.py       definition -> toolkit Crawler, page predicate, visit action
    runner.py      one crawl, its events as JSON lines (a child process)
    crawls.py      the running and finished crawls, bounded by the operator
    eventlog.py    a crawl's events, spilled to its folder (none kept in memory)
    access.py      the token every request needs when there is one
    api.py         the JSON API and the server-sent event stream
    page.py        the page: form, graph, outline, counters, results
    openapi.py     /api/openapi.json
    remote.py      relocation: a definition run on another workbench
    (its commands, `webcrawler workbench` and `webcrawler crawl definition.json [--on URL]`,
    are webcrawler/cli/workbench.py)

    app.py         create_app(data_dir, **options) -> Flask, the operator's options, the
                   crawl settings (the data directory's, deny_private unless told)

The package itself imports nothing: `webcrawler crawl` and the crawl processes
need neither Flask nor the query server.
"""

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    """`create_app` on first use (it brings Flask and the query server's helpers along)."""
    if name == "create_app":
        from webcrawler.workbench.app import create_app

        return create_app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
