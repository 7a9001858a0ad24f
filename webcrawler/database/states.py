"""A document's place in its life: the states the crawl's store keeps, as short strings.

Its own light module (the database schema, webcrawler/database/schema.py, imports it),
so the crawl loop and the in-memory store speak of states without loading
SQLAlchemy: a toolkit crawl that keeps nothing never needs it.
"""

from __future__ import annotations


class State:
    """A document's place in its life. Stored as short strings."""

    QUEUED = "queued"  # known and waiting in the frontier
    FETCHED = "fetched"  # retrieved and stored (and indexed unless noindex)
    FAILED = "failed"  # could not be retrieved: see reason
    EXCLUDED = "excluded"  # deliberately not fetched: see reason
    REDIRECTED = "redirected"  # answered 3xx; the target is a document of its own
    GONE = "gone"  # fetched once, then answered 404 or 410 on a recrawl: out of the index
    RETRYING = "retrying"  # failed for a passing reason: asked again after a wait (queued on resume)
