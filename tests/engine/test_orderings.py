"""The live orders: priority frontiers on a real store, and real crawls of a loopback web."""

from __future__ import annotations

import time

import pytest

from tests.engine.conftest import crawl, document_states
from webcrawler.database.schema import connect
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.engine.records import FoundLink, NewURL
from webcrawler.engine.scheduling.orders.batch import make_ordering
from webcrawler.engine.scheduling.scheduler import Scheduler
from webcrawler.engine.store.memory import MemoryStore
from webcrawler.engine.store.sql import CrawlStore


@pytest.fixture(params=["sql", "memory"])
def store(request, tmp_path):
    """Either store: the orders ask it only through `interfaces.OrderBook`."""
    if request.param == "memory":
        yield MemoryStore()
        return
    engine = connect(f"sqlite:///{tmp_path / 'o.db'}")
    store = CrawlStore(engine)
    yield store
    store.close()
    engine.dispose()


def found(store, server, source, paths, anchors=None):
    ids, fresh = store.add_urls(server, [NewURL(p, 1) for p in paths], time.time())
    return [FoundLink(ids[p], server, p, (anchors or {}).get(p, ""), 1, p in fresh) for p in paths]


def test_unknown_order_names_the_choices(store):
    with pytest.raises(ValueError, match="backlink"):
        make_ordering("depth-first", store)


def test_backlink_frontier_fetches_most_linked_first(store):
    ordering = make_ordering("backlink", store)
    a = store.add_server("http://a", time.time())
    b = store.add_server("http://b", time.time())
    scheduler = Scheduler(0.0, ordering.servers)
    scheduler.add(a, 0.0)
    scheduler.add(b, 0.0)
    ordering.frontier.links_found(None, found(store, a, None, ["/"]))
    root = ordering.frontier.next_document(a)
    assert root is not None and root.path == "/"
    ordering.frontier.links_found(root, found(store, a, root, ["/x", "/y"]))
    ordering.frontier.links_found(root, found(store, b, root, ["/z"]))
    ordering.frontier.links_found(root, found(store, a, root, ["/y"]))  # /y now has two links
    assert ordering.frontier.next_document(a).path == "/y"
    assert ordering.frontier.next_document(a).path == "/x"
    assert ordering.frontier.next_document(a) is None


def test_hot_query_and_resume_load_from_the_database(store):
    a = store.add_server("http://a", time.time())
    store.add_urls(a, [NewURL("/plain", 1), NewURL("/about-topic", 1)], time.time())
    ordering = make_ordering("breadth-first", store, hot_query="topic")
    assert ordering.frontier.next_document(a).path == "/about-topic"  # named by its URL
    assert ordering.frontier.next_document(a).path == "/plain"


def test_a_resumed_backlink_order_counts_the_stored_links(store):
    """The links stored before the order was made (a resumed crawl) rank the queued pages
    (a self-link counts, as it always did; ties go breadth-first)."""
    a = store.add_server("http://a", time.time())
    ids, _ = store.add_urls(a, [NewURL(p, 1) for p in ("/few", "/many", "/s1", "/s2")], time.time())
    for source in ("/s1", "/s2"):
        store.add_links(ids[source], [(ids["/many"], "many"), (ids[source], "self")])
    store.add_links(ids["/s1"], [(ids["/few"], "few")])
    ordering = make_ordering("backlink", store)
    assert [ordering.frontier.next_document(a).path for _ in range(4)] == ["/many", "/few", "/s1", "/s2"]


def test_pagerank_server_order_prefers_the_best_document(store):
    ordering = make_ordering("pagerank", store)
    servers = [store.add_server(f"http://s{i}", time.time()) for i in range(3)]
    ordering.frontier.links_found(None, found(store, servers[0], None, ["/"]))
    root = ordering.frontier.next_document(servers[0])
    ordering.frontier.links_found(root, found(store, servers[1], root, ["/one"]) +
                                  found(store, servers[2], root, ["/two"]))
    ordering.frontier.links_found(root, found(store, servers[2], root, ["/two"]))
    for s in servers[1:]:
        ordering.servers.push(s)
    assert ordering.servers.next() is servers[2]


def site(name, pages, robots=None):
    routes = {"/": html(name, f"home of {name}", [(f"/{p}", p) for p in pages])}
    routes.update({f"/{p}": html(p, f"page {p} of {name}", [("/", "home")]) for p in pages})
    return routes


@pytest.mark.parametrize("order", ["pagerank", "backlink"])
def test_real_crawl_in_each_order_fetches_everything_and_obeys_robots(settings, order):
    robots = "User-agent: *\nDisallow: /secret\n"
    sites = [Site("127.0.6.1", site("one", ["a", "b", "secret"]), robots_txt=robots),
             Site("127.0.6.2", site("two", ["c", "d"]))]
    with LoopbackWeb(sites) as web:
        sites[0].routes["/"] = html("one", "home", [("/a", "a"), ("/b", "b"), ("/secret", "s"),
                                                    (web.url("127.0.6.2", "/"), "two topic")])
        crawl(settings, [web.url("127.0.6.1", "/")], order=order, hot_query="topic")
        assert "/secret" not in web.log.paths(web.name("127.0.6.1"))
    states = document_states(settings)
    fetched = sorted(url.split(":", 2)[-1].split("/", 1)[-1] for url, (s, _) in states.items()
                     if s == "fetched")
    assert fetched == ["", "", "a", "b", "c", "d"], states
