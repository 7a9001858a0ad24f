"""A sharded index searches exactly like one index over the same documents (issue 15).

One index and S = 2 and S = 3 sharded indexes are built from the same generated
documents (several commits each, so shards and the one index have several segments);
every query of the query language - words, repeated words, phrases, exclusions,
site:, thesaurus expansion, deeper pages - must give the same hits in the same order
with the same 1000-normalised scores, totals and snippets, on the fast word path and
on Whoosh's matcher path alike. Documents of equal score are compared in doc_id order:
Whoosh's matchers add a document's word scores in an order that depends on its
segment's terms, so two identical documents can differ in the last bit and swap, in
one index as much as in shards (the fast word path sums in query order: no swaps).
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from webcrawler.index import IndexDamaged, IndexedDocument, check, open_searcher, open_writer
from webcrawler.index.format.version import shard_count, shard_dir
from webcrawler.index.search.sharded import ShardedSearcher
from webcrawler.index.writing.shards import open_shard_writer, optimize, shard_of

WORDS = (
    "apple pie cider crust filling recipe cinnamon sugar butter flour oven bake orchard tree "
    "harvest autumn press juice barrel market car automobile engine motor wheel road garage "
    "python code module function class import search index crawler robot server page link "
    "anchor query rank score weight shard merge segment commit writer reader"
).split()
HOSTS = ("a.test", "b.test:8080", "docs.b.test", "c.test")
COMMITS = 3


def _documents(count: int = 240) -> list[IndexedDocument]:
    """Zipf-ish texts over WORDS; documents 200-219 repeat 19-38 (equal scores: ties), 181
    ids apart, so that twins fall in different shards for S = 2 and 3."""
    rng = random.Random(15)
    weights = [1.0 / (rank + 1) for rank in range(len(WORDS))]
    docs = []
    for doc_id in range(1, count + 1):
        if 200 <= doc_id < 220:
            twin = docs[doc_id - 182]
            docs.append(IndexedDocument(doc_id, f"http://{twin.host}/copy/{doc_id}", twin.title,
                                        twin.text, twin.host))
            continue
        title = " ".join(rng.choices(WORDS, weights, k=rng.randint(1, 3)))
        text = " ".join(rng.choices(WORDS, weights, k=rng.randint(5, 150)))
        host = HOSTS[doc_id % len(HOSTS)]
        docs.append(IndexedDocument(doc_id, f"http://{host}/p/{doc_id}", title, text, host))
    return docs


DOCS = _documents()


def _build(root: Path, shards: int) -> Path:
    """The documents in doc_id order, in COMMITS commits, into one index or `shards` shards."""
    index_dir = root / f"index-{shards}"
    step = len(DOCS) // COMMITS + 1
    for start in range(0, len(DOCS), step):
        part = DOCS[start : start + step]
        for k in range(shards):
            with open_shard_writer(index_dir, k, shards) as writer:
                writer.add([d for d in part if shard_of(d.doc_id, shards) == k])
    return index_dir


@pytest.fixture(scope="module")
def indexes(tmp_path_factory: pytest.TempPathFactory) -> dict[int, Path]:
    root = tmp_path_factory.mktemp("shards")
    return {shards: _build(root, shards) for shards in (1, 2, 3)}


QUERIES = [
    ("apple", {}),
    ("car", {}),
    ("apple pie", {}),
    ("pie pie apple", {}),
    ("shard merge segment commit", {}),
    ("harvest orchard", {"page": 2}),
    ("apple", {"page": 3, "per_page": 7}),
    ('"apple pie"', {}),
    ('"apple pie" cider', {}),
    ("apple -cider", {}),
    ('pie -"apple pie"', {}),
    ("pie site:b.test", {}),
    ("apple", {"site": "a.test"}),
    ("car", {"expand": True}),
    ("automobile engine", {"expand": True}),
    ("writer reader", {"per_page": 50}),
    ("nosuchword", {}),
    ("apple type:html", {}),
    ("apple pie lang:en", {}),
    ("pies", {}),
    ("site:b.test", {}),  # filters alone (issue 38): their documents, by link prior
    ("type:html -apple", {"page": 2}),
]


def _results(searcher, query: str, options: dict) -> tuple:  # type: ignore[no-untyped-def]
    results = searcher.search(query, **options)
    ranks = [h.rank for h in results.hits]
    hits = sorted((-h.score, h.doc_id, h.url, h.title, h.snippet, h.site, h.more)
                  for h in results.hits)
    return results.total, ranks, hits, results.facets


@pytest.mark.parametrize("parallel", [True, False], ids=["parallel", "in-turn"])
@pytest.mark.parametrize("usequality", [True, False], ids=["fast-paths", "whoosh-matchers"])
def test_sharded_search_equals_one_index(indexes: dict[int, Path], usequality: bool,
                                         parallel: bool) -> None:
    with open_searcher(indexes[1], usequality=usequality) as one:
        expected = [_results(one, q, o) for q, o in QUERIES]
    found = sum(bool(hits) for _total, _ranks, hits, _facets in expected)
    assert found >= len(QUERIES) - 2  # all but nosuchword (and lang:en on random words)
    for shards in (2, 3):
        with open_searcher(indexes[shards], usequality=usequality, parallel=parallel) as sharded:
            assert isinstance(sharded, ShardedSearcher)
            assert sharded.doc_count() == len(DOCS)
            for (query, options), want in zip(QUERIES, expected, strict=True):
                assert _results(sharded, query, options) == want, (shards, query, options)


def test_ties_break_by_doc_id_across_shards(indexes: dict[int, Path]) -> None:
    """Documents 19 and 200 are twins (equal scores) in different shards of S = 2 and 3."""
    assert shard_of(19, 2) != shard_of(200, 2) and shard_of(19, 3) != shard_of(200, 3)
    twin = DOCS[18]
    query = twin.title
    for shards in (1, 2, 3):
        with open_searcher(indexes[shards]) as searcher:
            hits = searcher.search(query, per_page=100).hits
        found = [h.doc_id for h in hits if h.doc_id in (19, 200)]
        scores = {h.score for h in hits if h.doc_id in (19, 200)}
        assert found == [19, 200] and len(scores) == 1, shards


def test_a_shard_alone_scores_differently(indexes: dict[int, Path]) -> None:
    """The collection statistics matter: one shard's own statistics give other scores, so
    the equality above comes from combining them."""
    with open_searcher(indexes[1]) as one, open_searcher(shard_dir(indexes[2], 0)) as alone:
        mine = {h.doc_id: h.score for h in one.search("apple pie cider", per_page=100).hits}
        own = {h.doc_id: h.score for h in alone.search("apple pie cider", per_page=100).hits}
    assert own and all(shard_of(doc_id, 2) == 0 for doc_id in own)
    assert any(own[d] != mine[d] for d in own)


def test_layout_is_recorded_and_enforced(tmp_path: Path) -> None:
    index_dir = tmp_path / "index"
    mine = [d for d in DOCS[:4] if shard_of(d.doc_id, 2) == 1]
    with open_shard_writer(index_dir, 1, 2) as writer:
        writer.add(mine)
    assert shard_count(index_dir) == 2
    with pytest.raises(IndexDamaged, match="split into 2 shards, not 3"):
        open_shard_writer(index_dir, 0, 3)
    with pytest.raises(IndexDamaged, match="split into 2 shards"):
        open_writer(index_dir)
    with open_searcher(index_dir) as searcher:  # shard 0 has no index yet: it is empty
        assert searcher.doc_count() == len(mine) == 2
    check(index_dir)


def test_check_and_optimize_work_per_shard(tmp_path: Path) -> None:
    index_dir = _build(tmp_path, 2)
    assert optimize(index_dir) == 2
    assert optimize(index_dir, only=1) == 1
    with open_searcher(index_dir) as searcher:
        assert searcher.doc_count() == len(DOCS)
    check(index_dir)
    damaged = next(shard_dir(index_dir, 1).glob("*.seg"))
    damaged.write_bytes(damaged.read_bytes()[:100])
    with pytest.raises(IndexDamaged, match="shard-1"):
        check(index_dir)
