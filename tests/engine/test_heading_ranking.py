"""Headings are a field the ranking reads: a real crawl of a small loopback site, where two
pages hold a word alike except that one of them holds it in a heading, ranks that one first;
the outbox keeps the headings, so `webcrawler index --reindex` rebuilds them too; a payload
written before headings were kept still reads (without them)."""

from __future__ import annotations

import json
import zlib
from pathlib import Path

from tests.engine.test_link_ranking import _cli
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.engine.pipeline.outbox import pack, unpack
from webcrawler.index import IndexedDocument, open_searcher

SITE = "127.0.18.9"


def _page(title: str, heading: str, body: str) -> Page:
    return Page(f"<!DOCTYPE html><html><head><title>{title}</title></head><body>"
                f"<h2>{heading}</h2><p>{body}</p></body></html>")


def test_a_word_in_a_heading_ranks_its_page_first(tmp_path: Path) -> None:
    routes = {"/": html("Index", "pages", [("/a", "first page"), ("/b", "second page")]),
              "/a": _page("Notes", "Background", "the zeppelin hangar report of the week"),
              "/b": _page("Notes", "Zeppelin hangar", "the background report of the week")}
    with LoopbackWeb([Site(SITE, routes)]) as web:
        _cli(tmp_path, "--seed", web.url(SITE, "/"), "--include", r"^http://127\.0\.18\.9")
    for _build in ("crawled", "rebuilt"):
        with open_searcher(tmp_path / "index") as searcher:
            hits = searcher.search("zeppelin").hits
            assert [h.url.rsplit("/", 1)[1] for h in hits] == ["b", "a"]
            assert hits[1].score < 1000
            background = searcher.search("background").hits
            assert [h.url.rsplit("/", 1)[1] for h in background] == ["a", "b"]
        _cli(tmp_path, "--reindex")


def test_payloads_keep_headings_and_older_payloads_read_without_them() -> None:
    doc = IndexedDocument(7, "http://a.test/x", "Title", "body", "a.test", "en", "html",
                          headings=("One", "Two"))
    assert unpack(pack(doc)) == doc
    older = zlib.compress(json.dumps([7, "http://a.test/x", "Title", "body", "a.test", "en",
                                      "html"]).encode())
    assert unpack(older) == IndexedDocument(7, "http://a.test/x", "Title", "body", "a.test",
                                            "en", "html")
