"""Each visit action on a real toolkit crawl of a loopback web (webcrawler/demoweb/toolkitweb.py),
plus hostile pages: traversal in names, odd encodings, formulas, scripts, size caps."""

from __future__ import annotations

import json

import pytest

from tests.toolkit.conftest import read_rows
from webcrawler.demoweb.server import LoopbackWeb, Page, Site
from webcrawler.query_server import create_app
from webcrawler.settings import Settings
from webcrawler.toolkit import Crawler, Limits, Regexp, Tagexp
from webcrawler.toolkit.actions import (
    AddToIndex,
    CollectImages,
    Concatenate,
    ExtractMatches,
    LinkReport,
    SaveMirror,
    files,
)


@pytest.fixture(scope="module")
def fast(tmp_path_factory) -> Settings:
    """Loopback needs no politeness delay; the crawl's lease files go to a scratch folder."""
    return Settings(delay=0.0, agents=2, hours=0.02, data_dir=tmp_path_factory.mktemp("leases"))


class Below(Crawler):
    """Follow hyperlinks under one URL prefix; hand each page to `self.action`."""

    limits = Limits(pages=50, depth=4, seconds=60)

    def __init__(self, prefix: str, action, **options) -> None:
        super().__init__(**options)
        self.prefix, self.action = prefix, action

    def should_visit(self, link) -> bool:
        return "hyperlink" in link.labels and link.url.startswith(self.prefix)

    def visit(self, page) -> None:
        self.action(page)


def crawl(settings: Settings, root: str, action, prefix: str | None = None):
    with action:
        summary = Below(prefix or root.rsplit("/", 1)[0] + "/", action, roots=[root],
                        settings=settings).run()
    assert summary.callback_errors == 0
    return summary


def test_mirror_saves_pages_with_links_to_the_local_copies(web, tmp_path, fast):
    mirror = SaveMirror(tmp_path / "m")
    crawl(fast, web.url("/manual/index.html"), mirror)
    truth = web.truth()
    assert set(truth.chapters) <= set(mirror.saved)
    chapter1 = (tmp_path / "m" / mirror.saved[truth.chapters[0]]).read_text(encoding="utf-8")
    assert 'href="chapter2.html"' in chapter1  # a saved page: a relative link to its copy
    assert 'href="index.html"' in chapter1
    assert f'href="{web.web.origin("127.0.13.2")}/standard.html"' in chapter1  # not saved: absolute
    assert "<script" not in chapter1 and "tampered" not in chapter1
    contents = (tmp_path / "m" / "contents.html").read_text(encoding="utf-8")
    assert all(url in contents for url in truth.chapters)


def test_concatenate_keeps_crawl_order_with_page_breaks_and_no_scripts(web, tmp_path, fast):
    book = Concatenate(tmp_path / "book.html", title="The manual")
    crawl(fast, web.url("/manual/index.html"), book)
    text = (tmp_path / "book.html").read_text(encoding="utf-8")
    chapters = web.truth().chapters
    positions = [text.index(f'<div class="url">{url}</div>') for url in chapters]
    assert positions == sorted(positions)  # breadth-first from the contents: reading order
    assert "page-break-after: always" in text and text.count('<section class="page"') == 5
    assert "<script" not in text and "tampered" not in text
    n = book.order[chapters[1]]
    assert f'href="#p{n}"' in text  # chapter 1's "Next" now points inside the document
    assert f'id="p{book.order[chapters[0]]}-top"' in text  # ids made unique per page


def test_extract_tagexp_and_regexp_matches_to_csv_and_jsonl(web, tmp_path, fast):
    people = ExtractMatches(Tagexp("<li><a></a></li>"), tmp_path / "people.csv")
    photos = ExtractMatches(Regexp(r'<img [^>]*alt="[^"]*"'), tmp_path / "photos.jsonl")
    both = _Both(people, photos)
    crawl(fast, web.url("/faculty/"), both)
    rows = read_rows(tmp_path / "people.csv")
    names = {row["text"] for row in rows if row["url"] == web.url("/faculty/")}
    assert set(web.truth().faculty.values()) <= names
    lines = (tmp_path / "photos.jsonl").read_text(encoding="utf-8").splitlines()
    found = [json.loads(line) for line in lines]
    assert {r["url"] for r in found} == set(web.truth().faculty)
    assert all(r["html"].startswith("<img ") and r["end"] > r["start"] for r in found)


class _Both:
    """Two actions as one (closing both)."""

    def __init__(self, *actions) -> None:
        self.actions = actions

    def __call__(self, page) -> None:
        for action in self.actions:
            action(page)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        for action in self.actions:
            action.close()


