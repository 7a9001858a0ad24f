"""PDF, DOCX, ODT and plain text are fetched, their text extracted in the agent, indexed with
their title and shown with their type; hostile files are failures with a reason."""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from pathlib import Path

import pytest
from flask.testing import FlaskClient

from tests.engine.conftest import document_states
from tests.support import documents as files
from webcrawler.agents import extract
from webcrawler.commands.index import run_index
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.index import open_searcher
from webcrawler.query_server import create_app
from webcrawler.settings import Settings

PDF = "application/pdf"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
ODT = "application/vnd.oasis.opendocument.text"


def routes() -> dict[str, Page]:
    pages = {
        "/report.pdf": Page(files.pdf(["Lighthouse keepers annual report", "foghorn budget"],
                                      title="Lighthouse report"), content_type=PDF),
        "/untitled.pdf": Page(files.pdf(["Semaphore signalling handbook"]),
                              content_type="application/octet-stream"),
        "/ledger.docx": Page(files.docx(["quartermaster ledger of barrels"], title="The ledger"),
                             content_type=DOCX),
        "/manual": Page(files.docx(["windlass maintenance steps"], heading="Windlass manual"),
                        content_type=DOCX),  # no extension: the label and the bytes say DOCX
        "/orchard.odt": Page(files.odt(["orchard inventory of quinces"], heading="Orchard"),
                             content_type=ODT),
        "/notes.txt": Page("Tide tables for March\nspringtide neaptide\n", content_type="text/plain"),
        # hostile
        "/cut.pdf": Page(files.pdf(["truncated words"])[:300], content_type=PDF),
        "/locked.pdf": Page(files.pdf(["hidden words"], password="secret"), content_type=PDF),
        "/bomb.docx": Page(files.zip_bomb_docx(), content_type=DOCX),
        "/archive": Page(files._zip({"a.txt": "zipped words"}), content_type="application/zip"),
    }
    pages["/"] = html("library", "the documents", [(path, path) for path in pages])
    return pages


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, LoopbackWeb]:
    tmp = tmp_path_factory.mktemp("formats")
    settings = Settings(data_dir=tmp / "data", agents=2, delay=0.0, hours=0.05,
                        progress_interval=60.0, total_timeout=10.0)
    with LoopbackWeb([Site("127.0.62.1", routes())]) as web:
        settings = dataclasses.replace(settings, seeds=(web.url("127.0.62.1", "/"),))
        run_index(settings, progress=False)
        yield settings, web


@pytest.mark.parametrize(("words", "path", "title"), [
    ("foghorn budget", "/report.pdf", "Lighthouse report"),
    ("semaphore", "/untitled.pdf", "Semaphore signalling handbook"),
    ("quartermaster barrels", "/ledger.docx", "The ledger"),
    ("windlass", "/manual", "Windlass manual"),
    ("quinces", "/orchard.odt", "Orchard"),
    ("springtide", "/notes.txt", "Tide tables for March"),
])
def test_each_kind_is_found_by_its_words_with_its_title(crawled, words, path, title) -> None:
    settings, web = crawled
    with open_searcher(settings.index_dir) as searcher:
        hits = searcher.search(words).hits
    assert [(hit.url, hit.title) for hit in hits] == [(web.url("127.0.62.1", path), title)]


def test_hostile_files_are_failures_with_reasons_and_the_crawl_goes_on(crawled) -> None:
    settings, web = crawled
    states = document_states(settings)
    url = lambda path: web.url("127.0.62.1", path)  # noqa: E731
    assert states[url("/cut.pdf")] == (State.FAILED, "extract-error")
    assert states[url("/locked.pdf")] == (State.FAILED, "extract-error")
    assert states[url("/bomb.docx")] == (State.FAILED, "extract-error")
    assert states[url("/archive")] == (State.EXCLUDED, "unindexable-type")
    assert states[url("/notes.txt")][0] == State.FETCHED


def test_the_type_is_shown_on_the_result_page_and_in_the_api(crawled) -> None:
    settings, web = crawled
    app = create_app(settings.data_dir, settings.database_url)
    client: FlaskClient = app.test_client()
    answer = json.loads(client.get("/api/search?q=foghorn").data)
    assert [(r["url"], r["type"]) for r in answer["results"]] == [
        (web.url("127.0.62.1", "/report.pdf"), "pdf")]
    kinds = {r["url"].rsplit("/", 1)[1]: r["type"] for r in json.loads(
        client.get("/api/search?q=windlass OR quinces OR library OR springtide").data)["results"]}
    assert kinds == {"manual": "docx", "orchard.odt": "odt", "": "html", "notes.txt": "text"}
    page = client.get("/search?q=quinces").get_data(as_text=True)
    assert '<span class="type">ODT</span>' in page


