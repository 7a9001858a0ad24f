"""Nothing of a credential in storage (issue 37): with --keep-responses, a credentialed
fetch's response is stored without its Set-Cookie (nor the other session headers, nor any
header that echoes the secret), so WARC export has none; an uncredentialed fetch keeps its
headers. The data directory is created 0700 and the database 0600. A real HTTPS server with
this test's own CA, a real SQLite file, a real WARC read back with warcio."""

from __future__ import annotations

import base64
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select
from warcio.archiveiterator import ArchiveIterator

from tests.support.tls import TestCA
from webcrawler.database.schema import connect, documents, responses
from webcrawler.datadir import DataDir
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.settings import Settings

from .conftest import crawl, with_credentials

SECRET = "st0red-Pa55word"
BASIC = "Basic " + base64.b64encode(f"crawler:{SECRET}".encode()).decode()
SESSION = "session=intranet-SESSION-7f3a; Secure; HttpOnly"


def cookie_page(title: str, links: list[tuple[str, str]], echo: str = "") -> Page:
    """A page that hands out a session; `echo`: and shows the request's Authorization back."""
    page = html(title, "words", links)
    return Page(page.body, headers=(("Set-Cookie", SESSION), ("Authentication-Info", "rspauth=1"),
                                    ("X-Echo", f"you sent {echo}"), ("X-Kept", "yes")))


@pytest.fixture
def private_umask():
    """The usual umask (022: files 644, directories 755), whatever the runner's."""
    old = os.umask(0o022)
    yield
    os.umask(old)


def test_a_credentialed_fetch_is_stored_without_its_session(tmp_path: Path, settings: Settings,
                                                            private_umask: None) -> None:
    ca = TestCA(tmp_path / "ca")
    intranet = {"/": cookie_page("intranet", [("/p1", "one")], BASIC),
                "/p1": cookie_page("p1", [], BASIC)}
    public = {"/": cookie_page("public", [])}
    sites = [Site("127.0.6.70", intranet, tls=ca.server_context(ca.issue("127.0.6.70")),
                  auth=("Authorization", BASIC)),
             Site("127.0.6.71", public)]
    with LoopbackWeb(sites) as web:
        with_credentials(settings.data_dir.parent, "127.0.6.70", SECRET)
        crawl(settings, [web.url("127.0.6.70"), web.url("127.0.6.71")], keep_responses=True,
              ca_bundle=str(ca.cert))
    engine = connect(settings.database_url)
    try:
        with engine.connect() as conn:
            stored = [dict(map(tuple, json.loads(row.headers))) for row in conn.execute(
                select(responses.c.headers).join(documents, responses.c.doc_id == documents.c.id))]
    finally:
        engine.dispose()
    assert len(stored) == 3 and all("X-Kept" in headers for headers in stored)
    assert [h.get("Set-Cookie") for h in stored].count(SESSION) == 1  # the public page's only
    out = tmp_path / "crawl.warc.gz"
    export = subprocess.run([sys.executable, "-m", "webcrawler.cli", "export", "--format", "warc",
                             "--data-dir", str(settings.data_dir), "--output", str(out)],
                            capture_output=True, text=True, timeout=120)
    assert export.returncode == 0, export.stderr
    warc: dict[str, dict[str, str]] = {}
    with open(out, "rb") as stream:
        for record in ArchiveIterator(stream):
            if record.rec_type == "response":
                warc[record.rec_headers.get_header("WARC-Target-URI")] = dict(
                    record.http_headers.headers)
    for url, headers in warc.items():
        if "127.0.6.70" in url:
            assert "X-Kept" in headers and not {"Set-Cookie", "Authentication-Info",
                                                "X-Echo"} & set(headers), url
        else:
            assert headers["Set-Cookie"] == SESSION and "X-Kept" in headers  # not credentialed
    assert len(warc) == 3
    raw = out.read_bytes() + b"".join(p.read_bytes() for p in settings.data_dir.rglob("*")
                                      if p.is_file() and p.name != "webcrawler.toml")
    assert BASIC.split()[1].encode() not in raw


def test_the_data_directory_is_its_owners_only(settings: Settings, private_umask: None) -> None:
    """Made by the crawl, under the usual umask: the directory 0700, the database 0600 (and
    SQLite's -wal and -shm files with it); the index inside a directory nobody else may enter."""
    data = settings.data_dir / "new" / "data"  # parents the crawl makes too
    with LoopbackWeb([Site("127.0.6.72", {"/": html("home", "words")})]) as web:
        crawl(settings, [web.url("127.0.6.72")], data_dir=data, keep_responses=True)
    for directory in (data, data.parent, settings.data_dir):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    files = [path for path in DataDir(data).database_files if path.exists()]
    assert len(files) >= 1 and files[0].name == "webcrawler.db"
    for path in files:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
