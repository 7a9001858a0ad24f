"""bfs / dfs / priority orders, as the server's access log sees them; no URL twice; depth leaves."""

from __future__ import annotations

from webcrawler.toolkit import Crawler, Limits, Link

from .conftest import documents


def crawl(web, settings, order, crawler_class=Crawler, **kw):
    crawler = crawler_class(roots=[web.url("127.0.6.1", "/")], order=order, settings=settings, **kw)
    return crawler.run()


def test_bfs_visits_level_by_level(tree_web, settings):
    summary = crawl(tree_web, settings, "bfs")
    assert summary.stop_reason == "queue-empty"
    assert documents(tree_web) == ["/", "/a", "/b", "/a/1", "/a/2", "/b/1", "/b/2"]


def test_dfs_goes_deep_first_last_link_first(tree_web, settings):
    crawl(tree_web, settings, "dfs")
    assert documents(tree_web) == ["/", "/b", "/b/2", "/b/1", "/a", "/a/2", "/a/1"]


PRIORITY = {"/a": 1.0, "/b": 5.0, "/b/1": 3.0, "/b/2": 10.0, "/a/1": 0.0, "/a/2": 2.0}


class PreferTwo(Crawler):
    def should_visit(self, link: Link) -> bool:
        link.priority = PRIORITY.get("/" + link.url.split("/", 3)[3], -1.0)
        return super().should_visit(link)


def test_priority_visits_the_highest_first(tree_web, settings):
    crawl(tree_web, settings, "priority", PreferTwo)
    assert documents(tree_web) == ["/", "/b", "/b/2", "/b/1", "/a", "/a/2", "/a/1"]


def test_no_url_is_fetched_twice(tree_web, settings):
    summary = crawl(tree_web, settings, "bfs")
    paths = documents(tree_web)
    assert len(paths) == len(set(paths)) == summary.pages == 7


def test_pages_at_the_depth_limit_are_leaves(tree_web, settings):
    visited = []

    class Depth(Crawler):
        def visit(self, page):
            visited.append((page.url.rsplit(":", 1)[1].split("/", 1)[1], page.depth))

    summary = crawl(tree_web, settings, "bfs", Depth, limits=Limits(depth=1))
    assert summary.stop_reason == "queue-empty"
    assert sorted(visited) == [("", 0), ("a", 1), ("b", 1)]
    assert documents(tree_web) == ["/", "/a", "/b"]