def test_types_choose_what_is_fetched(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", agents=2, delay=0.0, hours=0.05,
                        progress_interval=60.0, total_timeout=10.0, types=("html", "docx"))
    pages = routes()
    pages["/download"] = Page(files.pdf(["a report behind a script"]), content_type=PDF)
    pages["/"] = html("library", "the documents", [(path, path) for path in pages if path != "/"])
    with LoopbackWeb([Site("127.0.62.2", pages)]) as web:
        run_index(dataclasses.replace(settings, seeds=(web.url("127.0.62.2", "/"),)),
                  progress=False)
        fetched = set(web.log.paths())
        states = document_states(settings)
    # links whose extension names a kind left out are not even queued (the scope's call) ...
    for path in ("/report.pdf", "/untitled.pdf", "/orchard.odt", "/notes.txt"):
        assert path not in fetched and web.url("127.0.62.2", path) not in states, path
    assert "/ledger.docx" in fetched and "/manual" in fetched
    assert states[web.url("127.0.62.2", "/manual")][0] == State.FETCHED
    # ... the others are fetched, and the agent refuses them by their Content-Type or bytes
    assert "/archive" in fetched and "/download" in fetched
    assert states[web.url("127.0.62.2", "/download")] == (State.EXCLUDED, "unindexable-type")


def test_extraction_is_bounded() -> None:
    """Output capped; a past deadline stops a PDF before its first page."""
    long = files.pdf(["many words here"] * 20)
    assert len(extract.extract("pdf", long, float("inf"), 40).text) <= 40
    with pytest.raises(extract.ExtractError, match="time"):
        extract.extract("pdf", long, 0.0, 10_000)
    with pytest.raises(extract.ExtractError, match="bomb"):
        extract.extract("odt", files._zip({"mimetype": ODT, "content.xml": "<a>" + " " * (40 << 20)
                                           + "</a>"}), 0.0, 1000)


@pytest.mark.parametrize("build", [files.nested_docx, files.nested_odt])
def test_nested_paragraphs_give_each_text_once(build) -> None:
    """Paragraphs nested 200 deep (w:p in w:p; text:p > text:span > text:p): every level's
    word once, the deepest text once, where reading each paragraph's subtree repeated it."""
    depth = 200
    kind = "docx" if build is files.nested_docx else "odt"
    got = extract.extract(kind, build(depth, 50), float("inf"), 1_000_000).text.split()
    assert got.count("deep") == 50
    assert [word for word in got if word != "deep"] == [f"level{i}" for i in range(depth)]


@pytest.mark.parametrize("build", [files.nested_docx, files.nested_odt])
def test_reading_stops_at_the_character_cap(build) -> None:
    """Past the cap nothing more is parsed: XML broken 200 KB after the text's first 1,000
    characters is never reached."""
    kind = "docx" if build is files.nested_docx else "odt"
    broken = "<unclosed>" + "x" * (200 << 10)
    got = extract.extract(kind, build(3, 20_000, tail=broken), float("inf"), 1000)
    assert len(got.text) == 1000 and got.text.startswith("level0 level1 level2 deep deep")
    with pytest.raises(extract.ExtractError, match="unreadable"):
        extract.extract(kind, build(3, 20, tail=broken), float("inf"), 1000)


@pytest.mark.parametrize("kind", ["docx", "odt"])
def test_a_dtd_is_refused_and_no_entity_expanded(kind: str) -> None:
    entity = '<!DOCTYPE d [<!ENTITY a "expanded"><!ENTITY b "&a;&a;&a;&a;">]>'
    build = files.nested_docx if kind == "docx" else files.nested_odt
    body = build(1, 1, tail="&b;")
    with zipfile.ZipFile(io.BytesIO(body)) as archive:
        parts = {name: archive.read(name).decode() for name in archive.namelist()}
    part = "word/document.xml" if kind == "docx" else "content.xml"
    parts[part] = parts[part].replace("?>", "?>" + entity, 1)
    with pytest.raises(extract.ExtractError, match="DTD"):
        extract.extract(kind, files._zip(parts), float("inf"), 1000)
