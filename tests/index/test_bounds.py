"""The scorer's upper bounds are true: block skipping changes nothing."""

from __future__ import annotations

import random
from pathlib import Path

from webcrawler.index import IndexedDocument, open_searcher, open_writer

VOCAB = [f"w{i}" for i in range(60)]


def test_results_same_with_and_without_block_quality(tmp_path: Path) -> None:
    rng = random.Random(7)
    docs = []
    for i in range(1, 601):
        length = rng.choice([3, 10, 40, 200, 800])
        words = rng.choices(VOCAB, weights=[1 / (k + 1) for k in range(len(VOCAB))], k=length)
        docs.append(
            IndexedDocument(
                i, f"http://h/{i}", " ".join(rng.sample(VOCAB, 2)), " ".join(words), "h"
            )
        )
    with open_writer(tmp_path / "ix") as writer:
        for start in range(0, len(docs), 150):  # several segments
            writer.add(docs[start : start + 150])
            writer.commit()
    queries = ["w0", "w1 w2", "w0 w59", "w3 w4 w5", "w10 w20", '"w0 w1" w2', "w1 -w2"]
    with (
        open_searcher(tmp_path / "ix") as fast,
        open_searcher(tmp_path / "ix", usequality=False) as slow,
    ):
        for q in queries:
            a, b = fast.search(q, per_page=10), slow.search(q, per_page=10)
            assert [(h.doc_id, h.score) for h in a.hits] == [(h.doc_id, h.score) for h in b.hits], q
            assert a.total == b.total, q
