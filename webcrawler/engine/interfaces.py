"""What the crawl loop meets, in one place: the store, the pool of agents, and the hooks.

The loop (loop/crawl.py, `CrawlLoop`) is the project's only crawl loop: `webcrawler
index`, incremental crawls, real-time search and the toolkit's crawlers (so the
Workbench too) are all clients of it. It decides what to fetch and keeps the
rules - robots.txt first and its lifecycle, the scope, politeness leases, one
request in flight per server - and it knows the rest only through these
interfaces:

- the **store** (`Store`): what is known of servers, URLs and documents. The
  SQL `CrawlStore` (store/sql.py) for crawls that keep what they find, the
  in-memory `MemoryStore` (store/memory.py) for toolkit crawls and tests. Both
  answer every book below, canonical aliases and sketches (`OneURLBook`) and the
  index's link counts (`LinkBook`), the priority orders' graph (`OrderBook`) and an
  incremental crawl's page histories (`RecrawlBook`) included, so neither the loop, the
  orders nor the recrawl speak SQL.
- the **pool** of agents (`Pool`): local agent processes (loop/pool.py), Dask agent
  hosts (agenthosts/), the in-process pool for tests (tests/support/inprocess.py); the
  toolkit's request policy (toolkit/gate.py) wraps any of them.
- the **hooks** (`Hooks`): what a client does with an answer (a document, a
  redirect, a failure), its clock (a tick), and when it stops. `BaseHooks`
  (crawl.py) does nothing, so a client overrides only what it needs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from webcrawler.engine.records import FrontierEntry, NewURL, ServerState
from webcrawler.protocol.messages import Answer, Document, Failure, NotModified, Redirect, Retrieve


@dataclass(frozen=True, slots=True)
class Job:
    """A request the loop handed to the pool: for `server`, its robots.txt (`entry` None)
    or a document."""

    server: ServerState
    entry: FrontierEntry | None


class ServerBook(Protocol):
    """The store's servers (their counters live in `ServerState` between commits)."""

    servers_by_id: dict[int, ServerState]

    def load_servers(self) -> list[ServerState]: ...
    def server(self, origin: str) -> ServerState | None: ...
    def add_server(self, origin: str, now: float) -> ServerState: ...


class RobotsBook(Protocol):
    """The store's copy of each server's robots.txt (engine/loop/robots_txt.py keeps its lifecycle)."""

    def robots_rows(self) -> Iterable[tuple[int, int | None, str, float]]: ...
    def save_robots(self, server: ServerState, status: int | None, body: str,
                    now: float, expires: float) -> None: ...


class URLBook(Protocol):
    """The store's URLs: a URL is stored once ("never twice"), then queued and finished."""

    def add_urls(self, server: ServerState, urls: Sequence[NewURL], now: float,
                 state: str = ...) -> tuple[dict[str, int], set[str]]: ...
    def lookup(self, server: ServerState, path: str) -> int | None: ...
    def fate(self, server: ServerState, path: str) -> tuple[str, str | None, str | None] | None:
        """(state, reason, detail) of a stored URL; None when it was never stored."""
    def next_document(self, server: ServerState) -> FrontierEntry | None: ...
    def finish(self, entry: FrontierEntry, state: str, **values: object) -> None: ...
    def requeue(self, server: ServerState, doc_id: int) -> None:
        """Count a stored URL that a client with its own frontier fetches again (a toolkit
        crawl on a data directory) in its server's queue, until `finish` takes it out."""


class DocumentBook(Protocol):
    """The store's documents and links: what the engine's document path writes."""

    def record_fetch(self, entry: FrontierEntry, state: str, checksum: str, now: float,
                     **values: object) -> bool: ...
    def duplicate_of(self, checksum: str, doc_id: int) -> int | None: ...
    def add_links(self, source_id: int, targets: Iterable[tuple[int, str]]) -> None: ...
    def link_targets(self, source_id: int) -> set[int]: ...
    def delete_links(self, source_id: int) -> None: ...
    def save_response(self, doc_id: int, now: float, document: Document) -> None: ...
    def annotate(self, doc_id: int, **values: object) -> None: ...


