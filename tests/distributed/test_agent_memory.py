"""An agent host holds each agent to the memory budget a local agent has (issue 37).

The same crawl twice, with a budget every agent is over (`agent_memory_mb=20`: a Python
process with the agent's imports holds several times that) and pages slow enough that a
measure falls while each is retrieved: once with local agents, once through two real Dask
agent hosts. Both must end the agents and answer `agent-memory`; an agent host that ran its
agents as threads of its own process, unbounded, fetched every page.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from tests.engine.conftest import document_states, site_pages
from tests.support.cluster import Cluster
from webcrawler.commands.index import run_index
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Page, Site
from webcrawler.engine.loop.outcome import SeedsFailed
from webcrawler.settings import Settings


def slow(pages: dict[str, Page]):
    def routes(path: str) -> Page | None:
        page = pages.get(path)
        return None if page is None else Page(page.body, delay=1.5)

    return routes


@pytest.mark.parametrize("where", ["local", "agent hosts"])
def test_an_agent_over_its_memory_budget_is_ended_on_an_agent_host_too(
        where: str, tmp_path: Path, cluster: Cluster) -> None:
    settings = Settings(data_dir=tmp_path / "data", agents=2, delay=0.0, hours=0.05,
                        progress_interval=60.0, total_timeout=10.0, agent_memory_mb=20,
                        retries=0, agents_at=cluster.scheduler.address if where != "local" else "")
    with LoopbackWeb([Site("127.0.9.50", slow(site_pages("heavy", 2)))]) as web, \
            pytest.raises(SeedsFailed, match=r"agent-memory: agent grew to \d+ MB \(limit 20 MB\)"):
        run_index(dataclasses.replace(settings, seeds=(web.url("127.0.9.50", "/"),)),
                  progress=False)
    assert document_states(settings)[web.url("127.0.9.50", "/")] == (State.FAILED, "agent-memory")
