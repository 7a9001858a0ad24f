"""The ranking reads the links table: a page is found by the words of links to it (other
servers' anchors weighing more than its own server's), and a page many pages link to
ranks above an equal page fewer link to. A real crawl of a small hand-made loopback web,
then `webcrawler index --reindex`, which recounts every page's links after the crawl."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.index import open_searcher
from webcrawler.index.search.prior import factor

HUB, SHOP = "127.0.18.1", "127.0.18.2"


def _web() -> list[Site]:
    hub = {"/": html("Front", "welcome", [(f"http://{SHOP}:{{port}}/x", "zeppelin airship"),
                                          (f"http://{SHOP}:{{port}}/y", "see more"),
                                          ("/p1", "one"), ("/p2", "two")]),
           "/p1": html("One", "first", [(f"http://{SHOP}:{{port}}/y", "see more")]),
           "/p2": html("Two", "second", [(f"http://{SHOP}:{{port}}/y", "see more")])}
    shop = {"/": html("Shop", "shop"),
            "/x": html("Note", "hangar report alpha"),
            "/y": html("Note", "hangar report betas")}
    return [Site(HUB, hub), Site(SHOP, shop)]


def _cli(data: Path, *args: str) -> None:
    command = [sys.executable, "-m", "webcrawler.cli", "index", "--data-dir", str(data),
               "--delay", "0", "--agents", "2", "--no-progress", *args]
    result = subprocess.run(command, env=dict(os.environ), capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]


def test_anchor_text_and_link_prior_change_ranks(tmp_path: Path) -> None:
    sites = _web()
    with LoopbackWeb(sites) as web:
        port = web.url(SHOP, "/").split(":")[2].split("/")[0]
        for site in sites:  # the hub's links name the shop's port, known once it listens
            for path, page in list(site.routes.items()):  # type: ignore[union-attr]
                site.routes[path] = html_with_port(page, port)  # type: ignore[index]
        _cli(tmp_path, "--seed", web.url(HUB, "/"), "--include", r"^http://127\.0\.18\.")
    _cli(tmp_path, "--reindex")
    with open_searcher(tmp_path / "index") as searcher:
        found = searcher.search("zeppelin").hits
        assert found[0].url.endswith("/x")  # only the hub's link to it says "zeppelin"
        hangar = searcher.search("hangar").hits
    # /x and /y say "hangar" alike; three pages link to /y, one to /x
    assert [h.url.rsplit("/", 1)[1] for h in hangar] == ["y", "x"]
    assert hangar[1].score == round(1000 * factor(1, 0) / factor(3, 0))


def html_with_port(page, port: str):  # type: ignore[no-untyped-def]
    """`page` with its links' {port} filled in."""
    return type(page)(page.body.replace("{port}", port), content_type=page.content_type) \
        if "{port}" in page.body else page
