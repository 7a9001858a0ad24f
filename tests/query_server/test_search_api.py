"""The JSON API: /api/search's shape, scores, paging and its 400 answers."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient


def test_answer_has_the_documented_shape(client: FlaskClient) -> None:
    response = client.get("/api/search?q=molecular+biology")
    assert response.status_code == 200 and response.mimetype == "application/json"
    data = response.get_json()
    assert {"query", "total", "took_ms", "results"} <= set(data)
    assert data["query"] == "molecular biology"
    assert isinstance(data["total"], int) and data["total"] >= 4
    assert isinstance(data["took_ms"], float) and data["took_ms"] >= 0
    first = data["results"][0]
    assert set(first) == {"rank", "score", "title", "url", "snippet", "type", "site", "more"}
    assert first == {
        **first,
        "rank": 1,
        "score": 1000,
        "title": "Guide to Molecular Biology Databases",
        "url": "http://127.0.3.1/guide.html",
    }
    scores = [r["score"] for r in data["results"]]
    assert all(isinstance(s, int) and 0 <= s <= 1000 for s in scores)
    for site in {r["site"] for r in data["results"]}:  # grouped by site, ranked within each
        own = [r["score"] for r in data["results"] if r["site"] == site]
        assert own == sorted(own, reverse=True)
    assert [r["rank"] for r in data["results"]] == list(range(1, len(scores) + 1))
    assert set(data["facets"]) == {"site", "type", "language"}
    assert sum(f["count"] for f in data["facets"]["site"]) == data["total"]


def test_facet_links_and_more_from_this_site(client: FlaskClient) -> None:
    """Facet counts equal the totals of the filtered queries; a site shows at most 3 results
    on a page while other sites have results to show, its last one carrying the query for
    the rest of them."""
    data = client.get("/api/search?q=biology").get_json()
    for value in data["facets"]["site"]:
        narrowed = client.get("/api/search", query_string={"q": f"biology site:{value['value']}"})
        assert narrowed.get_json()["total"] == value["count"]
    sites = [r["site"] for r in data["results"]]
    others = sum(f["count"] for f in data["facets"]["site"] if f["value"] != "127.0.3.4")
    # every other site's match is on the first page; 127.0.3.4 fills the rest (its first 3
    # came in the first round), and the page lists them best first
    assert len(sites) == 10 and sites.count("127.0.3.4") == 10 - others
    scores = [r["score"] for r in data["results"]]
    assert scores == sorted(scores, reverse=True)
    more = [r for r in data["results"] if r["more"]]
    assert [r["more"] for r in more] == ["biology site:127.0.3.4"]
    assert client.get("/api/search", query_string={"q": more[0]["more"], "n": 50}).get_json()["total"] == 20


def test_n_and_page_select_a_slice(client: FlaskClient) -> None:
    every = client.get("/api/search?q=biology&n=100").get_json()
    assert every["total"] == len(every["results"]) == 24
    urls = [r["url"] for r in every["results"]]
    pages = [client.get(f"/api/search?q=biology&n=7&page={p}").get_json() for p in (1, 2, 3, 4)]
    assert [len(p["results"]) for p in pages] == [7, 7, 7, 3]
    on_pages = [r["url"] for p in pages for r in p["results"]]
    assert sorted(on_pages) == sorted(urls) and len(set(on_pages)) == 24  # each on one page
    for p in pages:  # grouping picks a page's results; each page lists them best first
        scores = [r["score"] for r in p["results"]]
        assert scores == sorted(scores, reverse=True)
    assert [r["rank"] for p in pages for r in p["results"]] == list(range(1, 25))
    assert pages[2]["results"][0]["rank"] == 15
    assert all(p["results"][0]["score"] <= 1000 for p in pages)
    assert pages[1]["results"][0]["score"] < 1000  # normalised over the whole list, not per page


def test_hostile_titles_come_back_as_data(client: FlaskClient) -> None:
    data = client.get("/api/search?q=genome").get_json()
    titles = {r["title"] for r in data["results"]}
    assert "<script>alert('title')</script> Molecular biology & friends" in titles
    assert all(
        "<script" not in r["snippet"] and "<img" not in r["snippet"] for r in data["results"]
    )


@pytest.mark.parametrize(
    "args",
    [
        "n=0",
        "n=101",
        "n=-1",
        "n=ten",
        "n=1.5",
        "page=0",
        "page=-3",
        "page=x",
        "page=1000001",
        "n=" + "9" * 5000,
    ],
)
def test_bad_n_or_page_is_a_400_with_a_message(client: FlaskClient, args: str) -> None:
    response = client.get(f"/api/search?q=biology&{args}")
    assert response.status_code == 400
    assert response.get_json()["error"]


def test_an_empty_page_past_the_end(client: FlaskClient) -> None:
    data = client.get("/api/search?q=biology&n=10&page=9").get_json()
    assert data["total"] == 24 and data["results"] == []
