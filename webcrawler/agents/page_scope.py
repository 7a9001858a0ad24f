"""Which requests of a rendered page the agent may fetch: those a link to them could be.

The engine decides every link a crawl follows (its scope, the server's robots.txt); a
rendered page's scripts ask for files the engine never saw. The agent holds them to the
same rules before fetching one: the crawl's include and exclude patterns and longest URL
(AgentConfig) and the page's server's robots.txt as the engine obeys it (Retrieve.robots;
without it, nothing is fetched). The browser asks only for the page's own origin
(render.py), whose address the engine admitted; the agent's connection checks it again
(addresses.py) and attaches only that server's credentials (credentials.py).
"""

from __future__ import annotations

import re
from collections import OrderedDict

from webcrawler.protocol.messages import AgentConfig, Reason, Retrieve
from webcrawler.protocol.robots import RobotsRules
from webcrawler.protocol.urls import outside_patterns, try_normalize

# Servers whose parsed robots.txt an agent keeps: a rendering crawl sends each of a server's
# pages with the same rules, so they are parsed once per server, not once per page.
ROBOTS_KEPT = 64

Robots = tuple[int | None, str]  # a robots.txt answer as the engine obeys it: (status, body)


class PageScope:
    """The crawl's scope as an agent can apply it: patterns compiled once per agent, each
    server's robots.txt parsed once (the last `ROBOTS_KEPT` kept)."""

    def __init__(self, config: AgentConfig, robots_token: str) -> None:
        self.include = [re.compile(p) for p in config.allowed_patterns]
        self.exclude = [re.compile(p) for p in config.exclude]
        self.max_url_length = config.max_url_length
        self.robots_token = robots_token
        self._parsed: OrderedDict[Robots, RobotsRules] = OrderedDict()

    def rules(self, robots: Robots) -> RobotsRules:
        """The rules of this robots.txt answer, parsed once while it is among the last kept."""
        rules = self._parsed.get(robots)
        if rules is None:
            rules = self._parsed[robots] = RobotsRules.from_response(*robots, self.robots_token)
            if len(self._parsed) > ROBOTS_KEPT:
                self._parsed.popitem(last=False)
        else:
            self._parsed.move_to_end(robots)
        return rules

    def gate(self, request: Retrieve) -> Gate:
        """What the page `request` names may fetch, under its server's robots.txt."""
        return Gate(self, request.robots)

    def why_not(self, url: str) -> str | None:
        """None when the scope admits `url` (normalised as a link is), else a reason code."""
        if outside_patterns(url, self.max_url_length, self.include, self.exclude):
            return Reason.EXCLUDED
        return None


class Gate:
    """One page's: may its scripts have `url` fetched? (its server's rules asked for on the
    first request that needs them)."""

    def __init__(self, scope: PageScope, robots: Robots | None) -> None:
        self.scope = scope
        self.robots = robots
        self._rules: RobotsRules | None = None

    def why_not(self, url: str) -> str | None:
        """None when `url` may be fetched for the page, else the reason code it is not."""
        normal = try_normalize(url, max_length=self.scope.max_url_length)
        if normal is None:
            return Reason.EXCLUDED
        refused = self.scope.why_not(normal)
        if refused is not None:
            return refused
        if self.robots is None:
            return Reason.ROBOTS  # the engine sent no rules: nothing is known to be allowed
        if self._rules is None:
            self._rules = self.scope.rules(self.robots)
        return None if self._rules.allowed(normal) else Reason.ROBOTS
