"""Importance metrics by name, and their combinations.

A spec names one metric or a conjunction of conditions, as `--importance` takes it:

- `backlink`            IB(P), links from other pages
- `pagerank`            IR(P), d = 0.9
- `similarity:WORDS`    IS(P) for the query WORDS (`similarity:computer science`)
- `location`            IL(P), from the URL
- `A&B>=k&...`          the paper's combinations: I(P) = A(P) when every condition
                        holds, else 0; e.g. `similarity:computer&backlink>=5` is
                        "on topic and at least five backlinks"; a bare term other than
                        the first is a condition "> 0" (`backlink&similarity:db`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from webcrawler.errors import UsageError
from webcrawler.importance.graph import CrawlGraph
from webcrawler.importance.location import location_score
from webcrawler.importance.pagerank import DAMPING, backlinks, pagerank
from webcrawler.importance.similarity import query_words, similarity_scores

_CONDITION = re.compile(r"^(?P<metric>[^<>=]+?)\s*(?P<op>>=|>)\s*(?P<value>[-+0-9.eE]+)$")


class ImportanceError(UsageError, ValueError):
    """An importance spec that cannot be understood; the message says why."""


@dataclass(frozen=True)
class Importance:
    """I(P) of every page, and what it was computed as."""

    spec: str
    values: list[float]
    query: str = ""  # the driving query, for similarity-based specs


def single_metric(name: str, graph: CrawlGraph, index_dir: Path | None = None,
                  d: float = DAMPING) -> list[float]:
    name = name.strip()
    if name == "backlink":
        return [float(v) for v in backlinks(graph.out)]
    if name == "pagerank":
        return pagerank(graph.out, d)
    if name == "location":
        return [location_score(url) for url in graph.urls]
    if name.startswith("similarity:") and query_words(name.split(":", 1)[1]):
        return similarity_scores(graph, name.split(":", 1)[1], index_dir)
    raise ImportanceError(f"unknown importance metric {name!r}: use backlink, pagerank, location, "
                          "similarity:WORDS, or conditions joined by & (e.g. "
                          "similarity:computer&backlink>=5)")


def compute_importance(spec: str, graph: CrawlGraph, index_dir: Path | None = None,
                       d: float = DAMPING) -> Importance:
    """I(P) for every page of `graph` under `spec` (see the module docstring)."""
    terms = [t.strip() for t in spec.split("&") if t.strip()]
    if not terms:
        raise ImportanceError("empty importance spec")
    first = _CONDITION.match(terms[0])
    base = single_metric(first.group("metric") if first else terms[0], graph, index_dir, d)
    values = list(base)
    for i, term in enumerate(terms):
        match = _CONDITION.match(term)
        if match is None and i == 0:
            continue
        name, op, limit = (match.group("metric"), match.group("op"), float(match.group("value"))
                           ) if match else (term, ">", 0.0)
        metric = base if i == 0 else single_metric(name, graph, index_dir, d)
        for p, v in enumerate(metric):
            if not (v >= limit if op == ">=" else v > limit):
                values[p] = 0.0
    query = next((t.split(":", 1)[1] for t in (_CONDITION.sub(r"\g<metric>", t) for t in terms)
                  if t.startswith("similarity:")), "")
    return Importance(spec, values, query)
