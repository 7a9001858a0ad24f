"""The HTML pages: the search form, results like the paper's Figure 3, pagination, escaping."""

from __future__ import annotations

from bs4 import BeautifulSoup
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from tests.query_server.conftest import injected_scripts


def parse(response: TestResponse) -> BeautifulSoup:
    return BeautifulSoup(response.get_data(as_text=True), "html.parser")


def results(page: BeautifulSoup) -> list[tuple[str, str, str | None, str]]:
    """(relevance, title text, href, url text) for each result."""
    out = []
    for item in page.select("ol.results > li"):
        title = item.select_one(".title")
        out.append(
            (
                item.select_one(".score").get_text(strip=True),
                title.get_text(strip=True),
                title.get("href"),
                item.select_one(".url").get_text(strip=True),
            )
        )
    return out


def test_home_page_has_the_form_and_the_stats_line(client: FlaskClient) -> None:
    response = client.get("/")
    assert response.status_code == 200
    page = parse(response)
    form = page.select_one("form.search")
    assert form["action"] == "/search" and form.select_one("input[name=q]") is not None
    assert form.select_one("input[type=checkbox][name=expand]") is not None
    line = " ".join(page.select_one(".stats-line").get_text().split())
    assert line == "26 documents from 3 servers"
    assert page.select_one("link[rel=search]")["href"] == "/opensearch.xml"


def test_results_are_ranked_with_1000_on_top_like_figure_3(client: FlaskClient) -> None:
    response = client.get("/search?q=molecular+biology")
    assert response.status_code == 200
    page = parse(response)
    rows = results(page)
    assert rows[0][:3] == (
        "1000",
        "Guide to Molecular Biology Databases",
        "http://127.0.3.1/guide.html",
    )
    scores = [int(score) for score, *_ in rows]
    assert scores == sorted(scores, reverse=True)
    assert all(len(score) == 4 and score.isdigit() for score, *_ in rows)  # "0754", as in the paper
    summary = " ".join(page.select_one(".summary").get_text().split())
    assert summary.startswith("Search results for the query molecular biology:")
    assert "seconds)" in summary and "1–10 shown" in summary
    assert page.select_one(".hit .snippet b") is not None  # query words highlighted


def test_a_document_without_a_title_shows_its_url(client: FlaskClient) -> None:
    rows = results(parse(client.get("/search?q=untitled")))
    assert rows == [
        (
            "1000",
            "http://127.0.3.2/untitled",
            "http://127.0.3.2/untitled",
            "http://127.0.3.2/untitled",
        )
    ]


def test_pagination_walks_through_every_result(client: FlaskClient) -> None:
    seen: list[str] = []
    page_number = 1
    while True:
        page = parse(client.get(f"/search?q=biology&page={page_number}"))
        rows = results(page)
        seen += [href or url for _, _, href, url in rows]
        nxt = page.select_one("nav.pages a[rel=next]")
        if nxt is None:
            break
        assert f"page={page_number + 1}" in nxt["href"]
        page_number += 1
    assert page_number == 3 and len(seen) == len(set(seen)) == 24
    current = parse(client.get("/search?q=biology&page=2")).select_one(
        "nav.pages [aria-current=page]"
    )
    assert current.get_text() == "2"


def test_a_page_past_the_end_says_so(client: FlaskClient) -> None:
    response = client.get("/search?q=biology&page=50")
    assert response.status_code == 200
    assert "no results on this page" in response.get_data(as_text=True)


def test_thesaurus_checkbox_is_kept_in_the_form_and_links(client: FlaskClient) -> None:
    page = parse(client.get("/search?q=biology&expand=1"))
    assert page.select_one("input[name=expand]").has_attr("checked")
    assert "expand=1" in page.select_one("nav.pages a[rel=next]")["href"]


def test_hostile_titles_and_urls_are_escaped(client: FlaskClient) -> None:
    response = client.get("/search?q=genome")
    body = response.get_data(as_text=True)
    page = BeautifulSoup(body, "html.parser")
    assert injected_scripts(page) == []
    assert page.find("img") is None
    assert not [tag for tag in page.find_all(True) if any(a.startswith("on") for a in tag.attrs)]
    titles = [title for _, title, _, _ in results(page)]
    assert "<script>alert('title')</script> Molecular biology & friends" in titles
    hostile = [href for _, _, href, url in results(page) if "evil" in url]
    assert hostile == ['http://127.0.3.1/evil?x="><script>alert(1)</script>']


def test_javascript_urls_are_never_links(client: FlaskClient) -> None:
    page = parse(client.get("/search?q=javascript"))
    rows = results(page)
    assert rows and rows[0][3].startswith("javascript:") and rows[0][2] is None
    assert not page.select('a[href^="javascript"]')


def test_the_query_is_echoed_escaped(client: FlaskClient) -> None:
    response = client.get("/search", query_string={"q": '"><script>alert(1)</script>'})
    page = parse(response)
    assert injected_scripts(page) == []
    assert page.select_one("input[name=q]")["value"] == '"><script>alert(1)</script>'


def test_facet_links_narrow_the_query_and_a_site_offers_more(client: FlaskClient) -> None:
    page = parse(client.get("/search?q=biology"))
    links = {a.get_text(strip=True): a["href"] for a in page.select("nav.facets a")}
    assert links["127.0.3.4"] == "/search?q=biology+site:127.0.3.4"
    narrowed = results(parse(client.get(links["127.0.3.4"])))
    assert narrowed and all(url.startswith("http://127.0.3.4/") for *_rest, url in narrowed)
    more = page.select(".hit .more a")
    assert [a.get_text(strip=True) for a in more] == ["More from 127.0.3.4"]
    assert more[0]["href"] == links["127.0.3.4"]
