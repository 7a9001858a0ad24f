"""Malformed and hostile queries get a clear message and 400, never a 500 or a traceback."""

from __future__ import annotations

import pytest
from bs4 import BeautifulSoup
from flask.testing import FlaskClient

from tests.query_server.conftest import injected_scripts

HOSTILE = {
    "empty": "",
    "blank": "   \t  ",
    "unbalanced quote": '"molecular biology',
    "ten thousand characters": "a" * 10_000,
    "a thousand and one": "b" * 1001,
    "control characters": "biology\x00\x07\x1b[31m",
    "delete character": "bio\x7flogy",
}

HARMLESS = {
    "markup": "<script>alert(1)</script>",
    "attribute breakout": '" onmouseover="alert(1)',  # balanced quotes: a phrase search
    "only exclusions": "-biology",
    "stray operators": "AND OR NOT ( ) * ? ~ ^ : [ ] { }",
    "site alone": "site:",
    "unicode": "Molekularbiologie 分子生物学 🧬",
    "many words": " ".join(["biology"] * 200),
    "url": "http://127.0.3.1/guide.html",
    "percent escapes": "%00%3Cscript%3E",
}


@pytest.mark.parametrize("query", HOSTILE.values(), ids=HOSTILE.keys())
def test_page_answers_400_with_a_message(client: FlaskClient, query: str) -> None:
    response = client.get("/search", query_string={"q": query})
    assert response.status_code == 400
    page = BeautifulSoup(response.get_data(as_text=True), "html.parser")
    message = page.select_one("[role=alert]").get_text(strip=True)
    assert message and "Traceback" not in response.get_data(as_text=True)


@pytest.mark.parametrize("query", HOSTILE.values(), ids=HOSTILE.keys())
def test_api_answers_400_json(client: FlaskClient, query: str) -> None:
    response = client.get("/api/search", query_string={"q": query})
    assert response.status_code == 400
    assert response.get_json()["error"]


def test_missing_q_is_a_400(client: FlaskClient) -> None:
    assert client.get("/search").status_code == 400
    assert client.get("/api/search").status_code == 400


def test_long_queries_are_not_echoed_back(client: FlaskClient) -> None:
    response = client.get("/search", query_string={"q": "a" * 10_000})
    assert "limit is 1,000" in response.get_data(as_text=True)
    assert "a" * 1001 not in response.get_data(as_text=True)


@pytest.mark.parametrize("query", HARMLESS.values(), ids=HARMLESS.keys())
def test_odd_but_harmless_queries_answer_without_error(client: FlaskClient, query: str) -> None:
    for url in ("/search", "/api/search"):
        response = client.get(url, query_string={"q": query})
        assert response.status_code in (200, 400), (url, response.status_code)
        if url == "/search":
            page = BeautifulSoup(response.get_data(as_text=True), "html.parser")
            assert injected_scripts(page) == []
            assert not [t for t in page.find_all(True) if any(a.startswith("on") for a in t.attrs)]
        else:
            assert "total" in response.get_json() or "error" in response.get_json()


def test_a_query_of_markup_is_searched_as_text(client: FlaskClient) -> None:
    response = client.get("/api/search", query_string={"q": "<script>alert(1)</script>"})
    assert response.status_code == 200
    assert response.get_json()["query"] == "<script>alert(1)</script>"
