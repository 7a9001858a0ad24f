"""AddToIndex goes the engine's document path: noindex kept out, duplicates found on the
agent's checksum (across a toolkit crawl and a batch crawl), links stored, one URL per
document (canonical URLs, near-duplicates) as in a batch crawl; and a crawler script without
a __main__ guard can use it."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.formats.test_near_duplicates import article
from webcrawler.commands.index import run_index
from webcrawler.database.schema import connect, documents, links, servers
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.query_server import create_app
from webcrawler.settings import Settings
from webcrawler.toolkit import Crawler, Limits
from webcrawler.toolkit.actions import AddToIndex

PLAIN = html("plain", "alpha bravo charlie")
NOINDEX_META = Page('<html><head><title>meta</title><meta name="robots" content="noindex">'
                    "</head><body><p>secretmeta words</p></body></html>")
NOINDEX_HEADER = Page("<html><head><title>header</title></head><body><p>secretheader words"
                      "</p></body></html>", headers=(("X-Robots-Tag", "noindex"),))


@pytest.fixture(scope="module")
def site():
    home = html("home", "the start", [("/plain", "plain"), ("/meta", "meta"),
                                      ("/header", "header"), ("/copy", "copy")])
    routes = {"/": home, "/plain": PLAIN, "/meta": NOINDEX_META, "/header": NOINDEX_HEADER,
              "/copy": PLAIN}
    other = {"/": html("elsewhere", "", [("/again", "again")]), "/again": PLAIN}
    with LoopbackWeb([Site("127.0.16.1", routes), Site("127.0.16.2", other)]) as web:
        yield web


@pytest.fixture
def fast(tmp_path: Path) -> Settings:
    return Settings(delay=0.0, agents=2, hours=0.02, data_dir=tmp_path / "leases",
                    connect_timeout=2.0, read_timeout=2.0, total_timeout=5.0)


def index_with_toolkit(settings: Settings, root: str, data: Path) -> AddToIndex:
    crawler = Crawler(roots=[root], limits=Limits(pages=20, seconds=60), settings=settings)
    action = AddToIndex(data).attach(crawler)
    summary = crawler.run()
    assert summary.callback_errors == 0 and summary.stop_reason == "queue-empty"
    return action


def stored(data: Path) -> dict[str, tuple[str, str | None]]:
    """host:port/path -> (state, reason) of every document in the data directory."""
    engine = connect(f"sqlite:///{data / 'webcrawler.db'}")
    try:
        with engine.connect() as conn:
            rows = conn.execute(select(servers.c.host, servers.c.port, documents.c.path,
                                       documents.c.state, documents.c.reason)
                                .join(servers, servers.c.id == documents.c.server_id)).all()
    finally:
        engine.dispose()
    return {f"{r.host}:{r.port}{r.path}": (r.state, r.reason) for r in rows}


def found(data: Path, query: str) -> set[str]:
    client = create_app(data, testing=True).test_client()
    answer = client.get("/api/search", query_string={"q": query}).get_json()
    return {hit["url"] for hit in answer["results"]}


def test_noindex_by_meta_and_by_header_is_stored_but_not_indexed(site, fast, tmp_path):
    data = tmp_path / "data"
    action = index_with_toolkit(fast, site.url("127.0.16.1", "/"), data)
    name = site.name("127.0.16.1")
    rows = stored(data)
    assert rows[f"{name}/meta"] == ("fetched", "noindex")
    assert rows[f"{name}/header"] == ("fetched", "noindex")
    assert found(data, "secretmeta") == set() and found(data, "secretheader") == set()
    assert found(data, "bravo") == {site.url("127.0.16.1", "/plain")}  # /copy: a duplicate
    assert sorted(reason for _, reason in rows.values() if reason) == [
        "duplicate", "noindex", "noindex"]
    assert action.added == 2  # the home page and /plain


def test_links_are_stored(site, fast, tmp_path):
    data = tmp_path / "data"
    index_with_toolkit(fast, site.url("127.0.16.1", "/"), data)
    engine = connect(f"sqlite:///{data / 'webcrawler.db'}")
    try:
        with engine.connect() as conn:
            home = conn.execute(select(documents.c.id).where(documents.c.path == "/")).scalar()
            targets = conn.execute(select(documents.c.path, links.c.anchor)
                                   .join(links, links.c.target_id == documents.c.id)
                                   .where(links.c.source_id == home)).all()
    finally:
        engine.dispose()
    assert sorted(targets) == [("/copy", "copy"), ("/header", "header"), ("/meta", "meta"),
                               ("/plain", "plain")]


def test_a_duplicate_across_a_batch_crawl_and_a_toolkit_crawl_is_found(site, fast, tmp_path):
    data = tmp_path / "data"
    batch = dataclasses.replace(fast, data_dir=data, seeds=(site.url("127.0.16.1", "/plain"),),
                                max_docs=1)
    run_index(batch, progress=False)
    index_with_toolkit(fast, site.url("127.0.16.2", "/"), data)
    rows = stored(data)
    assert rows[f"{site.name('127.0.16.1')}/plain"] == ("fetched", None)
    assert rows[f"{site.name('127.0.16.2')}/again"] == ("fetched", "duplicate")
    assert found(data, "bravo") == {site.url("127.0.16.1", "/plain")}


SCRIPT = """
from webcrawler.settings import Settings
from webcrawler.toolkit import Crawler, Limits
from webcrawler.toolkit.actions import AddToIndex

settings = Settings(delay=0.0, agents=1)  # its lease files under ./webcrawler-data
crawler = Crawler(roots=[{root!r}], limits=Limits(pages=5, seconds=60), settings=settings)
AddToIndex({data!r}).attach(crawler)
print(crawler.run().line())
"""


def test_a_script_without_a_main_guard_can_add_to_the_index(site, tmp_path):
    script = tmp_path / "crawl_and_index.py"
    data = tmp_path / "data"
    script.write_text(textwrap.dedent(SCRIPT.format(root=site.url("127.0.16.1", "/"),
                                                    data=str(data))))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=180, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "bootstrapping phase" not in done.stderr  # multiprocessing's error, seen before
    assert "5 pages visited" in done.stdout
    assert found(data, "bravo") == {site.url("127.0.16.1", "/plain")}


def test_one_url_per_document_as_in_a_batch_crawl(fast, tmp_path):
    """A print view naming its canonical URL, fetched before it, leaves the index when the
    canonical page comes (and does not make that page a near-duplicate of it); a mirror with
    another date is a near-duplicate."""
    story = article("turbine", "12 March 2024 at 10:42", 18234)
    printed = Page(str(story.body).replace("<head>", '<head><link rel="canonical" href="/story">'))
    routes = {"/print/story": printed, "/story": story,
              "/mirror/story": article("turbine", "3 June 2025 at 08:01", 18301)}
    routes["/"] = html("home", "index", [(path, path) for path in routes])
    data = tmp_path / "data"
    with LoopbackWeb([Site("127.0.16.3", routes)]) as web:
        action = index_with_toolkit(fast, web.url("127.0.16.3", "/"), data)
        name, url = web.name("127.0.16.3"), web.url("127.0.16.3", "/story")
    rows = stored(data)
    assert rows[f"{name}/print/story"] == ("fetched", "canonical")
    assert rows[f"{name}/story"] == ("fetched", None)
    assert rows[f"{name}/mirror/story"] == ("fetched", "near-duplicate")
    assert found(data, "turbine") == {url}
    assert action.close() == f"3 pages added to the index in {data} (aliases 1 (canonical URLs); " \
        "near-duplicates 1 not indexed)"  # the home page, /story, and the print view until then
