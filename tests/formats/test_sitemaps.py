"""Sitemaps: pages that only sitemaps name are found (index, gzip, XML, plain text), through
robots.txt's Sitemap: lines or /sitemap.xml, inside the scope and the protocol's limits."""

from __future__ import annotations

import dataclasses
import gzip
import json
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.cli_runner import run_cli
from tests.engine.conftest import document_states
from webcrawler.agents import sitemap
from webcrawler.commands.index import run_index
from webcrawler.database.schema import connect, documents
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.settings import Settings

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def urlset(urls: list[str]) -> str:
    entries = "".join(f"<url><loc>{u}</loc><lastmod>2024-05-01</lastmod></url>" for u in urls)
    return f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="{NS}">{entries}</urlset>'


def index(urls: list[str]) -> str:
    entries = "".join(f"<sitemap><loc>{u}</loc></sitemap>" for u in urls)
    return f'<?xml version="1.0"?><sitemapindex xmlns="{NS}">{entries}</sitemapindex>'


def hidden(n: int) -> Page:
    return html(f"hidden page {n}", f"only a sitemap names page{n}")


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", agents=2, delay=0.0, hours=0.05,
                    progress_interval=60.0, total_timeout=5.0)


def test_sitemap_only_pages_are_found_through_an_index_gzip_and_text(settings) -> None:
    routes: dict[str, Page] = {"/": html("home", "no links to the hidden pages")}
    routes.update({f"/hidden/{n}": hidden(n) for n in range(1, 10)})
    web_routes = routes
    robots = "User-agent: *\nDisallow: /hidden/9\nSitemap: /index.xml\n"
    other: dict[str, Page] = {"/": html("other home", "nothing linked"),
                              "/deep/a": html("deep a", "listed in sitemap.xml")}
    with LoopbackWeb([Site("127.0.63.1", web_routes, robots_txt=robots),
                      Site("127.0.63.2", other, robots_txt="User-agent: *\nAllow: /\n")]) as web:
        base = web.url("127.0.63.1", "")
        web_routes["/index.xml"] = Page(index([f"{base}/maps/pages.xml.gz", "/maps/more.txt"]),
                                        content_type="application/xml")
        web_routes["/maps/pages.xml.gz"] = Page(
            gzip.compress(urlset([f"{base}/hidden/{n}?utm_source=map" for n in range(1, 6)]
                                 + ["http://elsewhere.invalid/out"]).encode()),
            content_type="application/gzip")
        web_routes["/maps/more.txt"] = Page("".join(f"{base}/hidden/{n}\n" for n in range(6, 10)),
                                            content_type="text/plain")
        other["/sitemap.xml"] = Page(urlset([web.url("127.0.63.2", "/deep/a")]),
                                     content_type="text/xml")
        run = dataclasses.replace(settings, seeds=(f"{base}/", web.url("127.0.63.2", "/")),
                                  include=(r"^http://127\.0\.63\.",))
        summary, _ = run_index(run, progress=False)
        states = document_states(settings)
        hits = web.log.paths(web.name("127.0.63.1"))
    for n in range(1, 9):
        assert states[f"{base}/hidden/{n}"][0] == State.FETCHED, n
    assert states[f"{base}/hidden/9"] == (State.EXCLUDED, "robots")  # robots.txt still holds
    assert states[web.url("127.0.63.2", "/deep/a")][0] == State.FETCHED  # /sitemap.xml
    assert not any("elsewhere" in url for url in states)  # outside the scope
    assert hits.count("/index.xml") == 1 and "/sitemap.xml" not in hits  # named: no guess
    assert "sitemaps 4 read, 11 URLs listed" in summary
    figures = json.loads(run_cli("stats", "--json", "--data-dir", str(settings.data_dir)))
    assert (figures["sitemaps"], figures["sitemap_urls"]) == (4, 10)  # in scope, distinct


