"""The paper's three measures of a crawl order, and the ideal and random crawlers' values.

For a crawl that has visited K of the T pages (Cho, Garcia-Molina & Page, Section 3):

- Crawl & Stop, PCS(K) = 100 M / K, M the visited pages whose importance is at
  least I(R_K), R_K the K-th most important page. Ideal 100; random 100 K / T.
- Crawl & Stop with Threshold, PST(K) = 100 * (hot pages visited) / H, a page
  hot when I(P) >= G and H the number of hot pages. Ideal 100 min(K, H) / H;
  random 100 K / T.
- Limited Buffer, PBC(B) = 100 * (hot pages among the B kept) / B after all T
  pages were visited. Ideal 100 min(H, B) / B; random 100 H / T.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from webcrawler.errors import OrderingError


def counts_at(fractions: Iterable[float], total: int) -> list[int]:
    """K for each fraction of `total` pages (at least 1)."""
    return [max(1, min(total, round(f * total))) for f in fractions]


def pcs(visits: Sequence[int], importance: Sequence[float], ks: Sequence[int]) -> list[float]:
    """PCS after each K of `ks` visits; `importance` is indexed by page, over the T pages crawlable."""
    values = np.asarray(importance, dtype=float)
    ranked = np.sort(values)[::-1]
    seen = values[np.asarray(visits, dtype=np.int64)]
    result = []
    for k in ks:
        threshold = ranked[k - 1]
        result.append(100.0 * float(np.count_nonzero(seen[:k] >= threshold)) / k)
    return result


def pst(visits: Sequence[int], hot: set[int], ks: Sequence[int]) -> list[float]:
    """PST after each K of `ks` visits, for the set of hot pages."""
    if not hot:
        raise OrderingError("no page is hot: lower the threshold")
    found = np.cumsum([1 if page in hot else 0 for page in visits])
    return [100.0 * float(found[k - 1]) / len(hot) for k in ks]


def pbc(kept: set[int], hot: set[int], capacity: int) -> float:
    """PBC of a buffer of `capacity` pages that kept `kept`."""
    return 100.0 * len(kept & hot) / capacity


def ideal_pcs(ks: Sequence[int]) -> list[float]:
    return [100.0 for _ in ks]


def random_pcs(ks: Sequence[int], total: int) -> list[float]:
    return [100.0 * k / total for k in ks]


def ideal_pst(ks: Sequence[int], hot: int) -> list[float]:
    return [100.0 * min(k, hot) / hot for k in ks]


def random_pst(ks: Sequence[int], total: int) -> list[float]:
    return [100.0 * k / total for k in ks]


def ideal_pbc(capacities: Sequence[int], hot: int) -> list[float]:
    return [100.0 * min(hot, b) / b for b in capacities]


def random_pbc(capacities: Sequence[int], hot: int, total: int) -> list[float]:
    return [100.0 * hot / total for _ in capacities]


def hot_pages(importance: Sequence[float], threshold: float, pages: Iterable[int]) -> set[int]:
    """The pages (of `pages`) with I(P) >= G."""
    return {p for p in pages if importance[p] >= threshold}


def default_threshold(importance: Sequence[float], pages: Iterable[int], share: float = 0.1) -> float:
    """G such that about the top `share` of the pages are hot (and G > 0)."""
    values = sorted((importance[p] for p in pages), reverse=True)
    positive = [v for v in values if v > 0]
    if not positive:
        return 1.0
    return positive[min(len(positive), max(1, round(share * len(values)))) - 1]
