"""The crawler against the generated web's hostile corners: it survives each and says why.

One crawl (module fixture) meets every corner at once, with timeouts short enough for
the stalling corner yet long enough for a machine busy with other tests;
the calendar that never ends is cut off as a trap (engine/loop/traps.py).
Each test then reads what the database recorded for one corner.
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

from tests.engine.conftest import document_states
from tests.support.genweb import HOSTILE, GenWeb
from tests.support.genweb_server import GenWebServer
from webcrawler.commands.index import run_index
from webcrawler.database.schema import connect, crawls, servers
from webcrawler.settings import Settings

CRAWL_SECONDS = 60.0  # a bound only: the crawl ends by itself (the calendar test says so)
WEB = GenWeb(servers=3, pages_per_server=10, links_per_page=6, page_bytes=2000,
             hostile=tuple(HOSTILE), first_address="127.0.41.0", bomb_mib=128)


@pytest.fixture(scope="module")
def crawled(tmp_path_factory: pytest.TempPathFactory):
    data = tmp_path_factory.mktemp("hostile") / "data"
    server = GenWebServer(WEB)
    with server as web:
        settings = Settings(data_dir=data, agents=6, delay=0.0, hours=CRAWL_SECONDS / 3600,
                            include=(web.include_pattern,), seeds=(web.seed_url,),
                            connect_timeout=3.0, read_timeout=4.0, total_timeout=8.0,
                            agent_deadline=15.0, commit_every=20, progress_interval=60.0,
                            retries=0)  # one try: the corners' reasons (retries: tests/realweb)
        summary, _ = run_index(settings, progress=False)
        yield web, settings, summary, document_states(settings), list(server.handler.hits)


def _want(web: GenWeb, corner: str) -> dict[str, tuple[str, str | None]]:
    origin = web.origin(web.hostile_server(corner))
    return {url: want for url, want in web.expected_failures().items() if url.startswith(origin + "/")}


@pytest.mark.parametrize("corner", ["redirect-loop", "never-finishes", "huge", "gzip-bomb", "binary"])
def test_corner_recorded_with_its_reason(crawled, corner: str):
    web, _, _, states, _ = crawled
    want = _want(web, corner)
    assert want
    assert {url: states.get(url) for url in want} == want


def test_the_rest_of_the_web_is_crawled_despite_the_corners(crawled):
    web, _, _, states, _ = crawled
    fetched = {url for url, (state, _) in states.items() if state == "fetched"}
    assert web.ground_truth().pages <= fetched


def test_the_endless_calendar_is_stopped_within_a_few_dozen_requests(crawled):
    """Its days differ only by a date: a chain of pages alike is refused after a few of them
    (engine/loop/traps.py), and the crawl ends by itself instead of at the time limit."""
    web, settings, summary, states, _ = crawled
    origin = web.origin(web.hostile_server("calendar"))
    days = [state for url, (state, _) in states.items() if url.startswith(origin + "/calendar/")]
    assert 0 < days.count("fetched") <= 36
    assert all(states[url] == ("excluded", "trap") for url in states
               if url.startswith(origin + "/calendar/") and states[url][0] != "fetched")
    assert "(nothing left to fetch)" in summary
    engine = connect(settings.database_url)
    try:
        with engine.connect() as conn:
            assert conn.execute(select(crawls.c.stop_reason)).scalar_one() == "nothing left to fetch"
    finally:
        engine.dispose()


def test_robots_txt_503_keeps_the_server_waiting(crawled):
    web, settings, _, states, _ = crawled
    want = _want(web, "robots-503")
    assert {url: states.get(url) for url in want} == want
    host = web.address(web.hostile_server("robots-503"))
    engine = connect(settings.database_url)
    try:
        with engine.connect() as conn:
            status = conn.execute(select(servers.c.robots_status).where(servers.c.host == host)).scalar_one()
    finally:
        engine.dispose()
    assert status == 503


def test_no_document_fetched_from_the_server_whose_robots_txt_fails(crawled):
    web, *_, hits = crawled
    asked = {path for server, path, _ in hits if server == web.hostile_server("robots-503")}
    assert asked == {"/robots.txt"}
