"""Errors met through the Python API are the house's: a `WebcrawlerError` with its exit status
and one line, keeping the builtin base their callers have always caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from webcrawler.errors import SettingError, ToolkitError, UnknownOption, WebcrawlerError
from webcrawler.query_server import create_app as query_server
from webcrawler.toolkit.actions import Concatenate
from webcrawler.toolkit.model import Page
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
