"""robots.txt, politeness and the request policy hold for toolkit crawls; a raising callback
is reported with the page's URL and the crawl goes on."""

from __future__ import annotations

import dataclasses
import json

import pytest

from webcrawler.demoweb.server import LoopbackWeb, Page, Site
from webcrawler.toolkit import Crawler, Limits, RequestPolicy, Wildcard

from .conftest import documents, tree_pages


def test_robots_txt_is_asked_first_and_obeyed(settings):
    site = Site("127.0.6.3", tree_pages(), robots_txt="User-agent: *\nDisallow: /b\n")
    skipped = []
    with LoopbackWeb([site]) as web:
        crawler = Crawler(roots=[web.url("127.0.6.3", "/")], settings=settings)
        crawler.on("link-skipped", lambda link: skipped.append(link.attributes["skipped"]))
        summary = crawler.run()
        web.log.settle()
        paths = web.log.paths()
    assert paths[0] == "/robots.txt" and paths.count("/robots.txt") == 1
    assert not [p for p in paths if p.startswith("/b")]
    assert summary.pages == 4 and "robots" in skipped


def test_politeness_one_request_at_a_time_and_the_delay(settings):
    with LoopbackWeb([Site("127.0.6.4", tree_pages())]) as web:
        Crawler(roots=[web.url("127.0.6.4", "/")], settings=dataclasses.replace(
            settings, agents=3, delay=0.2)).run()
        web.log.settle()
        hits = sorted(web.log.snapshot(), key=lambda h: h.started)
    assert len(hits) == 8
    for before, after in zip(hits, hits[1:], strict=False):
        assert after.started >= before.finished, "two requests in flight on one server"
        assert after.started - before.started >= 0.2, "delay not respected"  # GIL-late stamps


def test_policy_refuses_and_audits_every_request(tree_web, settings, tmp_path):
    audit = tmp_path / "audit.jsonl"
    policy = RequestPolicy(denied_urls=[Wildcard("*/a*")], audit_path=audit)
    failed = []
    crawler = Crawler(roots=[tree_web.url("127.0.6.1", "/")], policy=policy, settings=settings)
    crawler.on("page-failed", lambda link: failed.append(link.attributes["failure"]))
    summary = crawler.run()
    assert documents(tree_web) == ["/", "/b", "/b/1", "/b/2"]
    refused = policy.refused()
    assert [e.url.split("/", 3)[3] for e in refused] == ["a"]
    assert refused[0].reason == "URL matches a denied pattern" and failed == ["policy"]
    assert summary.refused == 1
    allowed = [e.url.split("/", 3)[3] for e in policy.audit if e.allowed]
    assert allowed == ["robots.txt", "", "b", "b/1", "b/2"]  # robots.txt is audited too
    lines = [json.loads(line) for line in audit.read_text().splitlines()]
    assert len(lines) == len(policy.audit) and lines[1]["allowed"] is True


def test_policy_denied_host_gets_no_request_not_even_robots(tree_web, settings):
    policy = RequestPolicy(denied_hosts=["127.0.6.*"])
    summary = Crawler(roots=[tree_web.url("127.0.6.1", "/")], policy=policy,
                      settings=settings).run()
    tree_web.log.settle()
    assert tree_web.log.paths() == [] and summary.pages == 0
    assert policy.refused()[0].kind == "robots"


def test_policy_byte_budget(tree_web, settings):
    policy = RequestPolicy(max_bytes=250)
    summary = Crawler(roots=[tree_web.url("127.0.6.1", "/")], policy=policy,
                      settings=settings).run()
    assert summary.stop_reason == "queue-empty" and 1 <= summary.pages < 7
    assert any("byte budget" in e.reason for e in policy.refused())


class Fragile(Crawler):
    def visit(self, page):
        if page.url.endswith("/a"):
            raise RuntimeError("cannot handle this page")

    def should_visit(self, link):
        if link.url.endswith("/b/2"):
            raise KeyError("bad link")
        return super().should_visit(link)


def test_a_raising_callback_is_reported_and_the_crawl_goes_on(tree_web, settings, caplog):
    crawler = Fragile(roots=[tree_web.url("127.0.6.1", "/")], limits=Limits(), settings=settings)
    crawler.on("page-visited", lambda page: 1 / 0 if page.depth == 2 else None)
    summary = crawler.run()
    assert summary.pages == 6 and summary.stop_reason == "queue-empty"  # /b/2 refused by the error
    visit = [e for e in crawler.errors if e.callback == "visit"]
    assert len(visit) == 1 and visit[0].url.endswith("/a") and "cannot handle" in visit[0].error
    should = [e for e in crawler.errors if e.callback == "should_visit"]
    assert len(should) == 1 and should[0].url.endswith("/b")  # the page the link is on
    assert any(e.callback == "page-visited listener" for e in crawler.errors)
    assert summary.callback_errors == len(crawler.errors)
    assert any(r.getMessage().startswith("visit raised on http") for r in caplog.records)


