"""Crawler: the class a personal crawler extends (SPHINX section 2, "Crawler").

Override two callbacks - `should_visit(link)` (follow this link?) and
`visit(page)` (do something with a retrieved page) - and call `run()`.
`roots`, `limits`, `order`, `classifiers` and `policy` may be class
attributes or constructor arguments; `settings` (the engine's: agents, the
politeness delay, timeouts, the User-Agent) defaults to the environment's
(`WEBCRAWLER_*`). The run itself is runtime.CrawlRun, a client of the engine's
crawl loop (its agents, scheduler, robots.txt lifecycle and store); a crawler has
no other way to the network.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from typing import Any

from webcrawler.config.layers import from_environment, set_by_environment
from webcrawler.errors import ToolkitError
from webcrawler.protocol.urls import host_of
from webcrawler.settings import Settings
from webcrawler.toolkit.classifiers import Classifier, StandardClassifier, link_labels
from webcrawler.toolkit.events import CallbackError, Events
from webcrawler.toolkit.model import Limits, Link, Page, Summary, as_limits
from webcrawler.toolkit.policy import RequestPolicy

TOOLKIT_AGENTS = 4  # a personal crawl needs fewer agents than the engine's 15 (unless told)


class Crawler:
    """A personal crawler: subclass, override `should_visit` and `visit`, then `run()`."""

    roots: list[str] = []
    limits: Limits = Limits()
    order: str = "bfs"  # "bfs" (FIFO), "dfs" (LIFO) or "priority" (highest Link.priority first)
    classifiers: list[Classifier] | None = None  # None: [StandardClassifier()]
    policy: RequestPolicy | None = None
    settings: Settings | None = None
    use_credentials: bool = False  # send the data directory's [[credentials]]: only when said
    aborted: bool = False
    summary: Summary | None = None
    _events: Events | None = None

    def __init__(self, roots: Iterable[str] | None = None, limits: Limits | None = None,
                 order: str | None = None, classifiers: list[Classifier] | None = None,
                 policy: RequestPolicy | None = None, settings: Settings | None = None,
                 **attributes: Any) -> None:
        self.roots = _root_list(roots if roots is not None else type(self).roots, type(self).__name__)
        self.limits = limits or type(self).limits
        self.order = order or type(self).order
        given = classifiers if classifiers is not None else type(self).classifiers
        self.classifiers = list(given) if given is not None else [StandardClassifier()]
        self.policy = policy if policy is not None else type(self).policy
        self.settings = settings or type(self).settings
        for name, value in attributes.items():
            setattr(self, name, value)
        self._events = Events()

    # --- the two callbacks ------------------------------------------------
    def should_visit(self, link: Link) -> bool:
        """Follow `link`? By default: hyperlinks and frames on the same server as their page."""
        source = link.source.url if link.source is not None else link.url
        labels = link_labels(source, link.url, link.element)
        return "local" in labels and bool(labels & {"hyperlink", "frame"})

    def visit(self, page: Page) -> None:
        """Do something with a retrieved page. By default nothing."""

    # --- running ----------------------------------------------------------
    def on(self, event: str, callback: Callable[[Any], object]) -> None:
        """Call `callback(subject)` on `event` (see toolkit/events.py for the names)."""
        self.events.on(event, callback)

    def abort(self) -> None:
        """Stop the crawl soon (from a callback or another thread): stop reason "aborted"."""
        self.aborted = True

    @property
    def events(self) -> Events:
        """The listeners and the callback errors (made on first use, for subclasses whose
        __init__ does not call Crawler's)."""
        if self._events is None:
            self._events = Events()
        return self._events

    @property
    def errors(self) -> list[CallbackError]:
        """The callbacks that raised, with the URL each was called for."""
        return self.events.errors

    def run(self, progress: Callable[[Any], None] | None = None) -> Summary:
        """Crawl from `roots` until the queue is empty, a limit, or `abort()`; the summary."""
        from webcrawler.toolkit.runtime import CrawlRun

        if not self.roots:
            raise ToolkitError(f"{type(self).__name__} has no roots: give roots=[URL, ...]")
        as_limits(self.limits, type(self).__name__)
        self.aborted = False
        run = CrawlRun(self, self.engine_settings(), progress=progress)
        self.summary = run.run()
        return self.summary

    def engine_settings(self) -> Settings:
        """The engine settings of this crawl, the roots' hosts exempt from deny_private."""
        settings = self.settings
        if settings is None:
            settings = from_environment()
            if not set_by_environment("agents"):
                settings = dataclasses.replace(settings, agents=TOOLKIT_AGENTS)
        roots = _root_list(self.roots, type(self).__name__)
        hosts = {*settings.scope_hosts, *(_host(root) for root in roots)}
        return dataclasses.replace(settings, scope_hosts=tuple(sorted(h for h in hosts if h)))


def _root_list(roots: Iterable[str], owner: str) -> list[str]:
    """The roots as a list; ToolkitError for one string (a list of its letters otherwise)."""
    if isinstance(roots, str):
        raise ToolkitError(f"{owner}'s roots are one string: give a list, roots=[{roots!r}]")
    return list(roots)


def _host(root: str) -> str:
    """A root's host; ToolkitError for a root that is not a URL at all (urlsplit's ValueError
    would reach the command line as a traceback)."""
    try:
        return host_of(root)
    except ValueError:
        raise ToolkitError(f"{root!r} is not an http(s) URL that can be crawled") from None
