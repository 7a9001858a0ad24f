"""A segment's stored-fields directory is read once and handed to each commit's reader:
results show the same titles, URLs and texts as Whoosh's own reading, commit after commit."""

from __future__ import annotations

from pathlib import Path

from whoosh.index import open_dir

from webcrawler.index import IndexedDocument, open_searcher, open_writer
from webcrawler.index.format import segcache


def _documents(first: int, count: int) -> list[IndexedDocument]:
    return [IndexedDocument(n, f"http://h{n % 3}.test/{n}", f"title {n}",
                            f"common word{n} " + "filler " * (n % 17), f"h{n % 3}.test")
            for n in range(first, first + count)]


def _whoosh_fields(path: Path) -> dict[int, tuple[str, str, str]]:
    """doc_id -> (url, title, text) as Whoosh reads them, without this package's reader."""
    with open_dir(str(path)).searcher() as plain:
        return {int(f["doc_id"]): (f["url"], f["title"], f["text"]) for f in plain.all_stored_fields()}


def test_results_read_through_the_remembered_directory_match_whoosh(tmp_path: Path) -> None:
    path = tmp_path / "ix"
    segcache.clear()
    with open_writer(path) as writer:
        writer.add(_documents(1, 40))
        writer.commit()
        writer.add(_documents(41, 25))
        writer.commit()
    with open_searcher(path) as searcher:
        first = searcher.search("common", per_page=100)
        with open_writer(path) as writer:  # a new commit: new readers, the same old segments
            writer.add(_documents(66, 10))
            writer.commit()
        searcher.refresh()
        second = searcher.search("common", per_page=100)
        whoosh_reader = searcher._searcher.reader()
        leaves = [leaf for leaf, _offset in whoosh_reader.leaf_readers()]
        assert all(segcache.peek(leaf, ("stored directory",)) is not None for leaf in leaves)
    expected = _whoosh_fields(path)
    assert first.total == 65 and second.total == 75
    for hit in [*first.hits, *second.hits]:
        url, title, _text = expected[hit.doc_id]
        assert (hit.url, hit.title) == (url, title)
        assert "common" in hit.snippet.lower()
