"""Every example in examples/ run end to end, as a user runs it, on the loopback university web."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from webcrawler.testing.toolkitweb import ToolkitWeb, serve_search

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# Loopback servers need no politeness delay; two agents are plenty for a dozen pages.
ENV = {**os.environ, "WEBCRAWLER_DELAY": "0", "WEBCRAWLER_AGENTS": "2"}


@pytest.fixture(scope="module")
def web():
    with ToolkitWeb() as served:
        yield served


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
    rows = list(csv.DictReader((tmp_path / "album" / "images.csv").open(encoding="utf-8")))
    assert {row["image"]: row["alt"] for row in rows} == web.truth().photos
    assert (tmp_path / "album" / "album.html").is_file()


def test_broken_links_reports_exactly_the_broken_links(web, tmp_path):
    out = run("broken_links.py", web.url("/"), "report.csv", cwd=tmp_path)
    rows = list(csv.DictReader((tmp_path / "report.csv").open(encoding="utf-8", newline="")))
    assert {row["target"] for row in rows} == web.truth().broken
    assert all(row["source"].startswith(web.url("/")) for row in rows)
    assert "2 broken" in out


def test_category_rerank_puts_the_organism_first(tmp_path):
    with serve_search("amoeba") as search_url:
        out = run("category_rerank.py", search_url, cwd=tmp_path)
    lines = [line.split() for line in out.splitlines()[1:]]
    ranked = [(int(rank), float(fast), float(slow), url) for rank, fast, slow, url in lines]
    assert len(ranked) == 5  # every answer fetched and scored
    biology = {url for *_, url in ranked if "/topics/amoeba-cell" in url or "amoeba-pond" in url}
    assert {url for *_, url in ranked[:2]} == biology  # re-ranked: the organism first
    assert max(r[0] for r in ranked[:2]) > 1  # ... though the search engine ranked it lower
