"""Agents on other hosts (issue 15): a crawl through a Dask cluster of two agent hosts.

The web's own access log is the judge: one request in flight per server across
every host, every page fetched, none twice except those a killed host held.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from pathlib import Path

import pytest

from tests.engine.conftest import crawl, document_states, site_pages
from tests.support.cluster import Cluster
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Page, Site
from webcrawler.settings import Settings


def slow_site(name: str, count: int, delay: float):
    """`site_pages`, each answer `delay` seconds late, so retrievals overlap across servers."""
    pages = site_pages(name, count)

    def routes(path: str) -> Page | None:
        page = pages.get(path)
        return None if page is None else Page(page.body, delay=delay)

    return routes


@pytest.fixture
def settings(tmp_path: Path, cluster: Cluster) -> Settings:
    return Settings(data_dir=tmp_path / "data", agents=4, delay=0.0, hours=0.05,
                    commit_every=20, progress_interval=60.0, connect_timeout=2.0,
                    read_timeout=3.0, total_timeout=5.0, agent_deadline=60.0,
                    agents_at=cluster.scheduler.address)


def overlapping(hits) -> list:
    ordered = sorted(hits, key=lambda h: h.started)
    return [(a.path, b.path) for a, b in zip(ordered, ordered[1:], strict=False) if b.started < a.finished]


def test_two_agent_hosts_share_the_crawl_one_request_per_server(cluster, settings):
    addresses = [f"127.0.9.{20 + i}" for i in range(4)]
    with LoopbackWeb([Site(a, slow_site(a, 5, 0.05)) for a in addresses]) as web:
        crawl(settings, [web.url(a, "/") for a in addresses])
        web.log.settle()
        hits = web.log.snapshot()
        for name in web:
            assert not overlapping(web.log.for_server(name)), "two requests in flight on one server"
    states = document_states(settings)
    assert len(states) == 4 * 7  # /, /p1-/p5 and the missing /p6 of each site
    assert sum(s == State.FETCHED for s, _ in states.values()) == 4 * 6
    assert not [k for k, n in Counter((h.server, h.path) for h in hits).items() if n > 1]
    served = cluster.served()
    assert len(served) == 2 and all(n > 0 for n in served.values()), served
    assert sum(served.values()) == len(hits)


@pytest.mark.wallclock  # when the host dies against what is in flight: a busy machine moves it
def test_a_killed_agent_host_loses_no_page(cluster, settings):
    addresses = [f"127.0.9.{30 + i}" for i in range(3)]
    killed = threading.Event()
    victim = cluster.hosts[0]
    with LoopbackWeb([Site(a, slow_site(a, 6, 0.2)) for a in addresses]) as web:

        def killer() -> None:
            for _ in range(600):  # bounded: at most 60 s
                if len(web.log.snapshot()) >= 8:
                    victim.kill()
                    killed.set()
                    return
                threading.Event().wait(0.1)

        thread = threading.Thread(target=killer)
        thread.start()
        summary = crawl(settings, [web.url(a, "/") for a in addresses])
        thread.join()
        web.log.settle()
        hits = web.log.snapshot()
    assert killed.is_set()
    assert "agent-died" not in summary and "agent-hung" not in summary
    states = document_states(settings)
    assert sum(s == State.FETCHED for s, _ in states.values()) == 3 * 7
    repeated = sum(n - 1 for n in Counter((h.server, h.path) for h in hits).values())
    # again at most the URLs in flight when the host died: the engine never holds more than `agents`
    assert repeated <= settings.agents
    survivor = cluster.served()
    assert list(survivor) == [cluster.hosts[1].address]


@pytest.mark.wallclock
def test_an_unanswered_url_is_answered_by_the_deadline_and_the_crawl_goes_on(cluster, settings):
    pages = site_pages("stuck", 3)

    def routes(path: str) -> Page | None:
        return Page("<title>never in time</title>", delay=6.0) if path == "/p2" else pages.get(path)

    with LoopbackWeb([Site("127.0.9.40", routes)]) as web:
        summary = crawl(settings, [web.url("127.0.9.40", "/")], agent_deadline=2.5,
                        read_timeout=10.0, total_timeout=10.0, retries=0)  # no second hang
    states = document_states(settings)
    assert "agent-hung 1" in summary
    assert states[web.url("127.0.9.40", "/p2")] == (State.FAILED, "agent-hung")
    assert states[web.url("127.0.9.40", "/p3")][0] == State.FETCHED


def test_an_answer_lost_with_its_host_before_it_was_read_is_fetched_again(cluster, settings):
    """A retrieval that finished on a host killed before the pool read its answer is `lost`
    to Dask, which runs it again: the pool waits for that answer. It used to report the page
    agent-died ("no answer from the agent hosts: None"), as the killed-host test above did
    under load; here that moment is made on purpose."""
    from webcrawler.agenthosts.pool import RemotePool
    from webcrawler.config.agent_config import agent_config
    from webcrawler.protocol.messages import Document, Retrieve

    def until(condition, seconds: float = 60.0) -> None:  # bounded: ends when it holds
        end = time.monotonic() + seconds
        while not condition() and time.monotonic() < end:
            time.sleep(0.02)
        assert condition()

    with LoopbackWeb([Site("127.0.9.50", site_pages("lost", 1))]) as web:
        pool = RemotePool(cluster.scheduler.address, 2, agent_config(settings),
                          settings.robots_token, deadline=120.0)
        answers: list = []
        try:
            pool.submit(Retrieve(1, web.url("127.0.9.50", "/"), "document"))
            [future] = pool._futures.values()
            until(lambda: future.status == "finished")  # done, and not read: no poll yet
            [holder] = pool.client.who_has(future)[future.key]
            victim = next(host for host in cluster.hosts if host.address == holder)
            victim.kill()
            until(lambda: future.status != "finished"
                  or holder not in pool.client.who_has(future).get(future.key, ()))
            end = time.monotonic() + 60
            while not answers and time.monotonic() < end:
                answers += pool.poll(0.5)
        finally:
            pool.shutdown()
        web.log.settle()
        asked = web.log.paths()
    assert [(job.job_id, type(answer)) for job, answer in answers] == [(1, Document)]
    assert asked == ["/", "/"]  # fetched again by the host that is left, not lost
