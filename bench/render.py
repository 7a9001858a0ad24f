"""What --render costs: the shell heuristic on every page of the test web, and a render.

    python -m bench.render [--pages 30] [--json bench/results/render.json]

1. `agents/shell.py`'s heuristic on the documentation sites of the test web (real pages:
   Sphinx, DocBook and asciidoc output, every one with text of its own): how many it would
   render under `--render auto` (each one a false positive) and what the check costs a page.
2. An agent's `Fetcher` retrieving script shells from a loopback server (their text comes
   from a script and a JSON fetch), with `--render never` and `always`: wall time a page,
   and the browser's resident memory after the run.

Needs the documentation packages for part 1 (`bash /work/shared/testweb/testweb.sh install`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.common import publish, table  # noqa: E402
from bench.quality import pages  # noqa: E402
from webcrawler.agents.charset import decode  # noqa: E402
from webcrawler.agents.fetch import Fetcher  # noqa: E402
from webcrawler.agents.parse import parse_html  # noqa: E402
from webcrawler.agents.shell import looks_like_shell  # noqa: E402
from webcrawler.demoweb.server import LoopbackWeb, Page, Site  # noqa: E402
from webcrawler.protocol.messages import AgentConfig, Document, Retrieve  # noqa: E402

ADDRESS = "127.0.72.1"
SHELL = ("<!DOCTYPE html><html><head><title>App</title></head><body><div id=\"root\"></div>"
         "<script src=\"/app.js\"></script></body></html>")
APP = ("fetch('/words.json').then(r => r.json()).then(w => {"
       " document.getElementById('root').innerHTML = '<h1>' + w.title + '</h1><p>' + w.text"
       " + '</p>'; });")


def heuristic() -> tuple[int, int, float]:
    """(pages, pages flagged as shells, microseconds a page for the check)."""
    flagged, spent, found = 0, 0.0, pages()
    for _site, path in found:
        html = decode(path.read_bytes(), "text/html")[0]
        text = parse_html(html, path.as_uri()).text
        started = time.perf_counter()
        flagged += looks_like_shell(html, text)
        spent += time.perf_counter() - started
    return len(found), flagged, spent / max(1, len(found)) * 1e6


def rendering(count: int) -> list[tuple[str, float, str, float]]:
    """(mode, ms a page, words found in the first page, browser MB) for never and always."""
    words = " ".join(f"word{i}" for i in range(300))
    routes = {"/app.js": Page(APP, content_type="application/javascript"),
              "/words.json": Page(json.dumps({"title": "An app", "text": words}),
                                  content_type="application/json"),
              **{f"/p{i}": Page(SHELL) for i in range(count + 1)}}
    rows = []
    with LoopbackWeb([Site(ADDRESS, routes)]) as web:
        for mode in ("never", "always"):
            with Fetcher(AgentConfig(render=mode, total_timeout=30.0)) as fetcher:
                # robots: what the engine sends with a page to render (no robots.txt: 404)
                first = fetcher.retrieve(Retrieve(0, web.url(ADDRESS, "/p0"), robots=(404, "")))
                started = time.perf_counter()
                for i in range(1, count + 1):
                    fetcher.retrieve(Retrieve(i, web.url(ADDRESS, f"/p{i}"), robots=(404, "")))
                took = (time.perf_counter() - started) / count * 1000
                renderer = fetcher.renderer
                resident = renderer.resident_bytes() / 2**20 if renderer else 0.0
                text = first.text if isinstance(first, Document) else ""
                rows.append((mode, took, f"{len(text.split())} words", resident))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pages", type=int, default=30)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    total, flagged, micros = heuristic()
    rows = rendering(args.pages)
    body = (f"The shell heuristic on the test web's {total:,} documentation pages: {flagged} "
            f"flagged as script shells (rendered under `--render auto`), {micros:.0f} µs a "
            f"page for the check (every page flagged has fewer than 50 words and a script: "
            f"short alias pages, Sphinx's search page, written by its script indeed).\n\n"
            f"A script shell (its 300 words written by a script from "
            f"a JSON fetch), retrieved {args.pages} times by one agent from a loopback "
            f"server, after a first page that starts the browser:\n\n"
            + table(["--render", "ms a page", "text of the page", "browser MB after"],
                    [(mode, ms, text, mb) for mode, ms, text, mb in rows]))
    never, always = rows[0][1], rows[1][1]
    publish("Rendering script pages (--render)", body, args.json,
            headline=f"{always:.0f} ms a rendered page against {never:.1f} ms fetched; "
                     f"{flagged} of {total:,} ordinary pages taken for shells",
            goal="auto renders under 1% of ordinary pages", met=flagged * 100 < total)


if __name__ == "__main__":
    main()
