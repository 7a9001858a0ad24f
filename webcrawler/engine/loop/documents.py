"""The engine's document path: how a retrieved document and its links are kept.

Every way a document reaches the index goes through here - `webcrawler index`,
real-time search, and the toolkit's `AddToIndex` - so the rules hold for all:

- a page that says noindex (`<meta name="robots" content="noindex">` or an
  `X-Robots-Tag: noindex` header; the agent sets `Document.noindex`) is stored
  with that reason and never indexed;
- a page with the same content as another fetched document (the agent's
  checksum of the body) is stored as a duplicate, not indexed, and only those of its
  links are followed that lead where the original's do not (`links_beyond`): a copy of a
  page under another URL of its server links where the original does, but a second
  server whose home page is byte-identical to the first's has relative links to its own
  pages, which would otherwise never be crawled;
- the links of the others are stored (in the scope only), their targets
  queued once.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from webcrawler.database.states import State
from webcrawler.engine.interfaces import Store
from webcrawler.engine.loop.policies import DocumentSink, Scope
from webcrawler.engine.records import FoundLink, FrontierEntry, NewURL, ServerState
from webcrawler.protocol.messages import Document, Failure, Outlink, Reason, Redirect
from webcrawler.protocol.urls import split

Queued = Callable[[ServerState, bool, set[str]], None]  # (server, new server?, new paths)


@dataclass(frozen=True, slots=True)
class Kept:
    """What the store made of a document: `reason` it is not indexed (None: indexed)."""

    reason: str | None
    duplicate_of: int | None


class Judge(Protocol):
    """A further reason not to index a document the exact checks let through (its canonical
    URL is another, it nearly repeats an indexed page): (reason, detail, sketch to store)."""

    def __call__(self, entry: FrontierEntry, doc: Document, reason: str | None
                 ) -> tuple[str | None, str | None, bytes]: ...


def record_document(store: Store, sink: DocumentSink, entry: FrontierEntry, doc: Document,
                    now: float, judge: Judge | None = None) -> Kept:
    """Store a retrieved document; index it unless it is noindex or a duplicate (or the
    crawl's `judge` finds another reason)."""
    duplicate = store.duplicate_of(doc.checksum, entry.doc_id)
    reason = Reason.NOINDEX if doc.noindex else Reason.DUPLICATE if duplicate else None
    detail = f"same content as document {duplicate}" if duplicate else None
    sketch = doc.sketch
    if judge is not None:
        judged, judged_detail, sketch = judge(entry, doc, reason)
        if reason is None:  # a judged page is indexed with a note, or kept out with its reason
            reason, detail = judged, judged_detail
    store.record_fetch(
        entry, State.FETCHED, doc.checksum, now, reason=reason, detail=detail,
        status=doc.status, content_type=doc.content_type[:128], title=doc.title[:1000],
        length=doc.length, etag=doc.etag[:256] or None,
        last_modified=doc.last_modified[:64] or None, sketch=sketch or None,
        first_fetch=now, last_change=now,
    )
    if doc.body:  # asked for: settings.stores_responses
        store.save_response(entry.doc_id, now, doc)
    if reason is None:
        sink.add(entry.doc_id, doc)
    return Kept(reason, duplicate)


def record_redirect(store: Store, entry: FrontierEntry, answer: Redirect, now: float) -> None:
    """Store a redirect: its status and where it leads (the target is queued by the caller)."""
    store.finish(entry, State.REDIRECTED, status=answer.status, last_fetch=now,
                 detail=answer.location[:2000])


def record_failure(store: Store, server: ServerState, entry: FrontierEntry, failure: Failure,
                   now: float, tries: dict[str, object]) -> bool:
    """Store a final failure with its reason (an unindexable type: excluded, as `stats` counts
    it), and the tries it took (retries.py); True when it was an exclusion."""
    excluded = failure.reason == Reason.UNINDEXABLE
    store.finish(entry, State.EXCLUDED if excluded else State.FAILED,
                 reason=failure.reason, detail=failure.detail[:2000],
                 status=failure.status, content_type=failure.content_type[:128] or None,
                 last_fetch=now, **tries)
    server.docs_failed += 1
    return excluded


def links_beyond(store: Store, original: int, found: tuple[Outlink, ...]) -> tuple[Outlink, ...]:
    """The links of a duplicate of document `original` that lead to URLs the original's
    links do not (all of them when they resolve against another server)."""
    targets = store.link_targets(original)
    beyond = []
    for link in found:
        origin, path = split(link.url)
        server = store.server(origin)
        known = store.lookup(server, path) if server is not None else None
        if known is None or known not in targets:
            beyond.append(link)
    return tuple(beyond)


def group_links(scope: Scope, depth: int, found: tuple[Outlink, ...]
                ) -> tuple[dict[str, dict[str, str]], Counter[str]]:
    """The links the scope lets in, as origin -> path -> first anchor; and how many it
    refused for a private address or as a trap, by reason (counted: the summary says the
    safety worked)."""
    groups: dict[str, dict[str, str]] = {}
    refused: Counter[str] = Counter()
    for link in found:
        reason = scope.why_not(link.url, depth)
        if reason is not None:
            if reason in (Reason.PRIVATE, Reason.TRAP):
                refused[reason] += 1
            continue
        origin, path = split(link.url)
        anchors = groups.setdefault(origin, {})
        if path not in anchors:
            anchors[path] = link.anchor
    return groups, refused


def queue_urls(store: Store, origin: str, paths: list[str], depth: int, redirects: int,
               state: str = State.QUEUED) -> tuple[ServerState, bool, dict[str, int], set[str]]:
    """Store `paths` of `origin`; (server, whether the server is new, path -> id, new paths)."""
    server = store.server(origin)
    added = server is None
    if server is None:
        server = store.add_server(origin, time.time())
    ids, fresh = store.add_urls(server, [NewURL(p, depth, redirects) for p in paths], time.time(),
                                state)
    return server, added, ids, fresh


def store_links(store: Store, scope: Scope, entry: FrontierEntry, found: tuple[Outlink, ...],
                queued: Queued | None = None) -> tuple[list[FoundLink], Counter[str]]:
    """Store the links of `entry`'s document, their targets queued (`queued` is told of each
    server that got URLs); returns them, and how many were refused (group_links)."""
    depth = entry.depth + 1
    groups, refused = group_links(scope, depth, found)
    stored: list[FoundLink] = []
    for origin, anchors in groups.items():
        server, added, ids, fresh = queue_urls(store, origin, list(anchors), depth, 0)
        if queued is not None:
            queued(server, added, fresh)
        stored.extend(FoundLink(ids[path], server, path, anchor, depth, path in fresh)
                      for path, anchor in anchors.items())
    store.add_links(entry.doc_id, [(link.target_id, link.anchor) for link in stored])
    return stored, refused
