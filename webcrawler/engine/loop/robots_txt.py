"""robots.txt's lifecycle per server: ask for it first, obey it, let it expire, retry it.

Pinkerton 1994: the WebCrawler honours the Standard for Robot Exclusion, so a
server's robots.txt is asked for before any of its documents (RFC 9309 rules,
webcrawler/protocol/robots.py). Its answer is kept on the server (`ServerState`) and in
the database for `robots_ttl` seconds, then asked again; an unavailable one
(5xx, network error) disallows everything and is asked again after
`robots_retry` seconds; a server the scope refuses (deny_private) gets no
request at all, not even for robots.txt. A resumed crawl reloads the rules
that have not expired.

`RobotsTxt` only decides and remembers: the request goes to the agents like
any other (the crawl loop dispatches it), and the Scheduler keeps it polite.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from webcrawler.protocol.messages import RobotsFile
from webcrawler.protocol.robots import RobotsRules

if TYPE_CHECKING:
    from webcrawler.engine.interfaces import Store
    from webcrawler.engine.records import ServerState
    from webcrawler.settings import Settings

log = logging.getLogger(__name__)

_REFUSED = RobotsRules.from_response(404, "", "WebCrawler")  # allows all: the scope gives the reason


def rules_of(answer: object, token: str) -> tuple[RobotsRules, int | None, str]:
    """The rules an agent's answer to a robots.txt request gives (any non-file answer:
    unavailable), with the status and body to store."""
    status, body = (answer.status, answer.body) if isinstance(answer, RobotsFile) else (None, "")
    return RobotsRules.from_response(status, body, token), status, body


def obey(server: ServerState, rules: RobotsRules, delay: float) -> None:
    """Put `rules` on `server`; its Crawl-delay counts only when longer than our `delay`."""
    server.robots = rules
    wanted = rules.crawl_delay or 0.0
    server.crawl_delay = wanted if wanted > delay else 0.0


class RobotsTxt:
    """When each server's robots.txt is due, and which rules its documents must pass."""

    def __init__(self, settings: Settings, store: Store,
                 refuses_server: Callable[[str], bool]) -> None:
        self.settings = settings
        self.store = store
        self.refuses_server = refuses_server  # the scope's: no request at all to this origin

    def restore(self) -> None:
        """A resumed crawl: the stored rules that have not expired (servers already loaded).
        An unavailable robots.txt is asked again at once, as a resumed crawl retries every
        passing failure (the operator may have fixed what failed: a --ca-bundle, a server)."""
        now_wall = time.time()
        for server_id, status, body, expires in self.store.robots_rows():
            if expires and expires > now_wall:
                rules = RobotsRules.from_response(status, body or "", self.settings.robots_token)
                if not rules.unavailable:
                    self._keep(self.store.servers_by_id[server_id], rules, expires)

    def due(self, server: ServerState, now: float) -> bool:
        """Must robots.txt be asked for now (unknown, expired, or its retry time has come)?"""
        if self.refuses_server(server.origin):
            return False
        rules = server.robots
        if rules is None or server.robots_expires <= time.time():
            return True
        return bool(rules.unavailable and now >= server.robots_retry_at)

    def rules(self, server: ServerState) -> RobotsRules | None:
        """The rules `server`'s documents must pass now (after `due` said False), or None while
        an unavailable robots.txt waits for its retry (at `server.robots_retry_at`)."""
        if self.refuses_server(server.origin):
            return _REFUSED
        return None if self.retrying(server) else server.robots

    @staticmethod
    def retrying(server: ServerState) -> bool:
        """Is `server` waiting to ask again for a robots.txt that was unavailable?"""
        return server.robots is not None and server.robots.unavailable

    def answered(self, server: ServerState, answer: object) -> None:
        """An agent's answer to the robots.txt request: obey it, store it, set its expiry."""
        settings = self.settings
        rules, status, body = rules_of(answer, settings.robots_token)
        wall = time.time()
        expires = wall + (settings.robots_retry if rules.unavailable else settings.robots_ttl)
        self._keep(server, rules, expires)
        self.store.save_robots(server, status, body, wall, expires)
        if rules.unavailable:
            detail = getattr(answer, "reason", "") or f"status {status}"
            log.info("%s/robots.txt unavailable (%s): retrying in %.0f s", server.origin, detail,
                     settings.robots_retry)

    def _keep(self, server: ServerState, rules: RobotsRules, expires: float) -> None:
        obey(server, rules, self.settings.delay)
        server.robots_expires = expires
        server.robots_retry_at = time.monotonic() + (expires - time.time())