def test_policy_rate_spaces_requests_and_refuses_none(tree_web, settings):
    policy = RequestPolicy(max_rate=10.0)
    Crawler(roots=[tree_web.url("127.0.6.1", "/")], policy=policy,
            settings=dataclasses.replace(settings, agents=3)).run()
    tree_web.log.settle()
    assert len(tree_web.log.snapshot()) == 8 and not policy.refused()
    sent = [entry.time for entry in policy.audit]  # when each request was let out
    gaps = [round(b - a, 3) for a, b in zip(sent, sent[1:], strict=False)]
    assert len(sent) == 8 and min(gaps) >= 0.099, gaps


ROBOTS_HOST = "127.0.6.21"


def redirecting_robots(targets: dict[str, str], robots: str = "User-agent: *\nDisallow: /b\n"):
    """The tree, whose /robots.txt redirects to `targets["to"]` (set once the webs run), and
    /real-robots.txt with the rules."""
    pages = tree_pages()

    def routes(path: str) -> Page | None:
        if path == "/robots.txt":
            return Page("moved", status=301, headers=(("Location", targets["to"]),))
        if path == "/real-robots.txt":
            return Page(robots, content_type="text/plain")
        return pages.get(path)

    return routes


@pytest.mark.parametrize("elsewhere", ["another port", "another host"])
def test_a_robots_txt_redirect_out_of_policy_is_refused_and_audited(settings, tmp_path, elsewhere):
    audit, targets = tmp_path / "audit.jsonl", {}
    other = "127.0.6.21" if elsewhere == "another port" else "127.0.6.22"
    with LoopbackWeb([Site(ROBOTS_HOST, redirecting_robots(targets))]) as web, \
            LoopbackWeb([Site(other, {"/robots.txt": Page("User-agent: *\nAllow: /\n")})]) as outside:
        targets["to"] = outside.url(other, "/robots.txt")
        policy = RequestPolicy(allowed_hosts=[web.name(ROBOTS_HOST)], audit_path=audit)
        summary = Crawler(roots=[web.url(ROBOTS_HOST, "/")], policy=policy, settings=settings).run()
        outside.log.settle()
        assert outside.log.paths() == []  # the policy never allowed it: no request reached it
    assert documents(web) == [] and summary.pages == 0  # robots.txt refused: unavailable, as the RFC says
    robots = [(e.url, e.allowed) for e in policy.audit]
    assert robots == [(web.url(ROBOTS_HOST, "/robots.txt"), True), (targets["to"], False)]
    logged = [json.loads(line) for line in audit.read_text().splitlines()]
    assert [(e["url"], e["allowed"], e["kind"]) for e in logged] == [(u, a, "robots") for u, a in robots]


def test_a_robots_txt_redirect_within_policy_is_followed_hop_by_hop(settings, tmp_path):
    targets: dict[str, str] = {}
    with LoopbackWeb([Site(ROBOTS_HOST, redirecting_robots(targets))]) as web:
        targets["to"] = web.url(ROBOTS_HOST, "/real-robots.txt")
        policy = RequestPolicy(allowed_hosts=[ROBOTS_HOST], max_rate=20.0)  # hops wait their turn too
        summary = Crawler(roots=[web.url(ROBOTS_HOST, "/")], policy=policy, settings=settings).run()
        web.log.settle()
        paths = web.log.paths()
    assert paths[:2] == ["/robots.txt", "/real-robots.txt"]
    assert sorted(paths[2:]) == ["/", "/a", "/a/1", "/a/2"]  # /b disallowed by the rules it led to
    assert [e.url.rsplit("/", 1)[1] for e in policy.audit if e.kind == "robots"] == [
        "robots.txt", "real-robots.txt"]
    assert summary.pages == 4 and not policy.refused()


def test_a_robots_txt_redirect_loop_ends_after_five_hops(settings):
    targets: dict[str, str] = {}
    with LoopbackWeb([Site(ROBOTS_HOST, redirecting_robots(targets))]) as web:
        targets["to"] = web.url(ROBOTS_HOST, "/robots.txt")  # itself, for ever
        policy = RequestPolicy(allowed_hosts=[ROBOTS_HOST])
        summary = Crawler(roots=[web.url(ROBOTS_HOST, "/")], policy=policy, settings=settings).run()
        web.log.settle()
        assert web.log.paths() == ["/robots.txt"] * 6 and summary.pages == 0
    assert len(policy.audit) == 6 and all(e.allowed for e in policy.audit)
