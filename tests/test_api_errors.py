"""Errors met through the Python API are the house's: a `WebcrawlerError` with its exit status
and one line, keeping the builtin base their callers have always caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from webcrawler.errors import SettingError, ToolkitError, UnknownOption, WebcrawlerError
from webcrawler.query_server import create_app as query_server
from webcrawler.toolkit.actions import Concatenate, ExtractMatches
from webcrawler.toolkit.model import Page
from webcrawler.toolkit.policy import RequestPolicy
from webcrawler.workbench.app import create_app as workbench


@pytest.mark.parametrize(("factory", "what"), [(query_server, "query server"), (workbench, "workbench")])
def test_a_misspelt_app_option_is_a_setting_error(factory, what: str, tmp_path: Path) -> None:
    with pytest.raises(UnknownOption) as refused:
        factory(tmp_path, per_pgae=5, testing=True, zz=1)
    error = refused.value
    assert isinstance(error, SettingError) and isinstance(error, TypeError)
    assert error.exit_code == 2
    assert str(error) == f"unknown {what} option(s): per_pgae, zz"


def test_a_closed_action_refuses_pages_in_one_line(tmp_path: Path) -> None:
    book = Concatenate(str(tmp_path / "book.html"))
    book(Page("http://127.0.1.1/a.html", title="A", html="<html><body><p>a</p></body></html>"))
    book.close()
    with pytest.raises(ToolkitError) as refused:
        book(Page("http://127.0.1.1/b.html", title="B", html="<html><body><p>b</p></body></html>"))
    assert isinstance(refused.value, WebcrawlerError) and refused.value.exit_code == 1
    assert "\n" not in str(refused.value) and "Concatenate is closed" in str(refused.value)
    assert book.done == 1


@pytest.mark.parametrize(("given", "said"), [
    ({"max_rate": "fast"}, "RequestPolicy(max_rate='fast'): give a number, 0 or more, or None"),
    ({"max_bytes": -5}, "RequestPolicy(max_bytes=-5): give a number, 0 or more, or None"),
    ({"audit_path": "{tmp}/missing/audit.jsonl"},
     "RequestPolicy(audit_path='{tmp}/missing/audit.jsonl'): its folder does not exist"),
])
def test_a_request_policy_that_cannot_work_is_refused_when_made(given: dict, said: str,
                                                                 tmp_path: Path) -> None:
    """Before: a TypeError or FileNotFoundError at the crawl's first request, or a byte budget
    spent before any; now a ToolkitError in one line where the policy is written."""
    given = {k: v.replace("{tmp}", str(tmp_path)) if isinstance(v, str) else v for k, v in given.items()}
    with pytest.raises(ToolkitError) as refused:
        RequestPolicy(**given)
    assert str(refused.value) == said.replace("{tmp}", str(tmp_path)) and refused.value.exit_code == 1


def test_extract_matches_wants_a_pattern(tmp_path: Path) -> None:
    with pytest.raises(ToolkitError) as refused:
        ExtractMatches("a", tmp_path / "rows.csv")  # type: ignore[arg-type]
    assert str(refused.value) == ("ExtractMatches needs a Pattern (Regexp, Wildcard or Tagexp), "
                                  "not str: ExtractMatches(Regexp('a'), ...)")
    assert not (tmp_path / "rows.csv").exists()


def test_a_request_policy_of_numbers_and_none_is_made(tmp_path: Path) -> None:
    policy = RequestPolicy(max_rate=0, max_bytes=None, audit_path=tmp_path / "audit.jsonl")
    assert policy.decide("http://127.0.1.1/", "page", 0.0) is None  # max_rate 0: no limit
    assert (tmp_path / "audit.jsonl").read_text(encoding="utf-8").count("\n") == 1
