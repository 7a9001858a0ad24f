"""Results grouped by site, so that one site cannot fill a page.

A site's first `per_site` results keep their places in the ranking; its next
`per_site` move behind every site's first ones, and so on (a stable sort on
(round, rank), where a result's round is how many results of its site rank above
it, divided by `per_site`). Over a ranked list long enough for the page, a page
then shows at most `per_site` results of a site while other sites have results to
show; the site's further results are one "more from this site" link away
(`site:host` and the query). The grouping picks which results a page shows; the page
lists them best first (`searcher.on_page`), so a site's next round, reached on a page
once the other sites ran out, never reads below lower scores. Pure functions; nothing
here reads the index.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import TypeVar

PER_SITE = 3  # results of one site in a page's first round
DEPTH = 3  # a grouped page is drawn from this many times the results it needs

T = TypeVar("T")


def group(items: Sequence[T], sites: Sequence[str], per_site: int = PER_SITE) -> list[T]:
    """`items` (best first) reordered so that each site's results come `per_site` a round."""
    seen: Counter[str] = Counter()
    rounds = []
    for site in sites:
        rounds.append(seen[site] // per_site)
        seen[site] += 1
    order = sorted(range(len(items)), key=lambda i: (rounds[i], i))
    return [items[i] for i in order]


def more_from(page_sites: Sequence[str], site_counts: dict[str, int]) -> list[bool]:
    """For each result of a page (by its site): True on the site's last result on the page
    when the site has more matches than the page shows of it."""
    shown = Counter(page_sites)
    last = {site: i for i, site in enumerate(page_sites)}
    return [bool(site) and last[site] == i and site_counts.get(site, 0) > shown[site]
            for i, site in enumerate(page_sites)]
