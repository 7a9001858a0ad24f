"""PageRank IR(P) as the paper defines it, and backlink counts IB(P).

    IR(P) = (1 - d) + d * (IR(T1)/c1 + ... + IR(Tn)/cn)

over the pages T1..Tn linking to P, ci the number of links out of Ti; a page
with no outgoing link is treated as linking to every page (itself included).
Solved iteratively from IR = 1 everywhere; the values sum to the number of
pages (networkx's `pagerank(alpha=d)` times n). numpy does the sums, so one
iteration over a million links takes milliseconds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

DAMPING = 0.9  # the paper's d, for IR(P) and IR'(P)


def edge_arrays(out: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """(sources, targets) arrays of every link in an adjacency list."""
    sources = np.fromiter((s for s, targets in enumerate(out) for _ in targets), dtype=np.int64)
    targets = np.fromiter((t for targets in out for t in targets), dtype=np.int64)
    return sources, targets


def pagerank_edges(n: int, sources: np.ndarray, targets: np.ndarray, d: float = DAMPING,
                   start: np.ndarray | None = None, tol: float = 1e-6,
                   max_iter: int = 200) -> np.ndarray:
    """IR of pages 0..n-1 given their links (duplicate links count twice).

    `start` warm-starts the iteration (values for the first len(start) pages;
    new pages start at 1). Stops when no value moves by more than `tol`.
    """
    if n == 0:
        return np.zeros(0)
    rank = np.ones(n)
    if start is not None and len(start):
        rank[: min(n, len(start))] = start[:n]
    out_degree = np.bincount(sources, minlength=n).astype(float)
    dangling = out_degree == 0
    weight = np.zeros(n)
    weight[~dangling] = 1.0 / out_degree[~dangling]
    for _ in range(max_iter):
        flow = np.bincount(targets, weights=rank[sources] * weight[sources], minlength=n)
        new = (1.0 - d) + d * (flow + rank[dangling].sum() / n)
        moved = float(np.abs(new - rank).max())
        rank = new
        if moved <= tol:
            break
    return rank


def pagerank(out: Sequence[Sequence[int]], d: float = DAMPING, tol: float = 1e-9) -> list[float]:
    """IR(P) of every page of an adjacency list (page i links to out[i])."""
    sources, targets = edge_arrays(out)
    return [float(v) for v in pagerank_edges(len(out), sources, targets, d, tol=tol)]


def backlinks(out: Sequence[Sequence[int]]) -> list[int]:
    """IB(P): how many pages link to each page."""
    counts = [0] * len(out)
    for targets in out:
        for target in targets:
            counts[target] += 1
    return counts
