"""One settings table per program (issue 34): every flag that sets a setting of the crawl, the
query server or the Workbench is generated from that setting's one declaration (its flag, its
bounds), a value from a file or a variable meets the same bounds as the flag, and each table
declares its settings' help and bounds."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from webcrawler.cli import main
from webcrawler.config.bounds import click_type
from webcrawler.settings import RECRAWL_POLICIES, Settings
from webcrawler.settings.declare import fields_of, flag_of, spec_of
from webcrawler.settings.serve import ServeSettings
from webcrawler.settings.workbench import WorkbenchSettings

TABLES = [Settings, ServeSettings, WorkbenchSettings]
COMMANDS = [(("index",), Settings), (("search",), Settings), (("crawl",), Settings),
            (("stats",), Settings), (("config",), Settings), (("index-writer",), Settings),
            (("agent-host",), Settings), (("agent-scheduler",), Settings),
            (("serve",), ServeSettings), (("workbench",), WorkbenchSettings)]

# Commands with options of their own under a setting's name: only these are the settings'.
OWN = {("crawl",): ("agents", "delay"), ("agent-host",): ("tls_ca", "tls_cert", "tls_key"),
       ("agent-scheduler",): ("tls_ca", "tls_cert", "tls_key")}


def bounds(kind: object) -> tuple[object, ...]:
    return (type(kind), getattr(kind, "min", None), getattr(kind, "max", None),
            getattr(kind, "min_open", None), tuple(getattr(kind, "choices", ()) or ()))


@pytest.mark.parametrize(("path", "table"), COMMANDS, ids=[" ".join(p) for p, _ in COMMANDS])
def test_each_settings_flag_is_generated_from_its_declaration(path: tuple[str, ...],
                                                              table: type) -> None:
    command: click.Command = main
    for word in path:
        command = command.commands[word]  # type: ignore[attr-defined]
    declared = fields_of(table)
    if path in OWN:  # the toolkit's --order, an agent host's threads: theirs, not settings
        declared = {n: declared[n] for n in OWN[path]}
    found = [p for p in command.params if isinstance(p, click.Option) and p.name in declared]
    assert found, path
    for param in found:
        field = declared[param.name]  # type: ignore[index]
        spec = spec_of(field)
        assert param.opts[0] == flag_of(field), param.name
        assert param.secondary_opts == ([spec.off] if spec.off else []), param.name
        if not spec.split and not param.is_flag:
            assert bounds(param.type) == bounds(click_type(field)), param.name


@pytest.mark.parametrize("table", TABLES, ids=[t.__name__ for t in TABLES])
def test_every_setting_declares_its_help_and_numbers_their_bounds(table: type) -> None:
    for name, field in fields_of(table).items():
        spec = spec_of(field)
        assert spec.help.strip().endswith((".", ")")), name
        if str(field.type).split(" ")[0] in ("int", "float"):
            assert spec.low is not None, f"{table.__name__}.{name} has no lower bound"


def test_the_recrawl_policies_named_for_the_command_line_are_the_policies() -> None:
    from webcrawler.recrawl.policies import POLICIES

    assert RECRAWL_POLICIES == tuple(POLICIES)


@pytest.mark.parametrize(("variable", "value", "expected"), [
    ("WEBCRAWLER_AGENTS", "0", "WEBCRAWLER_AGENTS=0: 0 is not in the range 1<=x<=64."),
    ("WEBCRAWLER_DELAY", "-1", "WEBCRAWLER_DELAY=-1.0: -1.0 is not in the range x>=0."),
    ("WEBCRAWLER_ORDER", "fastest", "WEBCRAWLER_ORDER='fastest': 'fastest' is not one of"),
    ("WEBCRAWLER_TYPES", "html movie", "WEBCRAWLER_TYPES: movie: choose from html, pdf"),
])
def test_a_crawl_variable_out_of_bounds_is_one_line_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str, value: str,
        expected: str) -> None:
    """As a flag or a file value out of bounds is: exit 2, one line, before anything is made."""
    monkeypatch.setenv(variable, value)
    for command in (["config"], ["index", "--seed", "http://127.0.8.9/"]):
        result = CliRunner().invoke(main, [*command, "--data-dir", str(tmp_path / "data")])
        assert result.exit_code == 2, (command, result.output)
        assert result.output.startswith(f"Error: {expected}"), result.output
        assert result.output.count("\n") == 1
    assert not (tmp_path / "data").exists()


def test_a_file_value_out_of_bounds_names_the_file_section_and_key(tmp_path: Path) -> None:
    path = tmp_path / "webcrawler.toml"
    path.write_text("[crawl]\nretries = 21\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["config", "--data-dir", str(tmp_path)])
    assert (result.exit_code, result.output) == (
        2, f"Error: {path}: [crawl] retries = 21: 21 is not in the range 0<=x<=20.\n")


def test_the_workbench_delay_is_the_crawls_delay_with_its_own_default() -> None:
    """Declared once: the Workbench's --delay takes the crawl's bounds (`like`)."""
    crawl, bench = fields_of(Settings)["delay"], fields_of(WorkbenchSettings)["delay"]
    assert bounds(click_type(crawl)) == bounds(click_type(bench))
    assert bench.default is None and crawl.default == 1.0
    result = CliRunner().invoke(main, ["workbench", "--delay", "-1"])
    assert result.exit_code == 2 and "-1" in result.output


def test_a_workbench_crawl_takes_four_agents_unless_file_or_variable_says(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The one rule, read from where the value came from: the default 15 is the engine's."""
    from webcrawler.toolkit.crawler import TOOLKIT_AGENTS
    from webcrawler.workbench.app import OPTIONS, crawl_settings

    monkeypatch.delenv("WEBCRAWLER_AGENTS", raising=False)
    assert crawl_settings(tmp_path, dict(OPTIONS)).agents == TOOLKIT_AGENTS
    (tmp_path / "webcrawler.toml").write_text("[crawl]\nagents = 7\n", encoding="utf-8")
    assert crawl_settings(tmp_path, dict(OPTIONS)).agents == 7
    monkeypatch.setenv("WEBCRAWLER_AGENTS", "6")
    assert crawl_settings(tmp_path, dict(OPTIONS)).agents == 6
    assert crawl_settings(tmp_path, {**OPTIONS, "agents": 2}).agents == 2
