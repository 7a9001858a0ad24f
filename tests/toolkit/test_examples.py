"""Every example in examples/ run end to end, as a user runs it, on the loopback university web."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.toolkit.conftest import read_rows
from webcrawler.demoweb.toolkitweb import indexed_web

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Loopback servers need no politeness delay; two agents are plenty for a dozen pages.
ENV = {**os.environ, "WEBCRAWLER_DELAY": "0", "WEBCRAWLER_AGENTS": "2"}


def run(example: str, *args: str, cwd: Path) -> str:
    done = subprocess.run([sys.executable, str(EXAMPLES / example), *args], cwd=cwd, env=ENV,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stderr
    return done.stdout


def test_faculty_list_prints_every_home_page_and_nothing_else(web, tmp_path):
    out = run("faculty_list.py", web.url("/faculty/"), cwd=tmp_path)
    listed = dict(line.split(" ", 1) for line in out.splitlines())
    assert listed == web.truth().faculty


def test_print_document_concatenates_the_manual_and_only_it(web, tmp_path):
    run("print_document.py", web.url("/manual/index.html"), "manual.html", cwd=tmp_path)
    text = (tmp_path / "manual.html").read_text(encoding="utf-8")
    positions = [text.index(url) for url in web.truth().chapters]
    assert positions == sorted(positions)
    assert "/standard.html</div>" not in text  # the link outside the document was not followed
    assert text.count('<section class="page"') == 5 and "<script" not in text


def test_photo_album_collects_every_faculty_photo(web, tmp_path):
    run("photo_album.py", web.url("/faculty/"), "album", cwd=tmp_path)
    rows = read_rows(tmp_path / "album" / "images.csv")
    assert {row["image"]: row["alt"] for row in rows} == web.truth().photos
    assert all((tmp_path / "album" / row["local"]).read_bytes()[:4] == b"\x89PNG" for row in rows)
    assert (tmp_path / "album" / "album.html").is_file()


def test_broken_links_reports_exactly_the_broken_links(web, tmp_path):
    out = run("broken_links.py", web.url("/"), "report.csv", cwd=tmp_path)
    rows = [row for row in read_rows(tmp_path / "report.csv") if row["verdict"] == "broken"]
    assert {row["target"] for row in rows} == web.truth().broken
    assert all(row["source"].startswith(web.url("/")) for row in rows)
    assert "3 broken" in out


def test_category_rerank_puts_the_organism_first(tmp_path):
    with indexed_web(tmp_path / "data") as data_dir:
        out = run("category_rerank.py", str(data_dir), "amoeba", cwd=tmp_path)
    lines = [line.split() for line in out.splitlines()[1:]]
    ranked = [(int(rank), float(fast), float(slow), url) for rank, fast, slow, url in lines]
    assert len(ranked) == 6  # every answer fetched and scored: the topics page and five articles
    biology = {url for *_, url in ranked if url.endswith(("/amoeba-cell.html", "/amoeba-pond.html"))}
    assert {url for *_, url in ranked[:2]} == biology  # re-ranked: the organism first
    assert max(rank for rank, *_ in ranked[:2]) > 2  # ... though the search engine put one lower
    assert all(slow > 0 for _, _, slow, _ in ranked)
