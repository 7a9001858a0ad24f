"""docs/configuration.md against the code: every Settings and ServeSettings field, and every
route of the query server and the workbench (read from the real apps' url_map), is in its
tables with the right flag, variable and default, and the tables name nothing that is gone."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import MISSING, Field, fields
from pathlib import Path

import pytest

from webcrawler.cli import main
from webcrawler.config.layers import variables
from webcrawler.settings import Settings
from webcrawler.settings.serve import ServeSettings

DOC = Path(__file__).resolve().parent.parent / "docs" / "configuration.md"
SECTIONS = {Settings: "Crawl settings", ServeSettings: "Query server settings"}
COMMANDS = {Settings: ("index", "search"), ServeSettings: ("serve",)}


def table(title: str) -> list[list[str]]:
    """The rows (cells, code quotes kept) of the table under the heading starting with `title`."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}.*?$(.*?)(?=^## |\Z)", text, re.M | re.S)
    assert match, f"docs/configuration.md has no section '## {title}'"
    rows = [line.strip().strip("|").split(" | ") for line in match.group(1).splitlines()
            if line.startswith("| ")]
    return [[cell.strip() for cell in row] for row in rows[1:]]  # past the header


def quoted(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def default_of(f: Field) -> object:
    value = f.default_factory() if f.default is MISSING else f.default  # type: ignore[misc]
    return str(value) if isinstance(value, Path) else list(value) if isinstance(value, tuple) else value


def documented(cls: type) -> dict[str, list[str]]:
    return {quoted(row[0])[0]: row for row in table(SECTIONS[cls])}


@pytest.mark.parametrize("cls", [Settings, ServeSettings])
def test_every_setting_is_documented_and_nothing_else(cls: type) -> None:
    assert list(documented(cls)) == [f.name for f in fields(cls)]


@pytest.mark.parametrize("cls", [Settings, ServeSettings])
def test_each_settings_variable_and_default_are_the_codes(cls: type) -> None:
    rows = documented(cls)
    for f in fields(cls):
        assert quoted(rows[f.name][2]) == variables(cls, f.name), f.name
        assert json.loads(quoted(rows[f.name][3])[0]) == default_of(f), f.name


def flags_of(command: str) -> dict[str, str]:
    """Each option string of a command -> the setting (parameter) it sets."""
    params = main.commands[command].params
    return {opt: p.name for p in params for opt in (*p.opts, *p.secondary_opts) if p.name}


@pytest.mark.parametrize("cls", [Settings, ServeSettings])
def test_each_documented_flag_sets_its_setting(cls: type) -> None:
    """Every flag in the table exists and sets that setting; every setting but the crawl's
    internal scope_hosts has one."""
    options = {flag: name for command in COMMANDS[cls] for flag, name in flags_of(command).items()}
    for name, row in documented(cls).items():
        flags = quoted(row[1])
        assert flags or name == "scope_hosts", f"{name} has no flag in the doc"
        for flag in flags:
            assert options.get(flag) == name or (flag == "--seeds-file" and name == "seeds"), flag


def routes(app) -> Iterator[tuple[str, str]]:
    for rule in app.url_map.iter_rules():
        for method in sorted(rule.methods - {"HEAD", "OPTIONS"}):
            yield method, rule.rule


def test_every_route_is_documented_and_nothing_else(tmp_path: Path) -> None:
    from webcrawler.query_server import create_app
    from webcrawler.workbench.app import create_app as create_workbench

    search, bench = create_app(tmp_path), create_workbench(tmp_path)
    try:
        for app, title in ((search, "Routes: query server"), (bench, "Routes: workbench")):
            doc = sorted((row[0], quoted(row[1])[0]) for row in table(title))
            assert doc == sorted(routes(app)), title
    finally:
        search.extensions["webcrawler.sources"].close()
        bench.extensions["webcrawler.workbench"].close()


def test_the_readme_leads_to_the_page() -> None:
    top = (DOC.parent.parent / "README.md").read_text(encoding="utf-8")[:600]
    assert "(docs/configuration.md)" in top


def test_every_command_is_in_the_readmes_command_list() -> None:
    """A newcomer finds each command in README's "Using it" block, and the block names no
    command that is gone."""
    readme = (DOC.parent.parent / "README.md").read_text(encoding="utf-8")
    using = re.search(r"^## Using it\n+```sh\n(.*?)^```", readme, re.M | re.S)
    assert using, "README.md has no '## Using it' command block"
    named = set(re.findall(r"^webcrawler ([a-z-]+)", using.group(1), re.M))
    assert named == set(main.commands), (
        f"missing from README: {sorted(set(main.commands) - named)}; "
        f"not a command: {sorted(named - set(main.commands))}")


def test_the_pages_settings_tables_are_generated_and_current() -> None:
    """Each table is generated from its program's settings table: `make docs` (python -m
    webcrawler.config.docs) writes them; a declaration changed without it fails here."""
    from webcrawler.config.docs import rendered

    text = DOC.read_text(encoding="utf-8")
    assert rendered(text) == text, "docs/configuration.md is not current: run make docs"
