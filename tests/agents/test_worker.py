"""agent_main in a real forkserver (and spawn) process, talking over a Pipe."""

from __future__ import annotations

import multiprocessing

import pytest

from webcrawler.agents.worker import READY, agent_main
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.protocol.messages import Document, Failure, Reason, Retrieve, RobotsFile

from .conftest import FAST, agent_process, closed_port

ADDRESS = "127.0.2.5"


@pytest.mark.parametrize("method", ["forkserver", "spawn"])
def test_agent_answers_until_told_to_stop(method: str) -> None:
    routes = {"/": html("Agent", "retrieved by a subprocess")}
    web = LoopbackWeb([Site(ADDRESS, routes, robots_txt="User-agent: *\n")])
    with web, agent_process(FAST, method) as (parent, process):
        parent.send(Retrieve(1, web.url(ADDRESS, "/")))
        parent.send(Retrieve(2, web.url(ADDRESS, "/robots.txt"), "robots"))
        parent.send(Retrieve(3, f"http://{ADDRESS}:{closed_port(ADDRESS)}/"))
        assert parent.poll(10)
        ready = parent.recv()
        document, robots, failure = parent.recv(), parent.recv(), parent.recv()
    assert ready == READY
    assert isinstance(document, Document) and document.title == "Agent"
    assert isinstance(robots, RobotsFile) and robots.body == "User-agent: *\n"
    assert isinstance(failure, Failure) and failure.reason == Reason.REFUSED
    assert process.exitcode == 0


def test_agent_exits_when_the_engine_closes_the_pipe() -> None:
    context = multiprocessing.get_context("forkserver")
    parent, child = context.Pipe()
    process = context.Process(target=agent_main, args=(child, FAST, "WebCrawler"))
    process.start()
    child.close()
    parent.close()
    process.join(10)
    if process.is_alive():
        process.kill()
        process.join()
    assert process.exitcode == 0
