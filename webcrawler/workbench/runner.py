"""One defined crawl, run to its end, its events written as JSON lines.

The Workbench's visualisations listen to the toolkit's event broadcast (Miller
and Bharat 1998, section 3.2: "the crawler sends an event to all registered
visualizations"). Here the listeners turn each event into a small JSON object
(a node, an edge, counters) for whoever reads them: the workbench reads a
child process's stdout (`python -m webcrawler.workbench.runner JOB.json`, one
crawl per process group), `webcrawler crawl definition.json` prints progress.

    {"t": "queued",  "url", "from", "anchor", "depth"}       a link queued: a node and its edge
    {"t": "edge",    "from", "url"}                          a link to a page already known
    {"t": "skipped", "url", "from", "why"}                   a link not followed (first MAX_SKIPPED)
    {"t": "visited", "url", "title", "depth", "matched", "category", "bytes"}
    {"t": "failed",  "url", "why"}
    {"t": "counters", "visited", "queued", "skipped", "failed", "bytes", "rate", "seconds"}
                                                             skipped: links not followed (scope,
                                                             rules, robots.txt, ...), never a link
                                                             to a page already known
    {"t": "finished", "summary", "result", "action", "errors", "processed", "refused"}
                                                             last: the result's file name, how
                                                             many pages the action processed, and
                                                             what deny_private refused (or None)

SIGTERM aborts the crawl (the toolkit's `abort()`): the action still writes
what it gathered, and the process exits. So does the death of the workbench that
started it (kill -9 leaves no one to read the events): a thread watches the parent,
aborts the crawl when it is gone, and ends the crawl's whole process group if the
abort has not ended it within ORPHAN_GRACE seconds.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webcrawler.protocol.messages import Reason
from webcrawler.settings import Settings
from webcrawler.toolkit import Link, Page, RequestPolicy
from webcrawler.workbench.build import DefinedCrawler, make_action, pack_result
from webcrawler.workbench.definition import Definition, parse
from webcrawler.workbench.timed import SECONDS

log = logging.getLogger(__name__)

MAX_SKIPPED = 2000  # skipped links shown as nodes (all are counted)
MAX_EDGES = 50_000  # edges between known pages sent (all links are still crawled)
ORPHAN_GRACE = 10.0  # seconds an orphaned crawl gets to finish its abort
WATCH_EVERY = 0.5  # seconds between two looks at the parent
COUNTER_EVERY = 0.5  # seconds between counter events (and after every page visited or failed)

Emit = Callable[[dict[str, Any]], None]


class EventFeed:
    """Listens to a crawl's events and emits them as JSON-ready dicts, bounded in number."""

    def __init__(self, crawler: DefinedCrawler, emit: Emit) -> None:
        self.crawler, self.emit = crawler, emit
        self.counts = {"visited": 0, "queued": 0, "skipped": 0, "failed": 0, "bytes": 0}
        self.started = time.monotonic()
        self._next = 0.0
        self._skipped_shown = 0
        self._edges = 0
        self.private: dict[str, int] = {}  # host -> URLs refused as loopback or private
        for event, listener in (("link-queued", self.queued), ("link-skipped", self.skipped),
                                ("page-visited", self.visited), ("page-failed", self.failed)):
            crawler.on(event, listener)

    def queued(self, link: Link) -> None:
        self.counts["queued"] += 1
        self.emit({"t": "queued", "url": link.url, "from": _source(link),
                   "anchor": link.anchor[:200], "depth": link.depth})
        self.tick()

    def skipped(self, link: Link) -> None:
        why, source = link.attributes.get("skipped", ""), _source(link)
        if why != "seen":  # a link to a page already known is an edge, not a page left out
            self.counts["skipped"] += 1
        if why == Reason.PRIVATE:
            self.refused(link.url)
        if why == "seen":
            if source and self._edges < MAX_EDGES:
                self._edges += 1
                self.emit({"t": "edge", "from": source, "url": link.url})
        elif self._skipped_shown < MAX_SKIPPED:
            self._skipped_shown += 1
            self.emit({"t": "skipped", "url": link.url, "from": source, "why": why})
        self.tick()

    def visited(self, page: Page) -> None:
        self.counts["visited"] += 1
        self.counts["bytes"] += page.length
        origin = page.origin.url if page.origin is not None else page.url
        self.emit({"t": "visited", "url": page.url, "link": origin, "title": page.title[:300],
                   "depth": page.depth, "matched": bool(self.crawler.predicate(page)),
                   "category": page.attributes.get("category", ""), "bytes": page.length})
        self.tick(force=True)

    def failed(self, link: Link) -> None:
        self.counts["failed"] += 1
        if link.attributes.get("failure") == Reason.PRIVATE:  # an address found private after DNS
            self.refused(link.url)
        self.emit({"t": "failed", "url": link.url,
                   "why": link.attributes.get("failure", "") + ": " + link.attributes.get("detail", "")})
        self.tick(force=True)

    def refused(self, url: str) -> None:
        host = urlsplit(url).hostname or url
        self.private[host] = self.private.get(host, 0) + 1

    def tick(self, force: bool = False) -> None:
        now = time.monotonic()
        if force or now >= self._next:
            self._next = now + COUNTER_EVERY
            seconds = now - self.started
            pending = self.counts["queued"] - self.counts["visited"] - self.counts["failed"]
            self.emit({"t": "counters", **self.counts, "queued": max(0, pending),
                       "seconds": round(seconds, 2),
                       "rate": round(self.counts["visited"] / max(seconds, 1e-3), 2)})


