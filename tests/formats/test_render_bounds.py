"""Rendering is bounded per page like fetching (issue 37, item 6).

One crawl under `--max-bytes 200000 --agent-memory-mb 400` renders three script pages: one
whose script appends text without end (megabytes of it), one whose script takes 640 MB of
array buffers before it writes its text (past the agent's budget once the browser counts),
and a calm one that shows rendering works within those bounds.
"""

from __future__ import annotations

from pathlib import Path

from webcrawler.commands.index import run_index
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.index import open_searcher
from webcrawler.settings import Settings

SITE = "127.0.76.1"


def shell(title: str, words: str, script: str) -> Page:
    return Page(f"<!DOCTYPE html><html><head><title>{title}</title></head><body><p>{words}</p>"
                f"<div id=\"root\"></div><script>const root = document.getElementById('root');"
                f"{script}</script></body></html>")


ROUTES = {
    "/": html("Home", "start", [("/endless", "endless"), ("/hungry", "hungry"),
                                ("/calm", "calm")]),
    "/endless": shell("Endless", "a page of few words about otters",
                      "const chunk = 'yak '.repeat(30000);"
                      "for (let i = 0; i < 20; i++) root.appendChild(document.createTextNode(chunk));"
                      "setInterval(() => root.appendChild(document.createTextNode(chunk)), 1);"),
    "/hungry": shell("Hungry", "a page of few words about weasels",
                     "const kept = [];"
                     "for (let i = 0; i < 40; i++) kept.push(new Uint8Array(16 << 20).fill(i + 1));"
                     "root.textContent = 'the script wrote of hippos after ' + kept.length;"),
    "/calm": shell("Calm", "a page of few words", "root.textContent = 'the script wrote of herons';"),
}


def test_rendered_text_and_the_browsers_memory_are_within_the_agents_bounds(
        tmp_path: Path) -> None:
    with LoopbackWeb([Site(SITE, ROUTES)]) as web:
        settings = Settings(data_dir=tmp_path, agents=1, delay=0.0, hours=0.05,
                            progress_interval=60.0, total_timeout=30.0, render="auto",
                            render_timeout=10.0, max_bytes=200_000, agent_memory_mb=400,
                            seeds=(web.url(SITE, "/"),))
        run_index(settings, progress=False)
    with open_searcher(settings.index_dir) as searcher:
        def found(words: str) -> list[str]:
            return [hit.url.rsplit("/", 1)[1] for hit in searcher.search(words).hits]

        assert found("herons") == ["calm"]  # rendering works within these bounds
        assert found("otters") == ["endless"]  # indexed as fetched...
        assert found("yak") == []  # ...its megabytes of script text refused, as a body's would be
        assert found("hippos") == []  # the browser was ended past the agent's budget