class OneURLBook(Protocol):
    """What "one URL per document" asks of the store (loop/canonical.py, loop/near_duplicates.py):
    the aliases of canonical pages, and the sketches of the pages the index holds. Both
    stores answer, so canonical URLs and near-duplicates are judged on either."""

    def canonical_ids(self) -> set[int]: ...
    def aliases_of(self, canonical_id: int) -> list[int]: ...
    def add_alias(self, doc_id: int, canonical_id: int) -> None: ...
    def indexed(self, doc_id: int) -> bool: ...
    def indexed_sketches(self, ids: Sequence[int] | None = None
                         ) -> list[tuple[int, bytes, str]]: ...


class LinkBook(Protocol):
    """What keeping the index's link counts fresh asks of the store (pipeline/link_refresh.py):
    where the fetched pages link, how many pages link to each now, and how many each index
    entry was built with."""

    def targets_of(self, sources: Sequence[int]) -> list[int]: ...
    def in_link_counts(self, ids: Sequence[int]) -> dict[int, int]: ...
    def indexed_in_links(self, ids: Sequence[int]) -> dict[int, int | None]: ...


class OrderBook(Protocol):
    """What the priority orders ask of the store (scheduling/orders/): a resumed crawl's
    queued documents of a server, and the stored link graph their keys start from."""

    servers_by_id: dict[int, ServerState]

    def queued_of(self, server: ServerState) -> list[tuple[int, str, int, int | None]]:
        """(id, path, depth, redirects) of the server's queued documents."""
    def redirects_of(self, doc_id: int) -> int: ...
    def stored_links(self) -> Iterable[tuple[int, int]]:
        """(source id, target id) of every stored link, self-links included."""
    def links_per_target(self) -> Iterable[tuple[int, int]]:
        """(target id, stored links to it, self-links included) of every linked document."""


PageHistory = tuple[str, str | None, bytes | None, int | None, int | None, int | None, int | None,
                    int | None, float | None, float | None, float | None, float | None,
                    float | None, str | None, float | None]
"""A stored page's row as an incremental crawl reads it before a recrawl's answer: state,
checksum, sketch, times fetched, changed, trivial, unmodified, not modified, first fetch,
last fetch, next due, changed seconds, shortest change, last modified, change ages."""

RecrawlRow = tuple[str, int, int, str | None, str | None, str, float | None]
"""A page due for a recrawl as the recrawl queues read it: path, depth, redirects, etag,
last modified, state, next due."""


class RecrawlBook(Protocol):
    """What an incremental crawl asks of the store (webcrawler/recrawl/): each stored page's
    change history and its next due time (the page's row changes through `finish`)."""

    def schedule_stored(self, states: Sequence[str], first: float, now: float
                        ) -> list[tuple[int, int, float, int | None, float | None]]:
        """Give the pages in `states` with no due time one (`first` after their last fetch),
        make the sitemaps among them due `now`; (id, server id, next due, change bucket,
        last fetch) of every page in `states` with a due time."""
    def page_history(self, doc_id: int) -> PageHistory | None: ...
    def recrawl_row(self, doc_id: int) -> RecrawlRow | None: ...
    def listed_row(self, doc_id: int) -> tuple[str, float | None] | None:
        """(state, last fetch) of a page a sitemap lists."""
    def set_due(self, doc_id: int, due: float | None) -> None: ...


class OutboxBook(Protocol):
    """What the index's sinks ask of the store (engine/pipeline/): the outbox the index
    writers drain. Only the SQL store keeps one, as its writers read it from other processes;
    a crawl on the in-memory store indexes through a sink of its own, or not at all."""

    def database_url(self) -> str:
        """Where the writers read the outbox (the password included)."""
    def outbox_put(self, doc_id: int, batch: int, payload: bytes) -> None: ...
    def outbox_rebatch(self, doc_ids: Sequence[int], batch: int) -> int:
        """Move the committed document rows of `doc_ids` to `batch`; how many."""
    def outbox_acknowledge(self, batches: Sequence[int], removals: Iterable[int],
                           languages: Mapping[int, str], inlinks: Mapping[int, int]) -> None:
        """The index committed `batches` (`removals`: those that may hold a removal), with the
        languages it detected and the in-links it counted."""
    def outbox_unsent(self) -> tuple[int, list[int]]:
        """(the highest batch number used, the batches not acknowledged), committed."""
    def outbox_lowest(self) -> int: ...
    def outbox_top(self) -> int:
        """The highest batch number committed, read outside the crawl's transaction."""
    def outbox_waiting(self) -> int:
        """Committed rows no writer has indexed yet, counted outside the crawl's transaction."""
    def outbox_commit(self) -> None:
        """Commit what the sink wrote (the crawl's own commit writes its counters too)."""
    def pending(self) -> bool: ...


