"""Classifiers: reusable, site-specific knowledge that labels pages, regions and links.

SPHINX section 2.1: a classifier is a helper object registered with a crawler;
the crawl loop passes every retrieved page to every registered classifier
before `should_visit` and `visit` see it. `StandardClassifier` (registered by
default) labels each outgoing link by comparing its source and target URLs,
and by the element it came from:

- `local` / `remote`: same server (scheme, host and port) or not;
- for local links, over the tree of path segments (`/a/b.html` is a child of
  `/a` and of `/a/`; `dir/index.html` is `dir/`):
  `same-page` (the same URL but for the fragment), `child` / `descendant`
  (the source is the target's parent / an ancestor), `parent` / `ancestor`
  (the other way round), `sibling` (the same parent);
- by element: `hyperlink` (<a>, <area>), `image` (<img>), `form` (<form>),
  `frame` (<frame>, <iframe>).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

from webcrawler.toolkit.model import Page

ELEMENT_LABELS = {"a": "hyperlink", "area": "hyperlink", "img": "image", "form": "form",
                  "frame": "frame", "iframe": "frame"}
_INDEX = re.compile(r"/(?:index|default)\.[a-z]+$", re.I)


class Classifier:
    """Annotates a page, its regions and its links (labels, attributes); returns nothing."""

    def classify(self, page: Page) -> None:
        raise NotImplementedError


class StandardClassifier(Classifier):
    """Link relations from URLs and elements (see the module docstring)."""

    def classify(self, page: Page) -> None:
        for link in page.links:
            link.labels.update(link_labels(page.url, link.url, link.element))


def link_labels(source: str, target: str, element: str = "a") -> set[str]:
    """The standard labels of a link from `source` to `target` found in an `element`."""
    labels = {ELEMENT_LABELS[element]} if element in ELEMENT_LABELS else set()
    s, t = urlsplit(source), urlsplit(target)
    if (s.scheme, s.netloc.lower()) != (t.scheme, t.netloc.lower()):
        return labels | {"remote"}
    labels.add("local")
    if (s.path, s.query) == (t.path, t.query):
        return labels | {"same-page"}
    return labels | _relation(s.path, t.path)


def _segments(path: str) -> list[str]:
    """The path as a node of the site's tree: `/a/index.html` and `/a/` are both ["a"]."""
    return [part for part in _INDEX.sub("/", path or "/").split("/") if part]


def _relation(source: str, target: str) -> set[str]:
    s, t = _segments(source), _segments(target)
    if s == t:
        return set()  # the same node (a query string or an index page apart)
    if t[:len(s)] == s:
        return {"descendant", "child"} if len(t) == len(s) + 1 else {"descendant"}
    if s[:len(t)] == t:
        return {"ancestor", "parent"} if len(s) == len(t) + 1 else {"ancestor"}
    if len(s) == len(t) and s[:-1] == t[:-1]:
        return {"sibling"}
    return set()
