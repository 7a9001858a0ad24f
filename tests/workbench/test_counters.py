"""The workbench's counters count what their legend says (issue 38): "skipped" is the links
not followed, never the links to a page already known (the manual's chapters each link to
the next, which the contents page queued: 80 visited pages once showed 10,784 skipped)."""

from __future__ import annotations

from tests.workbench.conftest import CHAPTERS, Workbench
from webcrawler.demoweb.server import LoopbackWeb


def counters(workbench: Workbench, definition: dict) -> dict:
    _, started = workbench.call("POST", "/api/crawls", definition)
    return workbench.wait(started["id"])["counters"]


def test_links_to_known_pages_are_not_counted_as_skipped(workbench: Workbench, docs_web: LoopbackWeb) -> None:
    seen = counters(workbench, {"roots": [docs_web.url("127.0.8.1", "/docs/")], "scope": "subtree",
                                "limits": {"seconds": 30}})
    assert seen["visited"] == CHAPTERS + 1 and seen["skipped"] == 0 and seen["failed"] == 0


def test_links_not_followed_are_counted_as_skipped(workbench: Workbench, docs_web: LoopbackWeb) -> None:
    narrowed = counters(workbench, {"roots": [docs_web.url("127.0.8.1", "/")], "limits": {"seconds": 30},
                                    "follow": {"url": "*/docs/*"}})
    assert narrowed["visited"] == CHAPTERS + 2 and narrowed["skipped"] == 1  # /blog/