def test_no_sitemaps_reads_none(settings) -> None:
    routes = {"/": html("home", "x"), "/sitemap.xml": Page(urlset(["/hidden/1"])),
              "/hidden/1": hidden(1)}
    with LoopbackWeb([Site("127.0.63.3", routes, robots_txt="User-agent: *\n")]) as web:
        run_index(dataclasses.replace(settings, seeds=(web.url("127.0.63.3", "/"),),
                                      sitemaps=False), progress=False)
        assert web.log.paths() == ["/robots.txt", "/"]


def test_the_protocols_limits() -> None:
    many = "".join(f"http://a.test/p{n}\n" for n in range(sitemap.MAX_URLS + 5)).encode()
    found = sitemap.parse(many, "http://a.test/sitemap.txt")
    assert (len(found.urls), found.dropped) == (sitemap.MAX_URLS, 5)
    huge = gzip.compress(urlset(["http://a.test/x"]).encode() + b" " * sitemap.MAX_BYTES)
    with pytest.raises(sitemap.SitemapError, match="50,000,000|52,428,800"):
        sitemap.parse(huge, "http://a.test/sitemap.xml.gz")
    with pytest.raises(sitemap.SitemapError, match="not a sitemap"):
        sitemap.parse(b"<html><body>hello</body></html>", "http://a.test/sitemap.xml")


def test_entities_are_never_expanded() -> None:
    laughs = (b'<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa">'
              b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
              b'<urlset><url><loc>http://a.test/&b;</loc></url></urlset>')
    with pytest.raises(sitemap.SitemapError, match="DTD"):  # refused before any declaration
        sitemap.parse(laughs, "http://a.test/s.xml")


def test_sitemaps_are_stored_as_such(settings) -> None:
    routes = {"/": html("home", "x"), "/sitemap.xml": Page(urlset(["/hidden/1"])),
              "/hidden/1": hidden(1)}
    with LoopbackWeb([Site("127.0.63.4", routes, robots_txt="User-agent: *\n")]) as web:
        run_index(dataclasses.replace(settings, seeds=(web.url("127.0.63.4", "/"),)),
                  progress=False)
    engine = connect(settings.database_url)
    with engine.connect() as conn:
        rows = dict(conn.execute(select(documents.c.path, documents.c.content_type)).all())
    engine.dispose()
    assert rows["/sitemap.xml"] == sitemap.SITEMAP_TYPE


@pytest.mark.parametrize("form", ["text", "xml"])
def test_every_entry_read_counts_against_the_cap_duplicates_too(form: str) -> None:
    """One URL listed MAX_URLS + 5 times: read MAX_URLS times, the 5 more dropped (a sitemap of
    one URL repeated fills the cap as distinct ones do, and costs no more)."""
    count = sitemap.MAX_URLS + 5
    if form == "text":
        body = gzip.compress(b"http://a.test/same\n" * count)
    else:
        body = gzip.compress(urlset(["http://a.test/same"] * count).encode())
    found = sitemap.parse(body, f"http://a.test/sitemap.{form}.gz")
    assert (found.urls, found.dropped) == (("http://a.test/same",), 5)


def test_padding_is_read_past_and_never_kept() -> None:
    """Padding among the entries, inside one, inside its loc, a second loc: every entry read,
    each field its first, of its own text (what an entry keeps is bounded by the entry's
    fields, whatever the padding: bench/parsers.py measures the memory)."""
    pad = "<x><y/>text</x>" * 1000
    xml = (f'<urlset xmlns="{NS}">{pad}<url>{pad}<loc>http://a.test/1{pad}</loc>'
           f"<loc>http://a.test/second</loc><lastmod>2024-05-01</lastmod></url>{pad}"
           f"<url><loc>http://a.test/2</loc></url><other>{pad}</other></urlset>").encode()
    seen: list[tuple[bool, dict[str, str]]] = []
    sitemap.read_entries(xml, lambda is_map, fields: seen.append((is_map, fields)))
    assert seen == [(False, {"loc": "http://a.test/1", "lastmod": "2024-05-01"}),
                    (False, {"loc": "http://a.test/2"})]
    assert sitemap.parse(xml, "http://a.test/s.xml").urls == ("http://a.test/1", "http://a.test/2")
