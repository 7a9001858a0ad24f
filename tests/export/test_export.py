"""`webcrawler export`: a real crawl of a real web read back as JSON Lines and as WARC."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import time
import zlib
from datetime import datetime
from pathlib import Path

import pytest
from sqlalchemy import func, select
from warcio.archiveiterator import ArchiveIterator

from webcrawler.database import connect, documents, responses
from webcrawler.engine.run import run_index
from webcrawler.settings import Settings
from webcrawler.testing.changeweb import ChangingWeb
from webcrawler.testing.genweb_server import GenWebServer

FIELDS = ["url", "final_url", "status", "content_type", "fetched_at", "times_fetched", "times_changed",
          "change_bucket", "title", "text"]


def webcrawler(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "webcrawler.cli", *args], capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory):
    """A small static changing web (no changes: the text is known), crawled once into a data dir."""
    data = tmp_path_factory.mktemp("export") / "data"
    web = ChangingWeb(servers=2, pages_per_server=12, links_per_page=6, page_bytes=1500, spread="static",
                      first_address="127.0.44.32", day_seconds=1e6, epoch=time.time())
    with GenWebServer(web) as served:
        settings = Settings(data_dir=data, agents=2, delay=0.0, hours=0.05, commit_every=20,
                            progress_interval=60.0, seeds=(served.seed_url,),
                            include=(served.include_pattern,))
        run_index(dataclasses.replace(settings), progress=False)
    return served, data


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
    assert len(metadata) == known and len(bodies) == kept
    assert metadata[web.seed_url]["title"] == web.title(0, 0)
    assert sorted(bodies.values()) == sorted(stored.values())


def test_a_missing_data_dir_is_one_line(tmp_path: Path):
    result = webcrawler("export", "--data-dir", str(tmp_path / "nothing"))
    assert result.returncode == 1
    missing = tmp_path / "nothing" / "webcrawler.db"
    assert result.stderr.decode().strip() == f"Error: no crawl to export: {missing} does not exist"
