"""/api/suggest (shape, bounds, 400s), the search answer's "suggestion" and "expansions",
and what the pages show of them: "Did you mean", the thesaurus's words, the placeholder."""

from __future__ import annotations

from pathlib import Path

import pytest
from bs4 import BeautifulSoup
from flask import render_template
from flask.testing import FlaskClient

from tests.query_server.conftest import build_app
from webcrawler.engine.realtime.search import Found


def test_suggest_answers_completions_most_documents_first(client: FlaskClient) -> None:
    response = client.get("/api/suggest?q=mol&n=8")
    assert response.status_code == 200 and response.mimetype == "application/json"
    data = response.get_json()
    assert set(data) == {"query", "suggestions"} and data["query"] == "mol"
    assert data["suggestions"][0] == "molecular"
    assert all(s.startswith("mol") for s in data["suggestions"])


def test_suggest_keeps_the_words_before_the_last(client: FlaskClient) -> None:
    data = client.get("/api/suggest", query_string={"q": "human gen"}).get_json()
    assert data["suggestions"][0] == "human genome"


def test_suggest_offers_titles_as_likely_queries(client: FlaskClient) -> None:
    data = client.get("/api/suggest", query_string={"q": "guide to mol"}).get_json()
    assert "guide to molecular biology databases" in data["suggestions"]


def test_n_bounds_the_suggestions(client: FlaskClient) -> None:
    assert len(client.get("/api/suggest?q=p&n=1").get_json()["suggestions"]) == 1
    assert len(client.get("/api/suggest?q=p").get_json()["suggestions"]) <= 8
    assert len(client.get("/api/suggest?q=p&n=20").get_json()["suggestions"]) <= 20


def test_an_empty_prefix_has_no_suggestions(client: FlaskClient) -> None:
    assert client.get("/api/suggest?q=").get_json() == {"query": "", "suggestions": []}


@pytest.mark.parametrize("args", [
    "", "n=8", "q=mol&n=0", "q=mol&n=21", "q=mol&n=x", "q=mol&n=1.5", "q=mol&n=" + "9" * 400,
    "q=mol%00", "q=" + "a" * 1001,
])
def test_malformed_suggest_requests_are_a_400_with_json(client: FlaskClient, args: str) -> None:
    response = client.get(f"/api/suggest?{args}")
    assert response.status_code == 400 and response.mimetype == "application/json"
    assert response.get_json()["error"]


def test_suggest_with_no_index_yet_is_empty(tmp_path: Path) -> None:
    for app in build_app(tmp_path):
        assert app.test_client().get("/api/suggest?q=mol").get_json()["suggestions"] == []


def test_the_search_answer_carries_the_corrected_query(client: FlaskClient) -> None:
    typo = client.get("/api/search?q=molecluar+biology").get_json()
    assert typo["suggestion"] == "molecular biology" and typo["results"]
    clean = client.get("/api/search?q=molecular+biology").get_json()
    assert clean["suggestion"] is None
    assert typo["results"][0]["url"] == clean["results"][0]["url"]


def test_the_search_answer_lists_the_thesaurus_words(client: FlaskClient) -> None:
    assert client.get("/api/search?q=filler&expand=1").get_json()["expansions"] == []
    expanded = client.get("/api/search?q=search&expand=1").get_json()["expansions"]
    assert "seek" in expanded and "search" not in expanded  # WordNet's, or the bundled list's


def test_the_page_says_did_you_mean_with_a_link(client: FlaskClient) -> None:
    page = BeautifulSoup(client.get("/search?q=molecluar&expand=1").get_data(as_text=True), "html.parser")
    link = page.select_one(".did-you-mean a")
    assert link.get_text() == "molecular"
    assert link["href"] == "/search?q=molecular&expand=1"
    assert page.select("ol.results li")  # the near spelling's documents are shown meanwhile


def test_no_did_you_mean_for_a_correct_query(client: FlaskClient) -> None:
    page = BeautifulSoup(client.get("/search?q=molecular").get_data(as_text=True), "html.parser")
    assert page.select_one(".did-you-mean") is None


def test_the_page_shows_the_words_the_thesaurus_added(client: FlaskClient) -> None:
    answer = client.get("/api/search?q=search&expand=1").get_json()
    page = BeautifulSoup(client.get("/search?q=search&expand=1").get_data(as_text=True), "html.parser")
    assert page.select_one(".summary .added").get_text() == ", ".join(answer["expansions"])
    page = BeautifulSoup(client.get("/search?q=filler&expand=1").get_data(as_text=True), "html.parser")
    assert "the thesaurus added no words" in page.select_one(".summary").get_text()


def test_the_placeholder_is_drawn_from_the_index(client: FlaskClient, tmp_path: Path) -> None:
    box = BeautifulSoup(client.get("/").get_data(as_text=True), "html.parser").select_one("input[name=q]")
    assert box["placeholder"] == "e.g. biology, paper, molecular"
    for app in build_app(tmp_path / "empty"):  # no index: no placeholder at all
        page = BeautifulSoup(app.test_client().get("/").get_data(as_text=True), "html.parser")
        assert not page.select_one("input[name=q]").has_attr("placeholder")


def test_the_search_box_is_an_aria_combobox(client: FlaskClient) -> None:
    page = BeautifulSoup(client.get("/").get_data(as_text=True), "html.parser")
    box = page.select_one("input[name=q]")
    assert box["role"] == "combobox" and box["aria-expanded"] == "false"
    assert page.select_one(f"#{box['aria-controls']}")["role"] == "listbox"
    script = client.get(page.select_one("script")["src"])
    script.close()
    assert script.status_code == 200 and script.mimetype == "text/javascript"


def test_the_real_time_page_prints_scores_as_the_search_page_does(client: FlaskClient) -> None:
    job = {"id": "j", "query": "q", "seconds": 5, "want": 3, "state": "done",
           "results": [Found(1, "http://127.0.3.1/a", "A", 679, True, 0.5)]}
    with client.application.test_request_context("/realtime/j"):
        html = render_template("realtime.html", job=job, query="q", script_nonce="n")
    page = BeautifulSoup(html, "html.parser")
    assert page.select_one("ol.live .score").get_text() == "0679"
    search = BeautifulSoup(client.get("/search?q=biology").get_data(as_text=True), "html.parser")
    assert all(len(s.get_text()) == 4 for s in search.select("ol.results .score"))
