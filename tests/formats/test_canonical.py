"""Canonical URLs: by tag and by header, inside and outside the scope; a search never shows
two URLs of one document, and the others are kept as its aliases."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from sqlalchemy import select

from tests.engine.conftest import document_states
from webcrawler.commands.index import run_index
from webcrawler.database.schema import aliases, connect, documents
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.index import open_searcher
from webcrawler.settings import Settings


def page(title: str, words: str, canonical: str = "", header: str = "") -> Page:
    link = f'<link rel="canonical" href="{canonical}">' if canonical else ""
    headers = (("Link", f'<{header}>; rel="canonical"'),) if header else ()
    return Page(f"<html><head><title>{title}</title>{link}</head><body><p>{words}</p></body></html>",
                headers=headers)


def test_canonical_by_tag_and_by_header_inside_and_outside_the_scope(tmp_path: Path) -> None:
    routes = {
        "/a?print=1": page("A, printable", "albatross article", canonical="/a"),
        "/a": page("A", "albatross article", canonical="/a"),
        "/b": page("B", "bittern notes", header="/b-main"),
        "/b-main": page("B main", "bittern notes"),
        "/c": page("C", "cormorant essay", canonical="http://127.0.64.99/c"),  # outside
        "/d": page("D", "dunlin survey", canonical="/gone"),  # the canonical is a 404
        "/e": page("E", "egret welcome", canonical="/"),  # the home page, indexed before
    }
    routes["/"] = html("home", "egret welcome", [(p, p) for p in routes])
    settings = Settings(data_dir=tmp_path / "data", agents=1, delay=0.0, hours=0.05,
                        progress_interval=60.0, total_timeout=5.0, include=(r"^http://127\.0\.64\.1",))
    with LoopbackWeb([Site("127.0.64.1", routes)]) as web:
        url = lambda path: web.url("127.0.64.1", path)  # noqa: E731
        run_index(dataclasses.replace(settings, seeds=(url("/"),)), progress=False)
    with open_searcher(settings.index_dir) as searcher:
        found = {words: [hit.url for hit in searcher.search(words).hits]
                 for words in ("albatross", "bittern", "cormorant", "dunlin", "egret")}
    assert found == {"albatross": [url("/a")], "bittern": [url("/b-main")],
                     "cormorant": [url("/c")], "dunlin": [url("/d")], "egret": [url("/")]}
    engine = connect(settings.database_url)
    with engine.connect() as conn:
        paths = dict(conn.execute(select(documents.c.id, documents.c.path)).all())
        pairs = {(paths[a], paths[c]) for a, c in conn.execute(select(aliases)).all()}
        c_detail = conn.execute(select(documents.c.detail).where(documents.c.path == "/c")).scalar()
    engine.dispose()
    assert c_detail == "canonical http://127.0.64.99/c ignored: excluded"
    assert pairs == {("/a?print=1", "/a"), ("/b", "/b-main"), ("/d", "/gone"), ("/e", "/")}
    states = document_states(settings)
    assert states[url("/a?print=1")] == ("fetched", "canonical")
    assert states[url("/e")] == ("fetched", "canonical")
    assert states[url("/gone")] == ("failed", "http-error")
    assert states[url("/d")] == ("fetched", None)  # its canonical is unfetchable: it stays
