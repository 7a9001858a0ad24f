"""The ordering harness: virtual crawlers over a stored crawl, measured as Cho et al. 1998 did.

`evaluate_ordering` loads the crawl graph (read-only), computes the pages'
importance, replays the crawl in each order (each crawler deciding only
from what it has seen), and writes the PCS, PST and PBC curves as a CSV and
PNG plots, returning the evaluation and a terminal table. It never fetches.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from webcrawler.errors import OrderingError
from webcrawler.evaluate.harness import DEFAULT_ORDERS, Evaluation, evaluate
from webcrawler.evaluate.orders import ORDER_NAMES

__all__ = ["DEFAULT_ORDERS", "ORDER_NAMES", "Evaluation", "evaluate", "evaluate_ordering",
           "start_pages"]


def start_pages(urls: Sequence[str], graph_urls: Sequence[str]) -> list[int]:
    """Pages for the start URLs; none given: the first page stored (the first seed)."""
    if not urls:
        return [0] if graph_urls else []
    where = {url: i for i, url in enumerate(graph_urls)}
    missing = [u for u in urls if u not in where]
    if missing:
        raise OrderingError(f"not a fetched page of this crawl: {', '.join(missing)}")
    return [where[u] for u in urls]


def evaluate_ordering(db_url: str, index_dir: Path | None, spec: str, *, threshold: float | None,
                      orders: Sequence[str], start: Sequence[str], out_dir: Path,
                      prefix: str = "ordering") -> tuple[Evaluation, str, list[Path]]:
    """Run the harness; write `<prefix>-curves.csv` and one PNG per measure into `out_dir`."""
    from webcrawler.evaluate.report import table, write_csv, write_plots
    from webcrawler.importance import compute_importance, load_graph
    from webcrawler.plots import require_plots
    from webcrawler.protocol.urls import try_normalize

    require_plots()  # before the evaluation, not after it: its plots are part of the output
    graph = load_graph(db_url)
    if not len(graph):
        raise OrderingError("the crawl has no fetched pages")
    importance = compute_importance(spec, graph, index_dir)
    starts = start_pages([try_normalize(u) or u for u in start], graph.urls)
    evaluation = evaluate(graph, importance, starts, threshold=threshold, orders=orders)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_csv(evaluation, out_dir / f"{prefix}-curves.csv")
    plots = write_plots(evaluation, out_dir, prefix)
    return evaluation, table(evaluation), plots
