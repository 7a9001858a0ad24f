"""The fast match count agrees with Whoosh's own count (deletions, segments, OR, phrases)."""

from __future__ import annotations

from pathlib import Path

from webcrawler.index import IndexedDocument, open_searcher, open_writer
from webcrawler.index.counting import count_matches
from webcrawler.index.query import parse, to_whoosh


def test_count_matches_agrees_with_whoosh(tmp_path: Path) -> None:
    docs = [
        IndexedDocument(i, f"http://h/{i}", f"t{i}", f"alpha{i % 3} beta{i % 7} common", "h")
        for i in range(1, 701)
    ]
    with open_writer(tmp_path / "ix") as writer:
        for start in range(0, len(docs), 200):  # several segments
            writer.add(docs[start : start + 200])
            writer.commit()
        writer.delete(range(1, 700, 5))  # deletions in every segment
        writer.add([IndexedDocument(5000, "http://h/x", "x", "alpha0 beta1 rare", "h")])
    with open_searcher(tmp_path / "ix") as searcher:
        whoosh = searcher._searcher
        for text in ["alpha0", "common", "alpha0 beta1", "rare alpha1", '"beta1 common"', "alpha0 -beta1"]:
            parsed = parse(text)
            query = to_whoosh(parsed)
            expected = sum(1 for _ in whoosh.docs_for_query(query))
            assert count_matches(whoosh, parsed, query) == expected, text
            assert searcher.search(text, per_page=5).total == expected, text
