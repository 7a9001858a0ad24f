"""`webcrawler stats`: the recrawl section, text and --json, on a real crawl's database."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

from sqlalchemy import update

from tests.export.conftest import webcrawler
from webcrawler.database.schema import connect, documents


def test_a_fresh_crawl_has_nothing_recrawled_and_every_page_in_bucket_zero(crawled):
    _web, data = crawled
    result = webcrawler("stats", "--json", "--data-dir", str(data))
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout)
    recrawl = figures["recrawl"]
    stored = figures["documents"]["fetched"]
    assert recrawl["available"] and recrawl["stored"] == stored > 0
    assert recrawl["recrawled"] == recrawl["recrawls"] == recrawl["changed"] == 0
    assert sum(recrawl["buckets"].values()) == stored


def test_history_shows_in_the_text_and_json_sections(crawled, tmp_path: Path):
    """The history a recrawl would write (the contract's columns), summed and binned."""
    _web, data = crawled
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    engine = connect(f"sqlite:///{copy / 'webcrawler.db'}")
    d = documents
    with engine.begin() as conn:
        ids = [row.id for row in conn.execute(d.select().where(d.c.state == "fetched").order_by(d.c.id))]
        conn.execute(update(d).where(d.c.id.in_(ids[:3])).values(
            times_fetched=4, times_changed=1, times_trivial=1, times_unmodified=1, times_not_modified=1,
            change_bucket=40,
            next_due=time.time() - 10))
        conn.execute(update(d).where(d.c.id == ids[3]).values(state="gone", times_fetched=2))
    engine.dispose()
    figures = json.loads(webcrawler("stats", "--json", "--data-dir", str(copy)).stdout)["recrawl"]
    assert (figures["due"], figures["recrawled"], figures["recrawls"], figures["gone"]) == (3, 3, 10, 1)
    assert (figures["changed"], figures["trivial"], figures["unmodified"]) == (3, 3, 3)
    assert figures["not_modified"] == 3
    assert figures["buckets"]["40"] == 3
    text = webcrawler("stats", "--data-dir", str(copy)).stdout.decode()
    assert "recrawl    3 due now, 3 of" in text and "1 gone" in text
    assert "3 unmodified (3 answered 304, 0 identical), 3 trivially changed" in text and " 40:3 " in text
