"""Importance metrics of pages, computed from a stored crawl (Cho, Garcia-Molina & Page 1998).

IB(P) backlinks, IR(P) PageRank, IS(P) similarity to a driving query, IL(P)
location, and their combinations, over the crawl graph loaded read-only from
the database. Nothing here writes, fetches or schedules.
"""

from webcrawler.importance.graph import CrawlGraph, load_graph
from webcrawler.importance.location import location_score
from webcrawler.importance.metrics import Importance, ImportanceError, compute_importance
from webcrawler.importance.pagerank import DAMPING, backlinks, pagerank, pagerank_edges
from webcrawler.importance.similarity import mentions, query_words, similarity_scores

__all__ = [
    "DAMPING",
    "CrawlGraph",
    "Importance",
    "ImportanceError",
    "backlinks",
    "compute_importance",
    "load_graph",
    "location_score",
    "mentions",
    "pagerank",
    "pagerank_edges",
    "query_words",
    "similarity_scores",
]
