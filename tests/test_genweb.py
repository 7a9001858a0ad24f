"""The generated web: deterministic pages, power-law in-degree, ground truth, served for real."""

from __future__ import annotations

import dataclasses
import http.client
import statistics
from collections import Counter
from pathlib import Path

import pytest

from tests.engine.conftest import document_states
from tests.support.genweb import GenWeb, page_number
from tests.support.genweb_server import GenWebProcess, GenWebServer
from webcrawler.commands.index import run_index
from webcrawler.settings import Settings

# Tests serve on 127.0.40.0 and up; benchmarks default to 127.0.8.0.
SMALL = GenWeb(servers=6, pages_per_server=40, links_per_page=12, cross_share=0.2,
               page_bytes=3000, first_address="127.0.40.0")


def get(web: GenWeb, server: int, path: str) -> tuple[int, bytes, dict[str, str]]:
    conn = http.client.HTTPConnection(web.address(server), web.port, timeout=5)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read(), dict(response.getheaders())
    finally:
        conn.close()


def test_pages_are_a_function_of_their_url():
    web = GenWeb(servers=100, pages_per_server=1000)
    assert web.html(7, 42) == GenWeb(servers=100, pages_per_server=1000).html(7, 42)
    assert web.html(7, 42) != web.html(7, 43) != web.html(8, 42)
    assert web.links(7, 42) == web.links(7, 42)
    assert page_number("/page/42.html") == 42 and page_number("/") == 0
    assert page_number("/page/042.html") is None


def test_ten_thousand_servers_fit_the_benchmark_range():
    web = GenWeb(servers=10_000)
    assert web.address(0) == "127.0.8.0" and web.address(9_999) == "127.0.47.15"
    assert web.server_of("127.0.47.15") == 9_999 and web.server_of("127.0.7.255") is None
    with pytest.raises(ValueError):
        GenWeb(servers=10, first_address="10.0.0.1")
    with pytest.raises(ValueError):
        GenWeb(hostile=("volcano",))


def test_in_degree_follows_a_power_law():
    web = GenWeb(servers=40, pages_per_server=250, links_per_page=20, cross_share=0.2)
    indegree: Counter[str] = Counter()
    for server in range(web.servers):
        for page in range(web.pages_per_server):
            indegree.update(href for href, _ in web.links(server, page))
    counts = sorted(indegree.values(), reverse=True)
    top = sum(counts[: len(counts) // 100])
    assert top / sum(counts) > 0.15  # the top 1% of pages hold a large share of the links
    assert counts[0] > 50 * statistics.median(counts)
    cross = sum(1 for s in range(web.servers) for href, _ in web.links(s, 9)
                if not href.startswith(web.origin(s) + "/"))
    assert 0.1 < cross / sum(len(web.links(s, 9)) for s in range(web.servers)) < 0.3


def test_page_sizes_have_a_long_tail():
    web = GenWeb(page_bytes=8000)
    sizes = [len(web.html(3, page)) for page in range(300)]
    assert 7000 < statistics.median(sizes) < 16000
    assert max(sizes) > 4 * statistics.median(sizes) and min(sizes) < 4000


def test_served_pages_match_the_model():
    with GenWebServer(SMALL) as web:
        status, body, _ = get(web, 2, "/page/5.html")
        assert status == 200 and body == web.html(2, 5)
        status, body, _ = get(web, 1, "/robots.txt")
        assert status == 200 and b"Disallow: /page/1" in body
        assert get(web, 1, "/missing/7.html")[0] == 404
        assert get(web, 1, f"/page/{web.pages_per_server}.html")[0] == 404


def test_many_servers_in_their_own_process():
    with GenWebProcess(dataclasses.replace(SMALL, servers=3000, first_address="127.0.24.0")) as web:
        status, body, _ = get(web, 2999, "/")
        assert status == 200 and body == web.html(2999, 0)


def test_a_crawl_finds_exactly_the_ground_truth(tmp_path: Path):
    truth = SMALL.ground_truth()
    assert truth.excluded and truth.broken and len(truth.pages) > 100
    with GenWebServer(SMALL) as web:
        truth = web.ground_truth()
        settings = Settings(data_dir=tmp_path / "data", agents=4, delay=0.0, hours=0.02,
                            include=(web.include_pattern,), seeds=(web.seed_url,),
                            commit_every=50, progress_interval=60.0)
        summary, _ = run_index(settings, progress=False)
    assert "nothing left to fetch" in summary
    states = document_states(settings)
    fetched = {url for url, (state, _) in states.items() if state == "fetched"}
    robots = {url for url, (_, reason) in states.items() if reason == "robots"}
    broken = {url for url, (state, reason) in states.items() if reason == "http-error"}
    guessed = {url for url in broken if url.endswith("/sitemap.xml")}  # asked for, none there
    assert guessed == {url for url in guessed if url.rsplit("/", 1)[0] + "/" in {
        u.rsplit("/", 1)[0] + "/" for u in truth.pages}}
    broken -= guessed
    assert fetched == truth.pages
    assert robots == truth.excluded
    assert broken == truth.broken
