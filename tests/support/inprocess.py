"""The crawl loop's pool in this process: the agents' own retrieval code, no processes.

Starting agent processes costs more than a test of the loop's logic (stop
reasons, redirects, robots.txt first, politeness, scope) needs. `InProcessPool`
is a `Pool` (engine/interfaces.py) whose `size` slots are answered by the
agents' `Fetcher` in this process, over real HTTP, when the loop polls. It
also watches the loop's politeness: it records every request, and the most
requests it ever held at once for one server (`most_at_once`), which the
loop's rule says is one.
"""

from __future__ import annotations

import time
from collections import Counter

from webcrawler.agents.fetch import Fetcher
from webcrawler.agents.render import require_renderer
from webcrawler.config.agent_config import agent_config
from webcrawler.protocol.messages import Answer, Retrieve
from webcrawler.protocol.urls import split
from webcrawler.settings import Settings


class InProcessPool:
    """`size` agents that retrieve in this process, in the order the requests came."""

    def __init__(self, settings: Settings, size: int = 4) -> None:
        self.size = size
        require_renderer(settings.render)
        self.fetcher = Fetcher(agent_config(settings), settings.robots_token)
        self.requests: list[Retrieve] = []  # every request, in the order it came
        self.most_at_once: Counter[str] = Counter()  # origin -> most requests held at once
        self.most_held = 0  # most requests held at once, all servers together
        self._held: list[Retrieve] = []

    def free(self) -> int:
        return self.size - len(self._held)

    def busy(self) -> int:
        return len(self._held)

    def submit(self, job: Retrieve) -> None:
        if not self.free():
            raise RuntimeError("InProcessPool.submit with no free agent")
        self.requests.append(job)
        self._held.append(job)
        self.most_held = max(self.most_held, len(self._held))
        origin = split(job.url)[0]
        at_once = sum(1 for held in self._held if split(held.url)[0] == origin)
        self.most_at_once[origin] = max(self.most_at_once[origin], at_once)

    def poll(self, timeout: float) -> list[tuple[Retrieve, Answer]]:
        """Answer every request held; with none, wait `timeout` as the agents' pool does."""
        if not self._held:
            time.sleep(max(0.0, timeout))
            return []
        held, self._held = self._held, []
        return [(job, self.fetcher.retrieve(job)) for job in held]

    def shutdown(self) -> None:
        self.fetcher.close()

    def paths(self, origin: str) -> list[str]:
        """The paths asked of `origin`, in order (robots.txt included)."""
        return [split(job.url)[1] for job in self.requests if split(job.url)[0] == origin]
