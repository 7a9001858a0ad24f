"""The broken-link report separates broken targets (4xx/5xx, a refused connection) from
unchecked ones (over the size cap though they answered 200, never fetched), and its line
counts both (issue 38: a 200 page over the cap was listed as broken, and the Workbench's
"collect links" said "0 broken" although most targets were never checked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.toolkit.conftest import read_rows
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.protocol.messages import Reason
from webcrawler.settings import Settings
from webcrawler.toolkit import Crawler, Limits
from webcrawler.toolkit.actions import LinkReport
from webcrawler.toolkit.actions.links import NOT_FETCHED, UNCHECKED, verdict

ADDRESS = "127.0.13.7"


class Local(Crawler):
    """Follows the site's links, except /skipped/ ones."""

    limits = Limits(pages=20, depth=2, seconds=60)

    def should_visit(self, link) -> bool:
        return "hyperlink" in link.labels and "/skipped/" not in link.url


def test_broken_and_unchecked_targets_are_told_apart(tmp_path: Path) -> None:
    links = [("/fine.html", "fine"), ("/missing.html", "missing"), ("/big.html", "big"),
             ("/skipped/a.html", "a"), ("/skipped/b.html", "b")]
    pages = {"/": html("Home", "home", links), "/fine.html": html("Fine", "fine"),
             "/big.html": Page("<html><body>" + "x" * 20_000 + "</body></html>")}
    settings = Settings(delay=0.0, agents=2, hours=0.02, data_dir=tmp_path / "leases", max_bytes=5_000,
                        retries=0)
    with LoopbackWeb([Site(ADDRESS, pages)]) as web:
        report = LinkReport(tmp_path / "links.csv")
        crawler = Local(roots=[web.url(ADDRESS, "/")], settings=settings)
        report.attach(crawler)
        crawler.run()
        rows = {row["target"].rsplit("/", 2)[-1] if "skipped" not in row["target"]
                else "skipped/" + row["target"].rsplit("/", 1)[1]: row
                for row in read_rows(tmp_path / "links.csv")}
    verdicts = {name: (row["verdict"], row["reason"]) for name, row in rows.items()}
    assert verdicts == {"missing.html": ("broken", "http-error"), "big.html": ("unchecked", "too-large"),
                        "skipped/a.html": ("unchecked", "unchecked"),
                        "skipped/b.html": ("unchecked", "unchecked")}
    assert next(iter(verdicts)) == "missing.html"  # broken first
    line = report.close()  # closed at the crawl's end: the same line
    assert "1 broken, 3 not checked (2 not fetched, 1 too-large)" in line


@pytest.mark.parametrize("reason", [Reason.HTTP_ERROR, Reason.DNS, Reason.REFUSED, Reason.TIMEOUT,
                                    Reason.CONNECTION, Reason.TOO_MANY_REDIRECTS])
def test_a_target_that_answered_an_error_or_could_not_be_reached_is_broken(reason: str) -> None:
    assert verdict(reason) == "broken"


@pytest.mark.parametrize("reason", [Reason.TOO_LARGE, Reason.ROBOTS, Reason.EXCLUDED, Reason.PRIVATE,
                                    Reason.POLICY, Reason.AGENT_DIED, "unchecked"])
def test_a_target_the_crawl_did_not_read_whole_is_unchecked(reason: str) -> None:
    assert verdict(reason) == "unchecked"


def test_every_unchecked_reason_is_one_the_crawl_gives() -> None:
    """UNCHECKED spells the crawl's reasons by their constants: a reason renamed or gone is
    seen here, not by a report that calls a target broken."""
    reasons = {value for name, value in vars(Reason).items() if name.isupper()}
    assert UNCHECKED - {NOT_FETCHED} <= reasons
    assert verdict(NOT_FETCHED) == "unchecked"
    assert {verdict(r) for r in (Reason.HTTP_ERROR, Reason.TIMEOUT, Reason.REFUSED, Reason.DNS)} == {"broken"}
