"""One URL per document: tracking and session parameters leave every URL the crawl finds."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from webcrawler.commands.index import run_index
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.protocol.urls import ParamNames, strip_params
from webcrawler.settings import Settings

NAMES = ParamNames()


def test_tracking_and_session_parameters_go_content_parameters_stay() -> None:
    cases = {
        "http://a/p?utm_source=news&id=3&UTM_Medium=mail": "http://a/p?id=3",
        "http://a/p?fbclid=IwAR0&gclid=x&mc_eid=1&msclkid=2&yclid=3&_ga=4": "http://a/p",
        "http://a/p;jsessionid=0A1B2C?x=1": "http://a/p?x=1",
        "http://a/p;JSESSIONID=0A1B2C": "http://a/p",
        "http://a/p?PHPSESSID=9&page=2": "http://a/p?page=2",
        "http://a/p?sid=3&sidebar=left": "http://a/p?sidebar=left",  # a name, not a prefix
        "http://a/x;v=1/y?q=a%20b&q=c": "http://a/x;v=1/y?q=a%20b&q=c",  # untouched
        "http://a/p": "http://a/p",
    }
    for url, expected in cases.items():
        assert strip_params(url, NAMES) == expected, url


def test_the_list_is_a_setting() -> None:
    only_ref = ParamNames(("ref", "track*"))
    assert strip_params("http://a/p?ref=x&utm_source=y&tracker=1", only_ref) == \
        "http://a/p?utm_source=y"
    assert strip_params("http://a/p?utm_source=y", ParamNames(("",))) == "http://a/p?utm_source=y"


def test_a_crawl_fetches_each_article_once(tmp_path: Path) -> None:
    """Links and seeds with tracking or session parameters lead to one request per document."""
    links = [("/article?utm_source=feed&utm_medium=rss", "a"), ("/article?fbclid=IwAR0", "b"),
             ("/article;jsessionid=0A1B2C3D", "c"), ("/article?PHPSESSID=abc", "d"),
             ("/article?page=2&gclid=x", "page two")]
    routes = {"/": html("home", "the front page", links),
              "/article": html("article", "the article's words"),
              "/article?page=2": html("article, page 2", "more words")}
    settings = Settings(data_dir=tmp_path / "data", agents=2, delay=0.0, hours=0.05,
                        progress_interval=60.0, total_timeout=5.0)
    with LoopbackWeb([Site("127.0.61.1", routes)]) as web:
        seed = web.url("127.0.61.1", "/?utm_campaign=spring")
        summary, rejected = run_index(dataclasses.replace(settings, seeds=(seed,)), progress=False)
        paths = [hit.path for hit in web.log.snapshot() if hit.path != "/robots.txt"]
    assert not rejected
    assert sorted(paths) == ["/", "/article", "/article?page=2"], summary
