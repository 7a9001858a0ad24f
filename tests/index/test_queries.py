"""Stop words, titles, phrases, exclusions, site:, expansion, hostile queries, pages."""

from __future__ import annotations

import pytest

from webcrawler.index import IndexedDocument, QueryError, open_searcher, open_writer


def ids(results) -> list[int]:
    return [h.doc_id for h in results.hits]


def test_stop_words_are_not_indexed_or_matched(tiny) -> None:
    with pytest.raises(QueryError, match="common words"):
        tiny.search("for the and")
    assert ids(tiny.search("the cider")) == [2]


def test_title_words_are_indexed(tiny) -> None:
    assert ids(tiny.search("motor")) == [4]


def test_phrase_requires_adjacent_words(tiny) -> None:
    assert ids(tiny.search('"apple pie"')) == [1]
    assert ids(tiny.search('"pie apple"')) == []
    assert set(ids(tiny.search('"apple cider" pie'))) == {2}


def test_exclusion(tiny) -> None:
    assert ids(tiny.search("apple -cider")) == [1]
    assert ids(tiny.search('pie -"apple pie"')) == [3]


def test_site_restriction(tiny) -> None:
    assert ids(tiny.search("pie site:b.test:8080")) == [3]
    assert ids(tiny.search("pie site:b.test")) == [3]
    assert ids(tiny.search("automobile site:b.test")) == [4]  # sub-domain docs.b.test
    assert ids(tiny.search("pie", site="a.test")) == [1]


def test_query_expansion_uses_the_thesaurus(tiny) -> None:
    assert ids(tiny.search("car")) == []
    results = tiny.search("car", expand=True)
    assert ids(results) == [4] and "<b>automobile</b>" in results.hits[0].snippet


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced',
        "x" * 10_000,
        "apple\x00\x07\x1b[31m",
        "<script>alert(1)</script> pie",
        "the of and",
        "-apple",
        '-"apple pie"',
        "",
        "   ",
        "site:",
        "site:a.test",
        '""',
        "-",
        "\u202e\ufeff",
    ],
)
def test_hostile_queries_give_results_or_query_error(tiny, query: str) -> None:
    try:
        results = tiny.search(query)
    except QueryError as exc:
        assert str(exc) and "Traceback" not in str(exc)
        return
    for hit in results.hits:
        assert "<script>" not in hit.snippet


def test_snippet_is_escaped_and_bolds_query_words(tmp_path) -> None:
    with open_writer(tmp_path / "ix") as writer:
        writer.add([IndexedDocument(1, "http://x/", "T", "a <b>tag</b> & a Word here", "x")])
    with open_searcher(tmp_path / "ix") as searcher:
        snippet = searcher.search("word").hits[0].snippet
    assert snippet == "a &lt;b&gt;tag&lt;/b&gt; &amp; a <b>Word</b> here"


def test_pagination_normalises_over_the_whole_query(tmp_path) -> None:
    docs = [
        IndexedDocument(i, f"http://x/{i}", f"d{i}", "word " * i + "filler " * 20, "x")
        for i in range(1, 26)
    ]
    with open_writer(tmp_path / "ix") as writer:
        writer.add(docs)
    with open_searcher(tmp_path / "ix") as searcher:
        first, third = searcher.search("word", page=1), searcher.search("word", page=3)
        assert first.total == third.total == 25
        assert first.hits[0].score == 1000 and third.hits[0].score < 1000
        assert [h.rank for h in third.hits] == list(range(21, 26))
        assert ids(first)[0] == 25 and ids(third)[-1] == 1
        assert searcher.search("word", page=9).hits == []


def test_anchor_index_ranks_anchor_texts() -> None:
    from webcrawler.index import build_anchor_index

    anchors = build_anchor_index(
        [(10, "molecular biology"), (11, "genome project home"), (12, "home")]
    )
    best = anchors.best("human genome project", 5)
    assert best[0][0] == 11 and best[0][1] > 0
    assert anchors.best("the", 5) == [] and anchors.best('"', 5) == []


@pytest.mark.parametrize("text, query", [
    ("Straße and the İstanbul WORD, word_x and Word.", "word"),  # lower-casing moves offsets
    ("plain WORD, word_x, sword and Word.", "word"),  # str.find on the lower-cased text
])
def test_snippet_bolds_whole_words_either_way(text: str, query: str) -> None:
    from webcrawler.index.search.snippets import snippet

    out = snippet(text, {query})
    assert out.count("<b>") == 2 and "<b>WORD</b>" in out and "<b>Word</b>" in out
    assert "word_x" in out and "<b>word_x" not in out and "s<b>" not in out
