"""What a rendered page's scripts may have fetched: the crawl's scope and its server's
robots.txt, parsed once per server however many of its pages are rendered."""

from __future__ import annotations

from webcrawler.agents.page_scope import ROBOTS_KEPT, PageScope
from webcrawler.protocol.messages import AgentConfig, Reason, Retrieve

ROBOTS_A = (200, "User-agent: *\nDisallow: /private/\n")
ROBOTS_B = (200, "User-agent: *\nDisallow: /\n")


def page(job_id: int, url: str, robots: tuple[int | None, str] | None) -> Retrieve:
    return Retrieve(job_id, url, kind="page", robots=robots)


def test_a_servers_robots_txt_is_parsed_once_for_all_its_pages() -> None:
    scope = PageScope(AgentConfig(exclude=(r"\.exe$",)), "WebCrawler")
    first = scope.gate(page(1, "http://127.0.1.1/a.html", ROBOTS_A))
    second = scope.gate(page(2, "http://127.0.1.1/b.html", (200, "".join(ROBOTS_A[1]))))  # equal text
    assert first.why_not("http://127.0.1.1/app.js") is None
    assert first.why_not("http://127.0.1.1/private/data.json") == Reason.ROBOTS
    assert second.why_not("http://127.0.1.1/private/x.json") == Reason.ROBOTS
    assert second.why_not("http://127.0.1.1/tool.exe") == Reason.EXCLUDED
    assert first._rules is second._rules  # one parse for the server's pages
    other = scope.gate(page(3, "http://127.0.1.2/", ROBOTS_B))
    assert other.why_not("http://127.0.1.2/app.js") == Reason.ROBOTS
    assert scope.gate(page(4, "http://127.0.1.3/", None)).why_not("http://127.0.1.3/x.js") == Reason.ROBOTS


def test_only_the_last_servers_rules_are_kept() -> None:
    scope = PageScope(AgentConfig(), "WebCrawler")
    kept = scope.rules(ROBOTS_A)
    for n in range(ROBOTS_KEPT):
        scope.rules((200, f"User-agent: *\nDisallow: /{n}/\n"))
    assert len(scope._parsed) == ROBOTS_KEPT
    assert scope.rules(ROBOTS_A) is not kept  # parsed again: it had been dropped
    assert scope.rules(ROBOTS_A).allowed("/private/x") is False
