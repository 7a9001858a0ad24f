"""One realistic web at once, crawled as an operator would (the CLI, one process): a flaky
site, a rate-limited one, a site of traps and an intranet site (TLS with a private CA, HTTP
Basic). No page is lost, no request falls inside a Retry-After window, traps cost a bounded
number of requests, and the credential reaches its server only."""

from __future__ import annotations

import base64
import itertools
import json
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.support.flakyweb import RESET, Flaky, error, too_many, unavailable
from tests.support.tls import TestCA
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html

from .conftest import index_command, pages, windows_kept, with_credentials
from .test_traps import trap_site

SECRET = "intranet-Pa55"
BASIC = "Basic " + base64.b64encode(f"crawler:{SECRET}".encode()).decode()


class RateLimited:
    """At most 2 requests a second; more get 429 with Retry-After: 1."""

    def __init__(self, routes: dict) -> None:
        self.routes, self.recent, self.lock = routes, [], threading.Lock()

    def __call__(self, path: str) -> Page | None:
        with self.lock:
            now = time.monotonic()
            self.recent = [t for t in self.recent if now - t < 1.0] + [now]
            if len(self.recent) > 2:
                return too_many(1)
        return self.routes.get(path)


def test_a_realistic_web_loses_nothing_obeys_every_window_and_leaks_nothing(tmp_path: Path):
    ca = TestCA(tmp_path / "ca")
    kinds = itertools.cycle([unavailable(1), too_many(1), RESET, error(500), error(502)])
    plan = {f"/p{i}": next(kinds) for i in range(1, 11)}
    hub: dict = {}
    sites = [Site("127.0.6.70", hub),
             Site("127.0.6.71", Flaky(pages(10, "flaky"),
                                      lambda path, n: plan.get(path) if n == 1 else None)),
             Site("127.0.6.72", RateLimited(pages(10, "limited"))),
             Site("127.0.6.73", trap_site),
             Site("127.0.6.74", pages(5, "intranet"), tls=ca.server_context(ca.issue("127.0.6.74")),
                  auth=("Authorization", BASIC))]
    with LoopbackWeb(sites) as web:
        hub["/"] = html("hub", "the seed", [(web.url(f"127.0.6.{n}"), f"site {n}")
                                            for n in range(71, 75)])
        data = with_credentials(tmp_path, web.name("127.0.6.74"), SECRET)
        result = index_command(data, web.url("127.0.6.70"), "--agents", "4", "--retry-backoff",
                               "0.2", "--ca-bundle", str(ca.cert), "--trap-budget", "12")
        web.log.settle()
        hits = web.log.snapshot()
    assert result.returncode == 0, result.stderr[-3000:]
    stats = json.loads(subprocess.run([sys.executable, "-m", "webcrawler.cli", "stats", "--json",
                                       "--data-dir", str(data)], capture_output=True, text=True,
                                      timeout=60).stdout)
    assert stats["failures"] == {}  # no page lost
    assert set(stats["documents"]) <= {State.FETCHED, State.EXCLUDED}
    assert set(stats["exclusions"]) == {"trap"}
    assert stats["documents"][State.FETCHED] == 1 + 11 + 11 + 6 + (1 + 4 + 12 + 40)
    assert stats["recovered"] >= 10 and stats["retries"] >= 10
    assert windows_kept(hits, 1.0) == []
    traps = web.log.paths(web.name("127.0.6.73"))
    assert len([p for p in traps if p.startswith("/loop")]) <= 4
    assert len([p for p in traps if p.startswith("/cal")]) <= 12
    assert {h.server for h in hits if dict(h.headers).get("Authorization")} == {
        web.name("127.0.6.74")}
    assert SECRET not in result.stdout + result.stderr
