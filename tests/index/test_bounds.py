"""The scorer's upper bounds are true: block skipping changes nothing; and the fast
paths (term-at-a-time word queries, counting) agree with Whoosh's matcher path."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from whoosh.collectors import TopCollector

from webcrawler.index import IndexedDocument, open_searcher, open_writer
from webcrawler.index.search.weighting import Peculiarity
from webcrawler.index.words.query import parse, to_whoosh

VOCAB = [f"w{i}" for i in range(60)]
QUERIES = ["w0", "w1 w2", "w0 w59", "w3 w4 w5", "w10 w20", '"w0 w1" w2', "w1 -w2"]


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
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
    path = tmp_path_factory.mktemp("bounds") / "ix"
    with open_writer(path) as writer:
        for start in range(0, len(docs), 150):  # several segments
            writer.add(docs[start : start + 150])
            writer.commit()
        writer.delete(range(1, 601, 37))
    return path


def test_results_same_with_and_without_block_quality(index_dir: Path) -> None:
    with (
        open_searcher(index_dir) as fast,
        open_searcher(index_dir, usequality=False) as slow,
    ):
        for q in QUERIES:
            a, b = fast.search(q, per_page=10), slow.search(q, per_page=10)
            assert [(h.doc_id, h.score) for h in a.hits] == [(h.doc_id, h.score) for h in b.hits], q
            assert a.total == b.total, q


@pytest.mark.parametrize("query", QUERIES)
def test_whoosh_block_skipping_keeps_the_top_n(index_dir: Path, query: str) -> None:
    """Whoosh's collector with block-max skipping (phrases, site:, exclusions use it)."""
    with open_searcher(index_dir) as searcher:
        whoosh = searcher._searcher
        parsed = parse(query)
        results = []
        for usequality in (True, False):
            collector = TopCollector(limit=10, usequality=usequality)
            context = whoosh.context(weighting=Peculiarity(*parsed.weights()))
            whoosh.search_with_collector(to_whoosh(parsed), collector, context=context)
            results.append(collector.results().top_n)
        assert results[0] == results[1]
