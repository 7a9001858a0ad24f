"""The whole path of the paper: crawl a loopback web, index it, answer a query over HTTP
(on SQLite and on PostgreSQL: the `database_url` fixture)."""

from __future__ import annotations

from webcrawler.commands.index import run_index
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.query_server import create_app
from webcrawler.settings import Settings


def test_crawl_index_and_search(tmp_path, database_url):
    pages = {
        "/": html("Garden index", "plants of the garden",
                  [("/tomato", "growing tomatoes"), ("/rose", "roses"), ("/hidden", "secret")]),
        "/tomato": html("Tomato growing", "tomato tomato plants need sun and water"),
        "/rose": html("Roses", "a rose garden with one tomato plant nearby"),
        "/hidden": Page('<html><head><title>Tomato secrets</title>'
                        '<meta name="robots" content="noindex"></head>'
                        "<body>tomato tomato tomato</body></html>"),
    }
    with LoopbackWeb([Site("127.0.4.60", pages)]) as web:
        settings = Settings(data_dir=tmp_path / "data", db_url=database_url, agents=2, delay=0.0,
                            hours=0.05, seeds=(web.url("127.0.4.60", "/"),))
        summary, _ = run_index(settings, progress=False)
        assert "documents retrieved  4" in summary
        app = create_app(settings.data_dir, db_url=database_url, testing=True)
        with app.test_client() as client:
            answer = client.get("/api/search?q=tomato").get_json()
            stats = client.get("/api/stats").get_json()
        app.extensions["webcrawler.sources"].close()
    urls = [r["url"] for r in answer["results"]]
    assert urls[0] == web.url("127.0.4.60", "/tomato")
    assert answer["results"][0]["score"] == 1000
    assert web.url("127.0.4.60", "/rose") in urls
    assert web.url("127.0.4.60", "/hidden") not in urls  # noindex is fetched, never indexed
    assert stats["index_documents"] == 3
    assert stats["documents"]["fetched"] == 4
