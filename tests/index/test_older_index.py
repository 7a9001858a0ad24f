"""An index written before the index had rooms still opens, is searched and written to.

Whoosh pickles our schema and codec classes into each table of contents by module name;
tests/data/index-before-rooms/ was written by the flat package (commit e52de63: two
documents, one commit), whose table of contents names the old modules
(`format/pickled.py`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from webcrawler.index import IndexedDocument, check, open_searcher, open_writer

OLDER = Path(__file__).resolve().parent.parent / "data" / "index-before-rooms"


def _copy(tmp_path: Path) -> Path:
    index_dir = tmp_path / "index"
    shutil.copytree(OLDER, index_dir)
    return index_dir


def _toc(index_dir: Path) -> bytes:
    newest = max(index_dir.glob("_MAIN_*.toc"), key=lambda p: int(p.stem.rsplit("_", 1)[1]))
    return newest.read_bytes()


def test_the_older_table_of_contents_names_the_old_modules() -> None:
    toc = _toc(OLDER)
    assert b"webcrawler.index.postings" in toc and b"webcrawler.index.format" not in toc


def test_an_older_index_passes_the_check_and_is_searched(tmp_path: Path) -> None:
    index_dir = _copy(tmp_path)
    check(index_dir)
    with open_searcher(index_dir) as searcher:
        results = searcher.search("sailing boats")
    assert [hit.url for hit in results.hits] == ["http://127.0.1.1/boats"]


def test_an_older_index_takes_new_documents_and_then_names_the_new_modules(tmp_path: Path) -> None:
    index_dir = _copy(tmp_path)
    with open_writer(index_dir) as writer:
        writer.add([IndexedDocument(doc_id=3, url="http://127.0.1.1/boats/more", title="More boats",
                                    text="Rowing boats need oars.", host="127.0.1.1",
                                    language="en", kind="html")])
        writer.commit()
    assert b"webcrawler.index.format.postings" in _toc(index_dir)
    with open_searcher(index_dir) as searcher:
        results = searcher.search("boats")
    assert sorted(hit.url for hit in results.hits) == ["http://127.0.1.1/boats",
                                                       "http://127.0.1.1/boats/more"]
