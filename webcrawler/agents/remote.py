"""The agent's side of agents on other hosts: one "retrieve this URL" as a Dask task.

An agent host is a Dask worker (`webcrawler agent-host`); the engine's remote
pool (agenthosts/pool.py) submits `retrieve` with a `Retrieve` and gets the
document or the reason back, exactly the messages of the local pipes
(protocol/messages.py). This module is the only place a worker runs our code: it does
the HTTP, as every agent does, and never touches the database or the index.

Each worker thread keeps one agent process per (config, token) (hosted.py), so a
host running N threads is N agents, each with its own connection pool, like the
paper's agent processes, and each held to the memory budget a local agent is held
to (`--agent-memory-mb`, its browser included). It decides nothing: no retries,
no politeness; the engine does both, and Dask reruns a task whose worker died
(its own retry layer).
"""

from __future__ import annotations

import threading

from webcrawler.agents.hosted import HostedAgent
from webcrawler.protocol.messages import AgentConfig, Answer, Retrieve

_local = threading.local()
_served = [0]  # retrievals on this host, for tests and benchmarks (a list: no `global`)


def retrieve(config: AgentConfig, robots_token: str, request: Retrieve) -> Answer:
    """Retrieve one URL on this agent host; errors come back as data (`Failure`)."""
    answer = _agent(config, robots_token).ask(request)
    _served[0] += 1
    return answer


def _agent(config: AgentConfig, robots_token: str) -> HostedAgent:
    """This thread's agent for this crawl's configuration (a new one when it changes)."""
    key = (config, robots_token)
    current = getattr(_local, "agent", None)
    if current is None or _local.key != key:
        if current is not None:
            current.close()
        _local.agent, _local.key = HostedAgent(config, robots_token), key
    return _local.agent


def ping() -> str:
    """A trivial task: the dispatch round trip without any HTTP (bench/agent_hosts.py)."""
    return "pong"


def served() -> int:
    """How many URLs this agent host retrieved (run on every host with `Client.run`)."""
    return _served[0]