class BelowWithImages(Below):
    """Also follows the pages' <img> links: each image comes back as a page with `data`."""

    def should_visit(self, link) -> bool:
        return super().should_visit(link) or "image" in link.labels


def test_collect_images_makes_an_album_with_alt_text(web, tmp_path, fast):
    album = CollectImages(tmp_path / "album")
    crawl(fast, web.url("/faculty/"), album)
    truth = web.truth()
    assert {url: image.alt for url, image in album.images.items()} == truth.photos
    page = (tmp_path / "album" / "album.html").read_text(encoding="utf-8")
    assert all(f'src="{url}"' in page for url in truth.photos)  # not fetched: shown from the web
    rows = read_rows(tmp_path / "album" / "images.csv")
    assert len(rows) == 3 and not any(row["local"] for row in rows)


def test_collect_images_downloads_the_images_the_crawl_follows(web, tmp_path, fast):
    album = CollectImages(tmp_path / "album")
    with album:
        summary = BelowWithImages(web.url("/faculty/"), album, roots=[web.url("/faculty/")],
                                  settings=fast).run()
    assert summary.callback_errors == 0
    assert set(album.images) == set(web.truth().photos)
    for image in album.images.values():
        saved = tmp_path / "album" / image.local
        assert image.local.startswith("images/") and saved.read_bytes().startswith(b"\x89PNG")
    page = (tmp_path / "album" / "album.html").read_text(encoding="utf-8")
    assert page.count('src="images/') == len(album.images)


def test_link_report_names_the_broken_links_and_why(web, tmp_path, fast):
    site = web.web.name("127.0.13.1")

    class Checker(Crawler):
        limits = Limits(pages=100, depth=6, seconds=60)

        def should_visit(self, link) -> bool:
            return "hyperlink" in link.labels and site in (link.source.url if link.source else "")

    checker = Checker(roots=[web.url("/")], settings=fast)
    report = LinkReport(tmp_path / "broken.csv").attach(checker)
    checker.run()
    assert report.closed  # closed by crawl-finished
    rows = [row for row in read_rows(tmp_path / "broken.csv") if row["verdict"] == "broken"]
    assert {row["target"] for row in rows} == web.truth().broken
    ghost = next(row for row in rows if row["target"].endswith("/ghost/home.html"))
    assert ghost["source"] == web.url("/faculty/") and ghost["anchor"] == "Emeritus (page moved)"
    assert (ghost["status"], ghost["reason"]) == ("404", "http-error")
    moved = next(row for row in rows if row["target"].endswith("/visiting.html"))
    assert moved["status"] == "404"  # the page it redirects to is missing


def test_add_to_index_makes_pages_searchable_by_the_query_server(web, tmp_path, fast):
    data = tmp_path / "data"
    index = AddToIndex(data)
    crawl(fast, web.url("/topics/"), index)
    assert index.added == 6  # the topics page and its five articles
    client = create_app(data, testing=True).test_client()
    answer = client.get("/api/search", query_string={"q": "pseudopods"}).get_json()
    assert {hit["url"] for hit in answer["results"]} == {
        web.url("/topics/amoeba-cell.html"), web.url("/topics/amoeba-pond.html")}


HOSTILE_ADDRESS = "127.0.13.3"
SCRIPTS = """<a href="JaVaScRiPt:alert(1)">1</a><a href="java&#x0A;script:alert(2)">2</a>
<svg><script>alert(3)</script><a xlink:href="javascript:alert(4)">4</a></svg>
<img src=x onerror=alert(5)><iframe srcdoc="<script>alert(6)</script>"></iframe>
<object data="javascript:alert(7)"></object><form action="javascript:alert(8)"></form>
<meta http-equiv=refresh content="0;url=javascript:alert(9)"><embed src="javascript:alert(10)">
<style>body{background:url(javascript:alert(11))}</style><base href="http://example.invalid/">"""


def _hostile(path: str) -> Page | None:
    """Links with traversal, odd encodings, formulas, and a page too big to keep whole."""
    if path == "/":
        return Page('<html><body><a href="/..%2F..%2Fescape.html">1</a>'
                    '<a href="/a/%2e%2e/%2e%2e/%2e%2e/etc/passwd">2</a>'
                    '<a href="/' + "n" * 400 + '.html">3</a>'
                    '<a href="/latin1.html">4</a><a href="/big.html">5</a>'
                    '<a href="/q?x=../../up&y=/etc">6</a>'
                    '<a href="/scripts.html">7</a>'
                    '<p class=cell>=HYPERLINK("http://example.invalid")</p></body></html>')
    if path == "/scripts.html":
        return Page(f"<html><head>{SCRIPTS}</head><body>{SCRIPTS}</body></html>")
    if path == "/latin1.html":
        return Page("<html><head><meta charset=iso-8859-1><title>Caf\xe9</title></head>"
                    "<body><p class=cell>Caf\xe9 cr\xe8me</p></body></html>".encode("latin-1"),
                    content_type="text/html; charset=iso-8859-1")
    if path == "/big.html":
        return Page("<html><body>" + "<p>filler words</p>" * 20_000 + "</body></html>")
    return Page(f"<html><body><p>{path}</p><script>alert(1)</script></body></html>")


