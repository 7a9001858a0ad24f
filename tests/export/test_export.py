"""`webcrawler export`: a real crawl of a real web read back as JSON Lines and as WARC."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import time
import zlib
from datetime import datetime
from pathlib import Path

from sqlalchemy import func, select
from warcio.archiveiterator import ArchiveIterator

from tests.export.conftest import webcrawler
from webcrawler.commands.index import run_index
from webcrawler.database.schema import connect, documents, responses
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.settings import Settings

FIELDS = ["url", "final_url", "status", "content_type", "fetched_at", "times_fetched", "times_changed",
          "change_bucket", "title", "text"]


def test_jsonl_has_every_stored_document_with_its_fields_and_text(crawled):
    web, data = crawled
    result = webcrawler("export", "--data-dir", str(data))
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.decode().splitlines()]
    fetched = {line["url"]: line for line in lines if line["status"] == 200}
    truth = web.pages_at(time.time())
    assert set(fetched) == set(truth)
    assert all(list(line) == FIELDS for line in lines)
    page = fetched[web.url(1, 3)]
    assert page["title"] == web.title(1, 3) and page["final_url"] == page["url"]
    assert page["times_fetched"] == 1 and page["content_type"].startswith("text/html")
    assert datetime.fromisoformat(page["fetched_at"]).utcoffset().total_seconds() == 0
    words = web.render(1, 3, truth[web.url(1, 3)]).decode().split("<p>")[2].split(" <a")[0]
    assert words in page["text"]
    assert f"exported {len(lines)} documents" in result.stderr.decode()


def test_warc_holds_the_stored_responses_and_a_metadata_record_each(crawled, tmp_path: Path):
    web, data = crawled
    out = tmp_path / "crawl.warc.gz"
    result = webcrawler("export", "--format", "warc", "--data-dir", str(data), "--output", str(out))
    assert result.returncode == 0, result.stderr
    metadata, bodies = {}, {}
    with open(out, "rb") as stream:
        for record in ArchiveIterator(stream):
            uri = record.rec_headers.get_header("WARC-Target-URI")
            if record.rec_type == "response":
                assert record.http_headers.get_statuscode() == "200"
                bodies[uri] = record.content_stream().read()
            elif record.rec_type == "metadata":
                metadata[uri] = json.loads(record.content_stream().read())
    engine = connect(f"sqlite:///{data / 'webcrawler.db'}")
    try:
        with engine.connect() as conn:
            kept = conn.execute(select(func.count()).select_from(responses)).scalar_one()
            exported = documents.c.state.in_(("fetched", "redirected", "gone"))
            known = conn.execute(select(func.count()).select_from(documents).where(exported)).scalar_one()
            stored = {row.doc_id: zlib.decompress(row.body) for row in conn.execute(select(responses))}
    finally:
        engine.dispose()
    assert len(metadata) == known and len(bodies) == kept == len(web.pages_at(time.time()))
    assert metadata[web.seed_url]["title"] == web.title(0, 0)
    assert sorted(bodies.values()) == sorted(stored.values())


def test_a_missing_data_dir_is_one_line(tmp_path: Path):
    result = webcrawler("export", "--data-dir", str(tmp_path / "nothing"))
    assert result.returncode == 1
    missing = tmp_path / "nothing" / "webcrawler.db"
    assert result.stderr.decode().strip() == f"Error: no crawl to export: {missing} does not exist"


def test_warc_to_stdout_from_a_real_process_reads_back(crawled):
    _web, data = crawled
    result = subprocess.run([sys.executable, "-m", "webcrawler.cli", "export", "--format", "warc",
                             "--data-dir", str(data)], capture_output=True, timeout=120)
    assert result.returncode == 0, result.stderr
    types = [record.rec_type for record in ArchiveIterator(io.BytesIO(result.stdout))]
    assert types.count("metadata") == types.count("response") > 20


def test_a_batch_crawl_keeps_no_responses_unless_asked(tmp_path: Path):
    """Raw responses cost a batch crawl about a tenth of its speed: kept with --keep-responses
    (or --incremental) only; the WARC export then has each document's metadata record."""
    site = {"/": html("Home", "a page", [("/a", "a")]), "/a": html("A", "another page")}
    with LoopbackWeb([Site("127.0.44.60", site)]) as web:
        for keep in (False, True):
            data = tmp_path / f"keep-{keep}"
            settings = Settings(data_dir=data, agents=1, delay=0.0, hours=0.01,
                                seeds=(web.url("127.0.44.60", "/"),), keep_responses=keep)
            run_index(settings, progress=False)
            engine = connect(f"sqlite:///{data / 'webcrawler.db'}", readonly=True)
            with engine.connect() as conn:
                kept = conn.execute(select(func.count()).select_from(responses)).scalar_one()
            engine.dispose()
            assert kept == (2 if keep else 0)
            result = webcrawler("export", "--format", "warc", "--data-dir", str(data),
                                "--output", str(data / "out.warc.gz"))
            warnings = [line for line in result.stderr.decode().splitlines() if "warning" in line]
            assert warnings == ([] if keep else [
                "warning: 2 fetched documents have no kept response, only a metadata record: "
                "crawl with --keep-responses (or --incremental) to keep responses"])


def test_escaped_dot_segments_are_neither_stored_nor_exported(tmp_path: Path):
    links = [("/%2e%2e/%2e%2e/etc/passwd", "up"), ("/docs/%2E%2e/%2e/notes", "up again")]
    site = {"/": html("Home", "dots", links), "/etc/passwd": html("Passwd", "no such file"),
            "/notes": html("Notes", "notes")}
    with LoopbackWeb([Site("127.0.44.61", site)]) as web:
        settings = Settings(data_dir=tmp_path / "data", agents=1, delay=0.0, hours=0.01,
                            seeds=(web.url("127.0.44.61", "/"),))
        run_index(settings, progress=False)
        web.log.settle()
        asked = set(web.log.paths())
    result = webcrawler("export", "--data-dir", str(settings.data_dir))
    urls = {json.loads(line)["url"] for line in result.stdout.decode().splitlines()}
    assert urls == {web.url("127.0.44.61", p) for p in ("/", "/etc/passwd", "/notes")}
    assert {"/etc/passwd", "/notes"} <= asked and not [p for p in asked if "." in p.replace(".txt", "")]
