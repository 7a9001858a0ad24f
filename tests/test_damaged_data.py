"""Damaged data directories, as a user meets them through the real command: `serve` and
`index` name the damaged file and the way out in one line and exit 1 (no traceback, no
500 on every page); `index --reindex` rebuilds the index from the database's documents."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.index import open_searcher

HOST = "127.0.10.61"
PAGES = {"/": html("Home", "welcome to the orchard", [(f"/p{i}", f"page {i}") for i in range(1, 9)])}
PAGES.update({f"/p{i}": html(f"Page {i}", f"apple variety number{i} orchard") for i in range(1, 9)})


def webcrawler(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "webcrawler.cli", *args], capture_output=True,
                          text=True, timeout=timeout)


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data directory with 9 fetched, indexed pages (crawled once for the module)."""
    data = tmp_path_factory.mktemp("crawled") / "data"
    with LoopbackWeb([Site(HOST, PAGES)]) as web:
        result = webcrawler("index", "--delay", "0", "--agents", "2", "--no-progress",
                            "--data-dir", str(data), "--seed", web.url(HOST, "/"))
    assert result.returncode == 0, result.stderr
    assert "documents retrieved  9" in result.stdout
    return data


@pytest.fixture
def data(crawled: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "data"
    shutil.copytree(crawled, copy)
    return copy


COMMANDS = {"serve": ["serve", "--port", "0"], "index": ["index", "--no-progress", "--hours", "0.001"],
            "stats": ["stats"], "optimize": ["optimize"], "export": ["export"],
            "search": ["search", "orchard", "--seconds", "2"],
            "index-writer": ["index-writer", "--shard", "0", "--shards", "1", "--until-empty"],
            "evaluate-ordering": ["evaluate-ordering"], "plan-recrawl": ["plan-recrawl", "--from-crawl"]}


def refused(data: Path, command: str) -> str:
    """Run `command` on `data`: it must exit 1 with one line on stderr; return the line."""
    args = COMMANDS[command]
    result = webcrawler(*args, "--data-dir", str(data), timeout=60)
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def largest_segment(data: Path) -> Path:
    return max((data / "index").glob("*.seg"), key=lambda p: p.stat().st_size)


@pytest.mark.parametrize("command", ["serve", "index"])
def test_a_truncated_segment_is_named_with_the_way_out(data: Path, command: str) -> None:
    segment = largest_segment(data)
    segment.write_bytes(segment.read_bytes()[: segment.stat().st_size // 2])
    line = refused(data, command)
    assert str(segment) in line and "webcrawler index --reindex" in line


@pytest.mark.parametrize("command", ["serve", "index", "stats", "optimize"])
def test_garbage_in_the_table_of_contents_is_named(data: Path, command: str) -> None:
    (toc,) = (data / "index").glob("_MAIN_*.toc")
    toc.write_bytes(b"\x04\x08\x04" + b"\x00garbage" * 40)
    line = refused(data, command)
    assert "table of contents" in line and "webcrawler index --reindex" in line


def damage_database(path: Path, how: str) -> None:
    if how == "not sqlite":
        path.write_bytes(b"this is not a database\n" * 500)
    elif how == "truncated":
        with sqlite3.connect(path) as conn:  # checkpoint the log into the file first
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    else:
        conn = sqlite3.connect(path)
        conn.execute("DROP TABLE links")
        conn.commit()
        conn.close()


@pytest.mark.parametrize("command", ["serve", "index"])
@pytest.mark.parametrize("how,says", [("not sqlite", "is not an SQLite database"),
                                      ("truncated", "is truncated"), ("missing table", "has no table links")])
def test_a_damaged_database_is_named(data: Path, command: str, how: str, says: str) -> None:
    database = data / "webcrawler.db"
    damage_database(database, how)
    before = sorted(p.name for p in data.iterdir())
    line = refused(data, command)
    assert str(database) in line and says in line
    assert sorted(p.name for p in data.iterdir()) == before  # nothing written beside it


@pytest.mark.parametrize("command", ["export", "search", "index-writer", "evaluate-ordering", "plan-recrawl",
                                     "stats"])
def test_every_command_names_a_database_that_is_not_one(data: Path, command: str) -> None:
    database = data / "webcrawler.db"
    damage_database(database, "not sqlite")
    line = refused(data, command)
    assert str(database) in line
    assert ("is not an SQLite database" if command != "plan-recrawl" else "not a database") in line


def test_a_database_damaged_past_its_first_rows_is_one_line_too(data: Path) -> None:
    """`check_database` reads one row a table; the rest is read by the command itself."""
    database = data / "webcrawler.db"
    with sqlite3.connect(database) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.executemany("INSERT INTO documents (server_id, path, state, depth, discovered_at, "
                         "times_fetched, times_changed, redirects, detail) SELECT server_id, "
                         "path || ?, state, depth, discovered_at, 0, 0, 0, ? FROM documents "
                         "LIMIT 1", [(f"?copy={i}", "x" * 3000) for i in range(300)])  # pages far away
        (pages,) = conn.execute("PRAGMA page_count").fetchone()
        (size,) = conn.execute("PRAGMA page_size").fetchone()
    conn.close()
    raw = bytearray(database.read_bytes())
    for page in range(pages // 2, pages - 1):  # the second half of the file: garbage, header kept
        raw[page * size : (page + 1) * size] = b"\xa5" * size
    database.write_bytes(bytes(raw))
    line = refused(data, "export")
    assert "cannot be read" in line and "restore it from a backup" in line


def test_index_writer_refuses_a_data_directory_that_does_not_exist(tmp_path: Path) -> None:
    missing = tmp_path / "mistyped"
    line = refused(missing, "index-writer")
    assert "no data directory" in line and str(missing) in line
    assert not missing.exists()


def test_reindex_rebuilds_a_damaged_index_from_the_database(data: Path) -> None:
    segment = largest_segment(data)
    segment.write_bytes(segment.read_bytes()[:100])
    result = webcrawler("index", "--reindex", "--data-dir", str(data))
    assert result.returncode == 0, result.stderr
    assert "index rebuilt: 9 documents" in result.stdout
    assert "reindexed 9 of 9 documents" in result.stderr  # progress on stderr
    (aside,) = data.glob("index.damaged-*")
    assert segment.name in {p.name for p in aside.iterdir()}  # moved, not deleted
    with open_searcher(data / "index") as searcher:
        assert searcher.doc_count() == 9
        assert searcher.search("number5").hits[0].url.endswith("/p5")
    stats = json.loads(webcrawler("stats", "--json", "--data-dir", str(data)).stdout)
    assert stats["index_documents"] == 9


def test_reindex_counts_documents_crawled_before_text_was_kept(data: Path) -> None:
    conn = sqlite3.connect(data / "webcrawler.db")
    # as if three pages had been indexed by a webcrawler that deleted their text afterwards
    conn.execute("DELETE FROM index_outbox WHERE doc_id IN "
                 "(SELECT doc_id FROM index_outbox ORDER BY doc_id LIMIT 3)")
    conn.execute("UPDATE meta SET value = ? WHERE key = 'index_text_kept_since'", (repr(time.time() + 1),))
    conn.commit()
    conn.close()
    result = webcrawler("index", "--reindex", "--no-progress", "--data-dir", str(data))
    assert result.returncode == 0, result.stderr
    assert "index rebuilt: 6 documents" in result.stdout
    assert "3 documents fetched before this version kept indexed text" in result.stdout
    assert len(list(data.glob("index.previous-*"))) == 1  # the sound index, set aside all the same


def test_reindex_without_a_database_writes_nothing(tmp_path: Path) -> None:
    result = webcrawler("index", "--reindex", "--data-dir", str(tmp_path / "nowhere"))
    assert result.returncode == 1 and "no database in" in result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "nowhere").exists()


def test_the_readme_names_the_folder_reindex_moves_the_old_index_to(data: Path) -> None:
    """README said `index.damaged-<time>` for every rebuild; a sound index goes to
    `index.previous-<time>`, and both beside the index, in the data directory."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    paragraph = next(p for p in readme.split("\n\n") if "`webcrawler index --reindex`," in p)
    result = webcrawler("index", "--reindex", "--no-progress", "--data-dir", str(data))
    assert result.returncode == 0, result.stderr
    (aside,) = data.glob("index.previous-*")
    assert f"the previous index was moved to {aside}" in result.stdout
    assert "`<data-dir>/index.previous-<time>` when it was sound" in " ".join(paragraph.split())
    segment = largest_segment(data)
    segment.write_bytes(segment.read_bytes()[:100])
    assert webcrawler("index", "--reindex", "--no-progress", "--data-dir", str(data)).returncode == 0
    assert len(list(data.glob("index.damaged-*"))) == 1
    assert "`<data-dir>/index.damaged-<time>` when it was damaged" in " ".join(paragraph.split())
