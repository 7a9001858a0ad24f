"""--render: pages whose scripts write their text are rendered in Debian's headless Chromium
(Playwright, no downloaded browser), inside the agent, bounded in time, and the browser
reaches nothing but the page's own server.

One loopback site holds a script shell (its text comes from /app.js and /words.json), a
page of plain text that carries a script too, and a shell whose script never yields; the
shell also asks another loopback server for a script, a picture and a fetch. What the
servers' access logs saw tells what was rendered and what the browser asked for.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.test_extras import webcrawler_without
from webcrawler.agents.render import require_renderer
from webcrawler.agents.shell import looks_like_shell
from webcrawler.commands.index import run_index
from webcrawler.config.kinds import ConfigError
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.errors import ExtraMissing
from webcrawler.index import open_searcher
from webcrawler.settings import Settings

SITE, OTHER = "127.0.71.1", "127.0.71.2"
SHELL = Page(
    "<!DOCTYPE html><html><head><title>Shell</title></head><body><div id=\"root\"></div>"
    "<script src=\"/app.js\"></script>"
    f"<script src=\"http://{OTHER}:{{port}}/tracker.js\"></script>"
    f"<img src=\"http://{OTHER}:{{port}}/pixel.gif\"></body></html>")
APP = Page(
    "fetch('/words.json').then(r => r.json()).then(w => {"
    " document.getElementById('root').innerHTML = '<h1>' + w.title + '</h1><p>' + w.text + '</p>'"
    " + '<a href=\"/written\">written link</a>'; });"
    f"fetch('http://{OTHER}:{{port}}/steal').catch(() => 0);",
    content_type="application/javascript")
WORDS = Page('{"title": "Zeppelin hangar", "text": "a marmalade zeppelin in its hangar"}',
             content_type="application/json")
PLAIN = Page("<html><head><title>Plain</title></head><body><p>"
             + "the plain page tells of quinces and their orchard " * 10
             + "</p><script src=\"/counter.js\"></script></body></html>")
LOOP = Page("<html><body><div id=\"app\"></div><script>setTimeout(() => { while (true) {} }, 10);"
            "document.getElementById('app').textContent = 'never seen';</script></body></html>")


def routes(port: int) -> dict[str, Page]:
    pages = {"/shell": SHELL, "/app.js": APP, "/words.json": WORDS, "/plain": PLAIN,
             "/counter.js": Page("var n = 1;", content_type="application/javascript"),
             "/loop": LOOP, "/written": html("Written", "a page only a script links to, of kumquats")}
    pages = {path: dataclasses.replace(page, body=str(page.body).replace("{port}", str(port)))
             for path, page in pages.items()}
    pages["/"] = html("Home", "start", [("/loop", "loop"), ("/shell", "shell"),
                                        ("/plain", "plain")])
    return pages


SUMMARIES: dict[str, str] = {}


def crawl(tmp_path: Path, render: str) -> tuple[Settings, list[str], list[str]]:
    """Crawl the site under `render`; the settings, the site's paths and the other server's
    (the summary in `SUMMARIES`)."""
    with LoopbackWeb([Site(OTHER, {})]) as other:
        port = int(other.name(OTHER).rsplit(":", 1)[1])
        with LoopbackWeb([Site(SITE, routes(port))]) as web:
            settings = Settings(data_dir=tmp_path / render, agents=1, delay=0.0, hours=0.05,
                                progress_interval=60.0, total_timeout=20.0, render=render,
                                render_timeout=4.0, seeds=(web.url(SITE, "/"),))
            SUMMARIES[render] = run_index(settings, progress=False)[0]
            web.log.settle()
            paths = web.log.paths()
        other.log.settle()
        return settings, paths, other.log.paths()


def words(settings: Settings, query: str) -> list[str]:
    with open_searcher(settings.index_dir) as searcher:
        return [hit.url.rsplit("/", 1)[1] for hit in searcher.search(query).hits]


def test_auto_renders_the_shell_only_and_goes_on_past_a_script_that_never_ends(
        tmp_path: Path) -> None:
    settings, paths, elsewhere = crawl(tmp_path, "auto")
    assert words(settings, "marmalade zeppelin") == ["shell"]
    assert words(settings, "quinces") == ["plain"]
    assert "/app.js" in paths and "/words.json" in paths
    assert "/counter.js" not in paths  # the page of text was not rendered
    assert "/written" in paths  # a link the script wrote is followed
    assert elsewhere == []  # no script, picture or fetch reached another server
    assert words(settings, "kumquats") == ["written"]
    assert "rendered             1 (their scripts ran in Chromium)" in SUMMARIES["auto"]


def test_never_leaves_the_shell_empty(tmp_path: Path) -> None:
    settings, paths, _ = crawl(tmp_path, "never")
    assert words(settings, "marmalade zeppelin") == []
    assert "/app.js" not in paths and "/written" not in paths
    assert "rendered" not in SUMMARIES["never"]


def test_always_renders_the_page_of_text_too(tmp_path: Path) -> None:
    _, paths, elsewhere = crawl(tmp_path, "always")
    assert "/counter.js" in paths and elsewhere == []
    # home, shell, plain, written (the loop's script never ends: not rendered)
    assert "rendered             4 (their scripts ran in Chromium)" in SUMMARIES["always"]


def test_what_looks_like_a_shell() -> None:
    text = "word " * 60
    assert looks_like_shell('<div id="root"></div><script src="/a.js"></script>', "")
    assert looks_like_shell("<div id=app></div><script></script>", text)  # an empty mount point
    assert looks_like_shell("<noscript>You need to enable JavaScript to run this app."
                            "</noscript><script></script>", text)
    assert not looks_like_shell("<script></script><p>...</p>", text)  # text, and no mount point
    assert not looks_like_shell('<div id="root"><p>served</p></div><script></script>', text)
    assert not looks_like_shell("<p>short</p>", "short")  # no script: nothing to render


def test_a_render_that_cannot_run_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="render = 'sometimes' .*: choose from never, auto, always"):
        require_renderer("sometimes")
    with pytest.raises(ExtraMissing, match="apt-get install chromium"):
        require_renderer("auto", str(tmp_path / "no-chromium"))
    done = webcrawler_without("playwright", "index", "--data-dir", str(tmp_path / "d"), "--seed",
                              "http://127.0.71.9:9/", "--render", "auto", "--no-progress")
    assert done.returncode == 1
    assert done.stderr == ("Error: --render auto needs playwright, which is not installed: "
                           "pip install 'webcrawler-search[render]'\n")
    assert not (tmp_path / "d").exists()  # refused before anything was written
