"""The command line checks its numbers and writes its help one way (issue 38, item 10):
negative limits are refused with one line (0 is documented), `--max-depth -1` is not taken
for a missing seed, no help shows click's `[x<=None]` or `[default: X]`, each option names
its default once, and `search --help` lists only options a real-time search uses."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from webcrawler.cli import main

Words = tuple[str, ...]  # a command path: ("index",)


def commands(group: click.Group, path: Words = ()) -> Iterator[tuple[Words, click.Command]]:
    for name, command in sorted(group.commands.items()):
        yield (*path, name), command
        if isinstance(command, click.Group):
            yield from commands(command, (*path, name))


EVERY = list(commands(main))


def help_of(path: tuple[str, ...]) -> str:
    result = CliRunner().invoke(main, [*path, "--help"], terminal_width=200)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.parametrize("path", [p for p, _ in EVERY], ids=[" ".join(p) for p, _ in EVERY])
def test_help_writes_each_default_once_and_one_way(path: tuple[str, ...]) -> None:
    text = help_of(path)
    assert "[default:" not in text and "<=None" not in text
    command = dict(EVERY)[path]
    for param in command.params:
        if isinstance(param, click.Option):
            assert (param.help or "").count("(default") <= 1, (param.opts, param.help)
            assert param.show_default in (None, False), param.opts


@pytest.mark.parametrize("flag", ["--hours", "--max-docs", "--max-depth", "--max-docs-per-server"])
def test_a_negative_limit_is_refused_with_one_line(flag: str, tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["index", "--seed", "http://127.0.8.9/", "--data-dir",
                                       str(tmp_path / "data"), flag, "-1"])
    assert result.exit_code == 2
    errors = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and f"'{flag}'" in errors[0] and "-1" in errors[0]
    assert "give a --seed" not in result.output
    assert not (tmp_path / "data").exists()  # refused before anything was made


@pytest.mark.parametrize("flag", ["--hours", "--max-docs", "--max-depth", "--max-docs-per-server"])
def test_zero_is_documented(flag: str) -> None:
    line = " ".join(help_of(("index",)).split())
    said = line[line.index(flag):].split("  ")[0]
    assert "0:" in said.split(flag, 1)[1].split(" --")[0], said[:200]


def test_search_lists_only_the_options_it_uses() -> None:
    search, index = help_of(("search",)), help_of(("index",))
    for unused in ("--commit-seconds", "--progress-interval", "--min-revisit", "--metrics-port"):
        assert unused not in search and unused in index
    assert "--connect-timeout" in search and "--max-depth" in search


def test_the_workbench_names_the_data_directory_it_takes() -> None:
    text = " ".join(help_of(("workbench",)).split())
    assert "(default ./webcrawler-data, or $WEBCRAWLER_DATA)" in text and "workbench/ folder" in text
