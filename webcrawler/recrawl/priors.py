"""What a page's server and its sitemap entry say of its change rate before its own history does
(issue 35: a page new to the crawl gets a prior from that evidence rather than a default).

A sitemap's `changefreq` ("daily", "never", ...) is a claim in the site's own clock, and sites
lie (every page "daily") or leave it out; a server's pages share templates, authors and habits.
So neither is read as a number of seconds. Instead every page is in a group, (server,
changefreq) with changefreq "" when none was listed, and each group's rate is what the crawl
saw of its pages, pooled: Cho and Garcia-Molina's equal-interval estimator over the group's
recrawls,

    rate = -ln((n - X + 0.5) / (n + 1)) / (S / n)

(n recrawls, X of them saw a real change, S seconds between them; n + 1, as in buckets.py,
so that a group never seen to change is slow, not frozen: one of its pages may yet change).
A group whose pages do as their changefreq says gets its own rate, distinct from the server's other groups; a
lying or absent changefreq puts a page among pages of every rate, and its group's rate is
the server's mix: no worse than knowing nothing of the sitemap. A group's own recrawls are
pooled with SERVER_RECRAWLS pseudo-recrawls of its server's mean (so a new group starts at its
server's rate and leaves it as its own recrawls come in); a server with fewer than MIN_RECRAWLS
recrawls gives none (the page keeps the policy's default, `first_interval`).

The prior joins the page's own history as `buckets.Prior` (a Gamma prior worth `weight` of
its mean recrawl intervals: buckets.change_rate), so the page's own recrawls outweigh it
after a few. The counts live in memory for one crawl run, as the replanner's bucket counts do.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

from webcrawler.recrawl.buckets import Prior

MIN_RECRAWLS = 20  # a server's recrawls before its pooled rate is believed
SERVER_RECRAWLS = 5.0  # the server's worth in a group's pooled rate, in recrawls
PRIOR_WEIGHT = 1.0  # the prior's worth in the page's own mean recrawl intervals
CHANGEFREQS = ("always", "hourly", "daily", "weekly", "monthly", "yearly", "never")


def changefreq(value: str | None) -> str:
    """A sitemap's changefreq as one of CHANGEFREQS, "" when absent or not one of them."""
    word = (value or "").strip().lower()
    return word if word in CHANGEFREQS else ""


@dataclass
class _Pool:
    recrawls: float = 0.0
    changes: float = 0.0
    seconds: float = 0.0

    def add(self, gap: float, changed: bool) -> None:
        self.recrawls += 1
        self.changes += changed
        self.seconds += gap

    def rate(self, server: _Pool) -> float:
        """The pooled rate of these recrawls and SERVER_RECRAWLS of the server's mean ones."""
        share = SERVER_RECRAWLS / server.recrawls
        n = self.recrawls + SERVER_RECRAWLS
        x = min(self.changes + share * server.changes, n)
        seconds = self.seconds + share * server.seconds
        return -math.log((n - x + 0.5) / (n + 1)) / (seconds / n)


class Evidence:
    """Recrawls pooled by (server, changefreq) and by server; priors from them."""

    def __init__(self, weight: float = PRIOR_WEIGHT) -> None:
        self.weight = weight
        self._groups: dict[tuple[Hashable, str], _Pool] = {}
        self._servers: dict[Hashable, _Pool] = {}

    def add(self, server: Hashable, freq: str, gap: float, changed: bool) -> None:
        """A recrawl of a page of `server` listed with `freq` ("" none), `gap` seconds after
        its previous fetch, that saw a real change or not."""
        if gap <= 0:
            return
        self._groups.setdefault((server, freq), _Pool()).add(gap, changed)
        self._servers.setdefault(server, _Pool()).add(gap, changed)

    def prior(self, server: Hashable, freq: str) -> Prior | None:
        """The prior of a page of `server` listed with `freq`: its group's pooled rate, leaning
        on its server's while the group has few recrawls; None while the server has few."""
        whole = self._servers.get(server)
        if self.weight <= 0 or whole is None or whole.recrawls < MIN_RECRAWLS or whole.seconds <= 0:
            return None
        return Prior(self._groups.get((server, freq), _Pool()).rate(whole), self.weight)