class RunBook(Protocol):
    """The store's transaction and the record of each crawl run."""

    def start_run(self, mode: str = ...) -> int: ...
    def update_run(self, run_id: int, docs: int, failures: int, ended: bool = ...,
                   stop_reason: str | None = ..., requests: int | None = ...,
                   fetch_rate: float | None = ...) -> None: ...
    def pending(self) -> bool: ...
    def commit(self) -> None: ...
    def rollback(self) -> None: ...


class Committer(Protocol):
    """A client's own writes that commit when the loop commits (`CrawlLoop.on_commit`): a
    toolkit action with a store of its own (an AddToIndex the crawl does not know, given
    pages by hand) follows the loop's cadence, so a crawl has one commit rhythm, not one per
    writer. An AddToIndex the crawl knows needs none: the loop runs on its store."""

    def pending(self) -> bool:
        """Is anything written since the last commit (the loop's time cadence asks)?"""
    def commit(self) -> None:
        """Commit now: the loop has just committed its own store."""


class Store(ServerBook, RobotsBook, URLBook, DocumentBook, OneURLBook, LinkBook, OrderBook,
            RecrawlBook, RunBook, Protocol):
    """Everything the loop and the engine's document path ask of a store."""


class Pool(Protocol):
    """Agents: hand out `Retrieve`s while some are free, collect `(job, answer)` pairs."""

    def free(self) -> int: ...
    def busy(self) -> int: ...
    def submit(self, job: Retrieve) -> object: ...
    def poll(self, timeout: float) -> list[tuple[Retrieve, Answer]]: ...
    def shutdown(self) -> None: ...


class AnswerHooks(Protocol):
    """What a client does with the answers (`entry` is the document asked for, `server` its
    server; the loop has already released the server's lease and counts the answer)."""

    def document(self, entry: FrontierEntry, server: ServerState, doc: Document) -> None:
        """A retrieved document."""

    def redirect(self, entry: FrontierEntry, answer: Redirect, hops: int) -> None:
        """A redirect within the loop's `MAX_REDIRECTS` (`hops` counts this one)."""

    def failure(self, entry: FrontierEntry, server: ServerState, failure: Failure) -> None:
        """A failure (more redirects than allowed arrive here as one)."""

    def not_modified(self, entry: FrontierEntry, answer: NotModified) -> None:
        """A 304 to a conditional request (incremental crawls)."""

    def excluded(self, entry: FrontierEntry, reason: str) -> None:
        """A queued document robots.txt or the scope now refuses (stored as excluded)."""


class ClockHooks(Protocol):
    """The client's clock and its say over when requests go out and when the loop stops."""

    def tick(self, now: float) -> None:
        """Once per turn of the loop (monotonic `now`), and once more after it stopped."""

    def stop_reason(self, now: float, reason: str) -> str:
        """Why to stop now, given the loop's own `reason` ("" to go on; the loop's are
        "time limit", "nothing left to fetch" and those given to `request_stop`)."""

    def may_dispatch(self, now: float) -> bool:
        """May another request go out now (a rate, a limit counting requests in flight)?"""

    def wait_hint(self, now: float) -> float | None:
        """Seconds after which the client wants the loop to look again (None: no wish)."""

    def dispatched(self, job: Job, now: float) -> None:
        """A request went out."""


class RequestHooks(Protocol):
    """What the client asks for, and what it reports."""

    def kind(self, entry: FrontierEntry) -> str:
        """The `Retrieve.kind` of a document request ("document", "page" or "file")."""

    def report(self) -> str:
        """The client's own counts for the progress display ("" for none)."""

    def found(self) -> str:
        """What the client found beyond pages (sitemaps, aliases, ...) for the summary ("")."""

    def ending(self) -> None:
        """The crawl is over, its last answers handled: what the client still has to write
        goes into the last commit."""


class Hooks(AnswerHooks, ClockHooks, RequestHooks, Protocol):
    """A client of the loop: all of the above (`crawl.BaseHooks` does nothing for each)."""
