"""Near-duplicates across URLs: copies that differ by a date, a counter or a menu entry are
stored as near-duplicates and not indexed; similar but distinct pages are both indexed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from sqlalchemy import select

from tests.engine.conftest import document_states
from tests.support.documents import pdf
from webcrawler.commands.index import run_index
from webcrawler.database.schema import aliases, connect
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.index import open_searcher
from webcrawler.settings import Settings

MENU = "Home Guide Reference Tutorials Downloads Community Blog About Contact Search"


VOCABULARY = ("blade rotor shaft bearing housing seal vane nozzle casing governor valve steam "
              "pressure flow speed load torque coupling gear lubricant filter sensor alarm "
              "inspection overhaul balance vibration clearance efficiency output stage").split()


def article(topic: str, date: str, counter: int, menu: str = MENU) -> Page:
    """About two hundred words, no two sentences alike (digits do not count in shingles)."""
    words = " ".join(f"The {topic} {VOCABULARY[n % 31]} meets the {VOCABULARY[(n * 7) % 31]} "
                     f"near the {VOCABULARY[(n * 11 + 3) % 31]}." for n in range(30))
    return Page(f"<html><head><title>{topic}</title></head><body><nav>{menu}</nav>"
                f"<p>Generated on {date}</p><p>{words}</p><footer>Visits: {counter}</footer>"
                "</body></html>")


def reference(name: str, returns: str) -> Page:
    """Two pages of one API: the same layout and phrasing, different functions."""
    text = (f"{MENU} Function {name}(path, mode) opens the file at path and returns {returns}. "
            f"Parameters: path is a string naming the file; mode is a string such as r or w. "
            f"Raises OSError when the file cannot be opened. See also the {name} examples "
            f"and the notes on encodings, buffering and newline handling in the io module.")
    return html(name, text)


def test_copies_are_near_duplicates_and_distinct_pages_are_not(tmp_path: Path) -> None:
    routes = {
        "/story": article("turbine", "12 March 2024 at 10:42", 18234),
        "/mirror/story": article("turbine", "3 June 2025 at 08:01", 18301),
        "/story-menu": article("turbine", "4 June 2025", 18302, MENU.replace("Blog", "News")),
        "/other": article("compressor", "12 March 2024 at 10:42", 18234),
        "/api/open": reference("open", "a file object"),
        "/api/fdopen": reference("fdopen", "a file object wrapping a descriptor"),
    }
    routes["/"] = html("home", "index", [(path, path) for path in routes])
    settings = Settings(data_dir=tmp_path / "data", agents=1, delay=0.0, hours=0.05,
                        progress_interval=60.0, total_timeout=5.0)
    with LoopbackWeb([Site("127.0.65.1", routes)]) as web:
        url = lambda path: web.url("127.0.65.1", path)  # noqa: E731
        summary, _ = run_index(dataclasses.replace(settings, seeds=(url("/"),)), progress=False)
    states = document_states(settings)
    assert states[url("/mirror/story")] == ("fetched", "near-duplicate")
    assert states[url("/story-menu")] == ("fetched", "near-duplicate")
    for path in ("/story", "/other", "/api/open", "/api/fdopen"):
        assert states[url(path)] == ("fetched", None), path
    with open_searcher(settings.index_dir) as searcher:
        assert [hit.url for hit in searcher.search("turbine").hits] == [url("/story")]
        assert len(searcher.search("function raises").hits) == 2
    assert "near-duplicates 2 not indexed" in summary


def test_off_indexes_every_copy(tmp_path: Path) -> None:
    routes = {"/a": article("turbine", "1 May", 1), "/b": article("turbine", "2 May", 2)}
    routes["/"] = html("home", "index", [("/a", "a"), ("/b", "b")])
    settings = Settings(data_dir=tmp_path / "data", agents=1, delay=0.0, hours=0.05,
                        progress_interval=60.0, total_timeout=5.0, near_duplicates=0.0)
    with LoopbackWeb([Site("127.0.65.2", routes)]) as web:
        run_index(dataclasses.replace(settings, seeds=(web.url("127.0.65.2", "/"),)),
                  progress=False)
    with open_searcher(settings.index_dir) as searcher:
        assert len(searcher.search("turbine").hits) == 2


def words(topic: str) -> str:
    return " ".join(f"The {topic} {VOCABULARY[n % 31]} meets the {VOCABULARY[(n * 7) % 31]} "
                    f"near the {VOCABULARY[(n * 11 + 3) % 31]}." for n in range(30))


def test_the_html_page_is_indexed_and_its_pdf_print_kept_as_its_alias(tmp_path: Path) -> None:
    """The PDF print is fetched first (linked first), is indexed, then leaves the index for the
    page; a page fetched before its print keeps its place."""
    routes = {
        "/print.pdf": Page(pdf([words("turbine")], title="turbine"), content_type="application/pdf"),
        "/story": article("turbine", "12 March 2024", 1),
        "/other": article("compressor", "12 March 2024", 1),
        "/other.pdf": Page(pdf([words("compressor")], title="compressor"),
                           content_type="application/pdf"),
    }
    routes["/"] = html("home", "index", [(path, path) for path in routes])
    settings = Settings(data_dir=tmp_path / "data", agents=1, delay=0.0, hours=0.05,
                        progress_interval=60.0, total_timeout=5.0)
    with LoopbackWeb([Site("127.0.65.3", routes)]) as web:
        url = lambda path: web.url("127.0.65.3", path)  # noqa: E731
        run_index(dataclasses.replace(settings, seeds=(url("/"),)), progress=False)
    states = document_states(settings)
    assert states[url("/story")] == ("fetched", None)
    assert states[url("/print.pdf")] == ("fetched", "near-duplicate")
    assert states[url("/other")] == ("fetched", None)
    assert states[url("/other.pdf")] == ("fetched", "near-duplicate")
    with open_searcher(settings.index_dir) as searcher:
        assert [hit.url for hit in searcher.search("turbine").hits] == [url("/story")]
        assert [hit.url for hit in searcher.search("compressor").hits] == [url("/other")]
    engine = connect(settings.database_url)
    with engine.connect() as conn:
        kept = set(conn.execute(select(aliases.c.doc_id, aliases.c.canonical_id)).all())
    engine.dispose()
    assert len(kept) == 2  # each print an alias of its page