def test_hostile_pages_stay_inside_the_folder_in_utf8_and_within_caps(tmp_path, fast):
    out = tmp_path / "out"
    with LoopbackWeb([Site(HOSTILE_ADDRESS, _hostile)]) as hostile:
        root = hostile.url(HOSTILE_ADDRESS, "/")
        mirror = SaveMirror(out / "mirror")
        book = Concatenate(out / "book.html", max_chars=100_000)
        cells = ExtractMatches(Regexp(r"<p class=cell>.*?</p>"), out / "cells.csv")
        crawl(fast, root, _Both(mirror, book, cells), prefix=root)
    assert len(mirror.saved) == 8
    written = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert all(out in p.parents for p in written)  # nothing escaped the folders
    assert all(len(p.name) <= 90 for p in written)
    for path in written:
        text = path.read_text(encoding="utf-8")  # every file is valid UTF-8
        assert "<script" not in text and "alert(" not in text and "<base" not in text
    latin = next(p for u, p in mirror.saved.items() if u.endswith("/latin1.html"))
    saved = (out / "mirror" / latin).read_text(encoding="utf-8")
    assert "Caf\xe9 cr\xe8me" in saved and "iso-8859-1" not in saved
    assert book.left_out == 1  # the big page did not fit under max_chars
    rows = read_rows(out / "cells.csv", header=False)
    formula = next(r for r in rows if "HYPERLINK" in r[5])
    assert formula[5].startswith("'=")  # a spreadsheet shows it, does not run it
    assert any(r[5] == "Caf\xe9 cr\xe8me" for r in rows)


@pytest.mark.parametrize("url", [
    "http://h/../../etc/passwd", "http://h/%2e%2e/%2e%2e/x", "http://h/a/..", "http://h/..%2F..%2Fx",
    "http://h/a%00b/c", "http://h/" + "x/" * 50 + "y", "http://h/" + "z" * 500, "http://h/?a=/../..",
    "http://h:8080/.hidden", "http://../x", "http://h/%ff%fe.html"])
def test_a_url_never_names_a_file_outside_the_folder(tmp_path, url):
    """Without the URL normaliser in between: `local_name` alone keeps any URL inside."""
    name = files.local_name(url)
    assert all(part not in ("", ".", "..") and len(part) <= files.MAX_SEGMENT + 5
               for part in name.parts)
    written = files.write_text(tmp_path / "out", name, "x")
    assert (tmp_path / "out") in written.parents


def test_a_planted_symlink_is_refused(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "h").symlink_to(tmp_path)  # out/h -> outside the folder
    with pytest.raises(files.UnsafePath):
        files.write_text(tmp_path / "out", files.local_name("http://h/x.html"), "x")
    assert not (tmp_path / "x.html").exists()


def test_mirror_keeps_a_page_and_the_page_under_its_name(tmp_path, fast):
    """`/x.html` and `/x.html/y` (and the other way round, `/b/c` before `/b`) both saved:
    one name may not be a file and a folder at once."""
    pages = {"/": Page('<a href="/x.html">x</a> <a href="/b/c">c</a>'),
             "/x.html": Page('<title>X</title>X page <a href="/x.html/y">y</a>'),
             "/x.html/y": Page("<title>Y</title>Y page"),
             "/b/c": Page('<title>C</title>C page <a href="/b">b</a>'),
             "/b": Page("<title>B</title>B page")}
    with LoopbackWeb([Site("127.0.13.4", pages)]) as site:
        mirror = SaveMirror(tmp_path / "m")
        crawl(fast, site.url("127.0.13.4", "/"), mirror, prefix=site.origin("127.0.13.4"))
        action_line = mirror.close()
    assert set(mirror.saved) == {site.url("127.0.13.4", p) for p in pages}, action_line
    texts = {url: (tmp_path / "m" / name).read_text(encoding="utf-8") for url, name in mirror.saved.items()}
    for path, marker in (("/x.html", "X page"), ("/x.html/y", "Y page"), ("/b/c", "C page"),
                         ("/b", "B page")):
        assert marker in texts[site.url("127.0.13.4", path)]
    x_page = texts[site.url("127.0.13.4", "/x.html")]
    y_name = mirror.saved[site.url("127.0.13.4", "/x.html/y")]
    assert f'href="{y_name.name}"' in x_page  # relinked to the local copy, wherever it went