def refusal(private: dict[str, int], exempt_roots: bool) -> str | None:
    """One line saying which hosts deny_private refused and how to allow them: without it, a
    crawl rooted at a loopback address ended "no visited page matched the page predicate"."""
    if not private:
        return None
    hosts = sorted(private)
    shown = ", ".join(hosts[:5]) + (f" and {len(hosts) - 5} more" if len(hosts) > 5 else "")
    if exempt_roots:  # `webcrawler crawl`: the data directory's crawl settings set deny_private
        allow = "allow them with WEBCRAWLER_DENY_PRIVATE=0 or webcrawler.toml's [crawl] deny_private"
    else:
        flags = " ".join(f"--allow-private-host {host}" for host in hosts[:5])
        allow = (f"the workbench allows them when started with {flags} (any port), "
                 "or --allow-private-fetch for every address")
    return (f"{sum(private.values())} URLs refused (private-address: {shown} is loopback or "
            f"private): {allow}")


def _source(link: Link) -> str | None:
    return link.source.url if link.source is not None else None


def run_definition(definition: Definition, out_dir: Path, settings: Settings,
                   policy: RequestPolicy | None, emit: Emit,
                   on_start: Callable[[DefinedCrawler], None] | None = None,
                   exempt_roots: bool = True, use_credentials: bool = False) -> dict[str, Any]:
    """Run the crawl, emitting its events; the last event ("finished") is also returned.
    `exempt_roots` False (a workbench's visitors' crawls): the roots' hosts are not exempt
    from deny_private, only the settings' scope_hosts are. `use_credentials`: the data
    directory's [[credentials]] are sent (the operator's --use-credentials)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    crawler = DefinedCrawler(definition, exempt_roots=exempt_roots, policy=policy, settings=settings,
                             use_credentials=use_credentials)
    feed = EventFeed(crawler, emit)
    action = make_action(definition, out_dir, crawler.predicate)
    action.attach(crawler)  # a link report hears failed pages too (LinkReport.attach)
    if on_start is not None:
        on_start(crawler)
    try:
        summary = crawler.run()
    finally:
        line = action.close()
    feed.tick(force=True)
    result = pack_result(definition, out_dir)
    line = line.replace(f"{out_dir}/", "")  # the crawl's folder is the server's business
    errors = [str(e) for e in crawler.errors[:20]]
    slow = crawler.timeouts(action)
    if slow:
        errors.insert(0, f"{slow} pattern matches took longer than {SECONDS:g} s and counted as "
                         "no match")
    refused = refusal(feed.private, exempt_roots)
    finished = {"t": "finished", "summary": summary.as_dict(), "action": line,
                "result": result.name if result is not None else None,
                "errors": [refused, *errors] if refused else errors,
                "processed": action.done, "refused": refused}
    emit(finished)
    return finished


def policy_from(config: dict[str, Any] | None) -> RequestPolicy | None:
    """The host operator's RequestPolicy from its JSON form (None: no policy)."""
    if not config:
        return None
    return RequestPolicy(allowed_hosts=tuple(config.get("allowed_hosts") or ()),
                         max_rate=config.get("max_rate"), max_bytes=config.get("max_bytes"),
                         audit_path=config.get("audit_path"))


def main(argv: list[str]) -> int:
    """`python -m webcrawler.workbench.runner JOB.json`: the job file holds the definition,
    the crawl's folder, the engine settings and the operator's policy."""
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    job = json.loads(Path(argv[0]).read_text(encoding="utf-8"))
    definition = parse(job["definition"])
    settings = settings_from_json(job["settings"])

    crawlers: list[DefinedCrawler] = []

    def emit(event: dict[str, Any]) -> None:
        try:
            sys.stdout.write(json.dumps(event) + "\n")
            sys.stdout.flush()
        except (BrokenPipeError, ValueError):  # nobody reads any more: the workbench is gone
            for crawler in crawlers:
                crawler.abort()

    def on_start(crawler: DefinedCrawler) -> None:
        crawlers.append(crawler)
        signal.signal(signal.SIGTERM, lambda *_: crawler.abort())
        watch_parent(os.getppid(), crawler)

    run_definition(definition, Path(job["out_dir"]), settings, policy_from(job.get("policy")),
                   emit, on_start, exempt_roots=bool(job.get("exempt_roots", False)),
                   use_credentials=job.get("use_credentials") is True)
    return 0


def watch_parent(parent: int, crawler: DefinedCrawler) -> None:
    """Abort the crawl once `parent` is gone (this process is then re-parented), and end its
    process group (agents included) if it has not ended ORPHAN_GRACE seconds later."""
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_EVERY)
        log.warning("the workbench that started this crawl is gone: stopping it")
        crawler.abort()
        time.sleep(ORPHAN_GRACE)
        os.killpg(os.getpgrp(), signal.SIGKILL)

    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def settings_json(settings: Settings) -> dict[str, Any]:
    """Every crawl setting, as JSON: a workbench's crawls run with the settings
    `webcrawler index` would (timeouts, sizes, User-Agent, deny_private, ...)."""
    fields = dataclasses.asdict(settings)
    return {k: str(v) if isinstance(v, Path) else list(v) if isinstance(v, tuple) else v
            for k, v in fields.items()}


def settings_from_json(given: dict[str, Any]) -> Settings:
    """Inverse of `settings_json`."""
    values: dict[str, Any] = {k: Path(v) if k == "data_dir" else tuple(v) if isinstance(v, list) else v
                              for k, v in given.items()}
    return Settings(**values)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
