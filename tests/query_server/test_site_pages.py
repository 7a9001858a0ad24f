"""robots.txt, the OpenSearch description, security headers and the error pages."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from bs4 import BeautifulSoup
from flask import Flask
from flask.testing import FlaskClient

OPENSEARCH = "{http://a9.com/-/spec/opensearch/1.1/}"


def test_robots_txt_keeps_robots_out_of_results(client: FlaskClient) -> None:
    response = client.get("/robots.txt")
    assert response.status_code == 200 and response.mimetype == "text/plain"
    lines = response.get_data(as_text=True).splitlines()
    assert lines == ["User-agent: *", "Disallow: /search", "Disallow: /api/"]


def test_opensearch_description_is_valid_xml(data_dir) -> None:  # noqa: ANN001
    from tests.query_server.conftest import build_app

    app = next(build_app(data_dir, allowed_hosts=("search.example",)))
    response = app.test_client().get("/opensearch.xml", base_url="http://search.example:8080")
    assert response.mimetype == "application/opensearchdescription+xml"
    root = ET.fromstring(response.get_data())
    assert root.tag == f"{OPENSEARCH}OpenSearchDescription"
    assert root.findtext(f"{OPENSEARCH}ShortName") == "WebCrawler"
    templates = {u.get("type"): u.get("template") for u in root.iter(f"{OPENSEARCH}Url")}
    assert templates["text/html"] == "http://search.example:8080/search?q={searchTerms}"
    assert templates["application/json"] == "http://search.example:8080/api/search?q={searchTerms}"


@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/search?q=biology",
        "/stats",
        "/api/search?q=x",
        "/api/stats",
        "/nowhere",
        "/robots.txt",
    ],
)
def test_security_headers_on_every_answer(client: FlaskClient, path: str) -> None:
    headers = client.get(path).headers
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert headers["Referrer-Policy"] == "no-referrer"
    csp = headers["Content-Security-Policy"]
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp


def test_the_inline_style_carries_the_csp_nonce(client: FlaskClient) -> None:
    response = client.get("/")
    nonce = BeautifulSoup(response.get_data(as_text=True), "html.parser").style["nonce"]
    assert f"style-src 'nonce-{nonce}'" in response.headers["Content-Security-Policy"]
    assert (
        nonce != BeautifulSoup(client.get("/").get_data(as_text=True), "html.parser").style["nonce"]
    )


def test_404_is_a_clean_page_and_json_under_api(client: FlaskClient) -> None:
    page = client.get("/no/such/page")
    assert page.status_code == 404 and page.mimetype == "text/html"
    assert "There is no page at this address." in page.get_data(as_text=True)
    api = client.get("/api/nothing")
    assert api.status_code == 404 and api.get_json() == {
        "error": "There is no page at this address."
    }


def test_405_says_which_methods_are_allowed(client: FlaskClient) -> None:
    page = client.post("/search")
    assert page.status_code == 405 and "GET" in page.headers["Allow"]
    assert "<h1>405</h1>" in page.get_data(as_text=True)
    api = client.post("/api/search")
    assert api.status_code == 405 and "error" in api.get_json()


def test_500_is_a_clean_page_without_a_traceback(app: Flask) -> None:
    def broken() -> str:
        raise RuntimeError("secret internals")

    app.add_url_rule("/broken", view_func=broken)
    app.add_url_rule("/api/broken", "api_broken", view_func=broken)
    client = app.test_client()
    for path in ("/broken", "/api/broken"):
        response = client.get(path)
        body = response.get_data(as_text=True)
        assert response.status_code == 500
        assert "secret internals" not in body and "Traceback" not in body
    assert client.get("/api/broken").get_json()["error"]
