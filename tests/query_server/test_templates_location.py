"""The top-level templates/ are found in a source checkout and in an installed wheel."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

import webcrawler.query_server as query_server
from webcrawler.query_server import templates_dir

REPO = Path(__file__).resolve().parents[2]


def test_a_source_checkout_uses_the_repository_templates() -> None:
    assert templates_dir() == REPO / "templates"


def test_an_installed_wheel_uses_share_webcrawler_templates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed = tmp_path / "prefix" / "share" / "webcrawler" / "templates"
    installed.mkdir(parents=True)
    (installed / "base.html").write_text("<!DOCTYPE html>")
    site_packages = tmp_path / "prefix" / "lib" / "site-packages" / "webcrawler" / "query_server"
    monkeypatch.setattr(query_server, "__file__", str(site_packages / "__init__.py"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path / "prefix"))
    assert templates_dir() == installed


def test_missing_templates_say_where_they_were_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(query_server, "__file__", str(tmp_path / "a" / "b" / "__init__.py"))
    monkeypatch.setattr(sys, "prefix", str(tmp_path))
    monkeypatch.setattr(sys, "base_prefix", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="templates are missing"):
        templates_dir()
