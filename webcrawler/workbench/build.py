"""From a crawl definition to a toolkit crawl: a Crawler, a page predicate and a visit action.

The Workbench's form fills in the two callbacks SPHINX asks a programmer for
(Miller and Bharat 1998, section 3): `should_visit` from the scope and the
follow rules (URL pattern, anchor text, classifier label), the visit action
from E's building blocks (webcrawler/toolkit/actions/), run only on pages the
page predicate accepts. Everything here composes the toolkit's public API.

    DefinedCrawler(definition, ...)    the Crawler a definition describes
    make_action(definition, out_dir)   the action and the file its result will be in
    pack_result(action_type, out_dir)  the downloadable file (a zip for folders)
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from webcrawler.settings import Settings
from webcrawler.toolkit import Crawler, Link, Page, Pattern
from webcrawler.toolkit.actions import (
    AddToIndex,
    CollectImages,
    Concatenate,
    ExtractMatches,
    LinkReport,
    SaveMirror,
    VisitAction,
)
from webcrawler.workbench.definition import Definition, Match, pattern
from webcrawler.workbench.timed import TimedPattern, timeouts

# The file (or folder, zipped) each action's result is in, under the crawl's folder.
RESULTS = {"concatenate": "document.html", "save": "mirror", "extract": "matches",
           "images": "album", "links": "links.csv", "index": "index"}


def compile_match(match: Match) -> Pattern:
    """The definition's pattern, ignoring case unless asked, under a time bound (timed.py)."""
    return TimedPattern(match)


class DefinedCrawler(Crawler):
    """The crawler a definition describes: its roots, limits, order, scope and follow rules."""

    def __init__(self, definition: Definition, exempt_roots: bool = True, **kwargs: Any) -> None:
        from webcrawler.toolkit import Limits

        limits = Limits(**{k: v for k, v in definition.limits.items()})  # type: ignore[arg-type]
        super().__init__(roots=list(definition.roots), limits=limits, order=definition.order, **kwargs)
        self.definition = definition
        self.hosts = {urlsplit(root).netloc.lower() for root in definition.roots}
        self.subtrees = [root[: root.rfind("/") + 1] if urlsplit(root).path else root + "/"
                         for root in definition.roots]
        rules = definition.follow
        url, anchor = rules.get("url"), rules.get("anchor")
        self.url_rule = compile_match(url) if isinstance(url, Match) else None
        self.anchor_rule = compile_match(anchor) if isinstance(anchor, Match) else None
        self.label_rule = rules.get("label") if isinstance(rules.get("label"), str) else None
        self.predicate = PagePredicate(definition)
        self.exempt_roots = exempt_roots

    def patterns(self) -> list[Pattern]:
        """Every pattern of the definition this crawler matches (follow and process rules)."""
        return [p for p in (self.url_rule, self.anchor_rule, *self.predicate.patterns.values())
                if p is not None]

    def timeouts(self, action: VisitAction) -> int:
        """Matches that gave up (timed.py), the action's pattern included."""
        return timeouts([*self.patterns(), getattr(action, "pattern", None)])

    def engine_settings(self) -> Settings:
        """As the toolkit's, except on a workbench: there the roots are a visitor's, so they
        are not exempt from deny_private; only the operator's hosts (scope_hosts) are."""
        if self.exempt_roots or self.settings is None:
            return super().engine_settings()
        return self.settings

    def should_visit(self, link: Link) -> bool:
        """Hyperlinks and frames in scope that every follow rule given accepts."""
        if not link.labels & {"hyperlink", "frame"} and link.element not in ("a", "area", "frame", "iframe"):
            return False
        if not self.in_scope(link.url):
            return False
        if self.url_rule is not None and not self.url_rule.matches(link.url):
            return False
        if self.anchor_rule is not None and not self.anchor_rule.matches(link.anchor):
            return False
        if self.label_rule is not None and self.label_rule not in link.labels:
            return False
        link.priority = 1.0 / (1 + link.depth)  # "priority": the shallowest first
        return True

    def in_scope(self, url: str) -> bool:
        scope = self.definition.scope
        if scope == "anywhere":
            return True
        if scope == "server":
            return urlsplit(url).netloc.lower() in self.hosts
        return any(url.startswith(prefix) for prefix in self.subtrees)


class PagePredicate:
    """The paper's page predicate: which visited pages the action processes (all rules given)."""

    def __init__(self, definition: Definition) -> None:
        rules = definition.process
        self.patterns = {name: compile_match(rule) for name, rule in rules.items() if isinstance(rule, Match)}
        label = rules.get("label")
        self.label = label if isinstance(label, str) else None

    def __call__(self, page: Page) -> bool:
        fields = {"title": page.title, "url": page.url, "content": page.text}
        if any(not rule.matches(fields[name]) for name, rule in self.patterns.items()):
            return False
        if self.label is not None:
            return self.label in page.labels or page.attributes.get("category") == self.label
        return True


def make_action(definition: Definition, out_dir: Path, when: PagePredicate) -> VisitAction:
    """The definition's visit action, writing under `out_dir` (the crawl's own folder)."""
    action = definition.action
    kind, target = action["type"], out_dir / RESULTS[action["type"]]
    if kind == "concatenate":
        return Concatenate(target, when=when, title=definition.name or "Concatenated pages")
    if kind == "save":
        return SaveMirror(target, when=when)
    if kind == "extract":
        found = compile_match(pattern(action["pattern"], "action.pattern"))
        return ExtractMatches(found, target.with_suffix("." + action["format"]), when=when)
    if kind == "images":
        return CollectImages(target, when=when)
    if kind == "links":
        return LinkReport(target, when=when)
    return AddToIndex(target, when=when)


def pack_result(definition: Definition, out_dir: Path) -> Path | None:
    """The one downloadable file of the action's result (folders zipped); None if there is none."""
    action = definition.action
    target = out_dir / RESULTS[action["type"]]
    if action["type"] == "extract":
        target = target.with_suffix("." + action["format"])
    if target.is_dir():
        return Path(shutil.make_archive(str(target), "zip", root_dir=target))
    return target if target.is_file() else None
