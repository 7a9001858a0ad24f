"""Facets, filters and grouping by site: counts over every match, equal to the totals of the
filtered queries, on the fast word path (which they must not leave) and on Whoosh's path."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from webcrawler.index import IndexedDocument, QueryError, open_searcher, open_writer
from webcrawler.index.format import fastpaths
from webcrawler.index.search.grouping import PER_SITE, group, more_from

ENGLISH = "the harbour boats sail out at dawn and the sailors mend their nets on the quay"
GERMAN = "die Boote im Hafen segeln bei Sonnenaufgang hinaus und die Fischer flicken ihre Netze"
FRENCH = "les bateaux du port partent a l'aube et les marins reparent leurs filets sur le quai"


def _documents() -> list[IndexedDocument]:
    """24 documents: site a.test has 12 (english html), b.test 6 (german, 2 of them pdf),
    c.test 6 (french text); every one says "boats" or "Boote" or "bateaux" and "harbour"."""
    docs = []
    for n in range(1, 25):
        if n <= 12:
            host, text, kind = "a.test", ENGLISH, "html"
        elif n <= 18:
            host, text, kind = "b.test:8080", GERMAN, "pdf" if n % 3 == 0 else "html"
        else:
            host, text, kind = "c.test", FRENCH, "text"
        body = f"{text} harbour {'harbour ' * (n % 4)}page {n}"
        docs.append(IndexedDocument(n, f"http://{host}/{n}", f"Page {n}", body, host, kind=kind))
    return docs


@pytest.fixture(scope="module")
def web_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    index_dir = tmp_path_factory.mktemp("facets") / "index"
    docs = _documents()
    with open_writer(index_dir) as writer:
        writer.add(docs[:10])
        writer.commit()  # two segments: counts add up across them
        writer.add(docs[10:])
    return index_dir


def test_languages_are_detected_when_indexed(web_index: Path) -> None:
    with open_searcher(web_index) as searcher:
        languages = dict(searcher.search("harbour").facets["language"])
    assert languages == {"en": 12, "de": 6, "fr": 6}


@pytest.mark.parametrize("usequality", [True, False], ids=["fast-path", "whoosh-matchers"])
@pytest.mark.parametrize("query", ["harbour", "harbour page", '"page 3" harbour', "harbour -boats"])
def test_facet_counts_equal_the_totals_of_the_filtered_queries(web_index: Path, query: str,
                                                              usequality: bool) -> None:
    with open_searcher(web_index, usequality=usequality) as searcher:
        results = searcher.search(query)
        assert results.total and set(results.facets) == {"site", "type", "language"}
        for facet, operator in (("site", "site"), ("type", "type"), ("language", "lang")):
            counted = results.facets[facet]
            assert sum(n for _value, n in counted) == results.total, facet
            for value, n in counted:
                assert searcher.search(f"{query} {operator}:{value}").total == n, (facet, value)


def test_facets_keep_word_queries_on_the_fast_path(web_index: Path) -> None:
    with open_searcher(web_index) as searcher:
        fastpaths.reset()
        results = searcher.search("harbour lang:de type:pdf")
        assert fastpaths.taken["wordsearch.arrays"] >= 1 and not fastpaths.taken["wordsearch.whoosh"]
    assert results.total == 2 and {h.doc_id for h in results.hits} == {15, 18}
    assert results.facets["type"] == [("pdf", 2)]


def test_a_filter_value_must_look_like_one(web_index: Path) -> None:
    with open_searcher(web_index) as searcher, pytest.raises(QueryError, match="type:"):
        searcher.search("harbour type:")


def test_one_site_shows_at_most_a_few_results_on_a_page(web_index: Path) -> None:
    with open_searcher(web_index) as searcher:
        hits = searcher.search("harbour", per_page=9).hits
        by_site = [h.site for h in hits]
        assert {s: by_site.count(s) for s in by_site} == {"a.test": 3, "b.test:8080": 3, "c.test": 3}
        more = [h for h in hits if h.more]  # each site's last hit says there is more of it
        assert sorted(h.site for h in more) == ["a.test", "b.test:8080", "c.test"]
        # the site's own query shows all of it, ungrouped
        site_hits = searcher.search("harbour site:a.test", per_page=20).hits
        assert len(site_hits) == 12 and not any(h.more for h in site_hits)
        # every match is on some page exactly once
        pages = [h.doc_id for p in (1, 2, 3) for h in searcher.search("harbour", page=p, per_page=9).hits]
        assert sorted(pages) == list(range(1, 25))


def test_grouping_keeps_rank_order_within_rounds() -> None:
    sites = ["a", "a", "a", "a", "b", "a", "c"]
    assert group(list(range(7)), sites, per_site=PER_SITE) == [0, 1, 2, 4, 6, 3, 5]
    assert more_from(["a", "b", "a"], {"a": 3, "b": 1}) == [False, False, True]


def test_each_result_carries_its_type_as_the_index_keeps_it(web_index: Path) -> None:
    with open_searcher(web_index) as searcher:
        hits = searcher.search("harbour lang:de", per_page=20).hits
    assert hits and {hit.kind for hit in hits} == {"pdf", "html"}
    assert all(hit.kind == ("pdf" if hit.doc_id % 3 == 0 else "html") for hit in hits)


@pytest.mark.parametrize("per_page", [5, 10, 15])
def test_a_grouped_page_reads_in_score_order(web_index: Path, per_page: int) -> None:
    """Grouping picks a page's results; the page lists them best first, so a site's second
    round (on the page once other sites ran out) is not listed below lower scores (issue 38:
    1000, 0569, ..., 0029, 0405). Every match is still on exactly one page."""
    with open_searcher(web_index) as searcher:
        pages = [searcher.search("harbour", page=p, per_page=per_page).hits
                 for p in range(1, -(-24 // per_page) + 1)]
    for hits in pages:
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True), scores
        assert [h.rank for h in hits] == list(range(hits[0].rank, hits[0].rank + len(hits)))
    assert sorted(h.doc_id for hits in pages for h in hits) == list(range(1, 25))
    first = [h.site for h in pages[0]]
    assert max(first.count(site) for site in set(first)) <= max(PER_SITE, per_page - 2 * PER_SITE)


@pytest.mark.parametrize("usequality", [True, False], ids=["fast-path", "whoosh-matchers"])
def test_a_filter_alone_lists_its_documents(web_index: Path, usequality: bool) -> None:
    """`type:pdf` alone is what a facet link writes for a query of filters: it lists the
    documents the filters let through (it said "type one or more words")."""
    with open_searcher(web_index, usequality=usequality) as searcher:
        pdfs = searcher.search("type:pdf")
        assert pdfs.total == 2 and {h.doc_id for h in pdfs.hits} == {15, 18}
        assert pdfs.facets["type"] == [("pdf", 2)] and pdfs.hits[0].score == 1000
        site = searcher.search("site:c.test", per_page=20)
        assert site.total == 6 and {h.doc_id for h in site.hits} == set(range(19, 25))
        assert searcher.search("lang:de type:html").total == 4
        assert searcher.search("site:b.test type:html -boote").total == 0
        with pytest.raises(QueryError, match="at least one word"):
            searcher.search("-harbour")


def test_facet_counts_add_up_over_segments_that_number_their_values_apart(tmp_path: Path) -> None:
    """Each segment numbers its own combinations of site, type and language; a query's counts
    are added up by combinations shared across segments, and split by facet at the end: they
    are the matched documents' own values, counted, in every segment layout."""
    docs = _documents()
    index_dir = tmp_path / "index"
    with open_writer(index_dir) as writer:  # three segments: a.test alone, then b.test, then all
        for part in (docs[:6], docs[12:15], docs[6:12] + docs[15:]):
            writer.add(part)
            writer.commit()
    language = {"a.test": "en", "b.test:8080": "de", "c.test": "fr"}
    with open_searcher(index_dir) as searcher:
        for query, matched in (("harbour", docs), ("boats", docs[:12]), ("boote bateaux", docs[12:]),
                               ("dawn hafen", docs[:18])):
            results = searcher.search(query)
            expected = {"site": Counter(d.host for d in matched), "type": Counter(d.kind for d in matched),
                        "language": Counter(language[d.host] for d in matched)}
            assert results.total == len(matched), query
            for facet, counter in expected.items():
                assert dict(results.facets[facet]) == dict(counter), (query, facet)
