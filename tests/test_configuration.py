"""Configuration in layers through the real CLI: default < DATA/webcrawler.toml <
WEBCRAWLER_* < flag, `webcrawler config`, and one-line errors (exit 2) for a bad file."""

from __future__ import annotations

import json
import os
from dataclasses import fields
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.cli_runner import run_cli
from webcrawler.cli import main
from webcrawler.config.credentials import read_credentials
from webcrawler.config.kinds import ConfigError
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.settings.serve import ServeSettings

ADDRESS = "127.0.4.61"


def write_config(data_dir: Path, text: str) -> Path:
    data_dir.mkdir(parents=True, exist_ok=True)
    path = data_dir / "webcrawler.toml"
    path.write_text(text, encoding="utf-8")
    return path


def failing(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_config_json_says_where_each_value_came_from(tmp_path: Path, monkeypatch) -> None:
    data = tmp_path / "data"
    path = write_config(data, '[crawl]\nagents = 8\ndelay = 0.5\ndb_url = "sqlite:///file.db"\n'
                              'include = ["^http://a/"]\n[serve]\nper_page = 3\nport = 8080\n')
    monkeypatch.setenv("WEBCRAWLER_DELAY", "0.25")
    monkeypatch.setenv("WEBCRAWLER_DB", "sqlite:///env.db")
    monkeypatch.setenv("WEBCRAWLER_SERVE_PORT", "8081")
    shown = json.loads(run_cli("config", "--data-dir", str(data), "--db", "sqlite:///flag.db",
                               "--json"))
    crawl, serve = shown["crawl"], shown["serve"]
    assert shown["file"] == str(path) and shown["file_found"] is True
    assert crawl["hours"] == {"value": 1.0, "source": "default"}
    assert crawl["agents"] == {"value": 8, "source": "file", "from": str(path)}
    assert crawl["include"]["value"] == ["^http://a/"]
    assert crawl["delay"] == {"value": 0.25, "source": "environment", "from": "WEBCRAWLER_DELAY"}
    assert crawl["db_url"] == {"value": "sqlite:///flag.db", "source": "flag", "from": "--db"}
    assert crawl["data_dir"] == {"value": str(data), "source": "flag", "from": "--data-dir"}
    assert serve["per_page"]["value"] == 3 and serve["per_page"]["source"] == "file"
    assert serve["port"] == {"value": 8081, "source": "environment", "from": "WEBCRAWLER_SERVE_PORT"}
    assert set(serve) == {f.name for f in fields(ServeSettings)}


def test_config_text_names_the_file_and_the_origins(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("WEBCRAWLER_DATA", str(tmp_path / "nowhere"))
    monkeypatch.setenv("WEBCRAWLER_SERVE_REALTIME_MAX_JOBS", "5")
    lines = run_cli("config").splitlines()
    assert lines[0].startswith(f"config file: {tmp_path / 'nowhere' / 'webcrawler.toml'} (not found")
    jobs = next(line for line in lines if line.startswith("realtime_max_jobs "))
    assert jobs.split() == ["realtime_max_jobs", "5", "environment", "WEBCRAWLER_SERVE_REALTIME_MAX_JOBS"]
    agents = next(line for line in lines if line.startswith("agents "))
    assert agents.split() == ["agents", "15", "default"]
    assert "[crawl]" in lines and "[serve]" in lines


def test_a_crawl_obeys_file_then_environment_then_flag(tmp_path: Path, monkeypatch) -> None:
    """max_docs from each layer in turn stops a real crawl of a chain of eight pages; the
    server sees the User-Agent of the file, then of the flag (a setting that had no flag)."""
    pages = {f"/{i}": html(f"Page {i}", f"page {i}", [(f"/{i + 1}", "next")]) for i in range(8)}
    settings = ('[crawl]\nagents = 1\ndelay = 0.0\nhours = 0.05\nmax_docs = 2\n'
                'user_agent = "FileBot/1"\n')
    with LoopbackWeb([Site(ADDRESS, pages)]) as web:
        seed = web.url(ADDRESS, "/0")
        write_config(tmp_path / "a", settings)
        by_file = run_cli("index", "--no-progress", "--data-dir", str(tmp_path / "a"), "--seed", seed)
        write_config(tmp_path / "b", settings)
        monkeypatch.setenv("WEBCRAWLER_MAX_DOCS", "3")
        by_env = run_cli("index", "--no-progress", "--data-dir", str(tmp_path / "b"), "--seed", seed)
        write_config(tmp_path / "c", settings)
        by_flag = run_cli("index", "--no-progress", "--data-dir", str(tmp_path / "c"), "--seed", seed,
                          "--max-docs", "4", "--user-agent", "FlagBot/2")
        web.log.settle()
        agents = [hit.user_agent for hit in web.log.snapshot()]
    assert "documents retrieved  2" in by_file and "document limit" in by_file
    assert "documents retrieved  3" in by_env
    assert "documents retrieved  4" in by_flag
    assert set(agents) == {"FileBot/1", "FlagBot/2"} and agents[-1] == "FlagBot/2"


@pytest.mark.parametrize(("text", "expected"), [
    ("[crawl]\nagents = \n", "not valid TOML"),
    ("[crawl]\nagents = \"many\"\n", "[crawl] agents must be an integer, not a string ('many')"),
    ("[crawl]\ninclude = \"^http://a/\"\n", "[crawl] include must be a list of strings"),
    ("[serve]\nallow_from_url = 1\n", "[serve] allow_from_url must be a boolean, not an integer"),
    ("[crawl]\nagentz = 3\n", "[crawl] agentz is not a setting of [crawl] (did you mean agents?)"),
    ("[crawl]\ndata_dir = \"/elsewhere\"\n", "[crawl] data_dir cannot be set in the file"),
    ("[server]\nport = 1\n", "unknown section [server]"),
    ("agents = 3\n", "agents is outside a section"),
    ("[serve]\nper_page = 0\n", "[serve] per_page = 0: 0 is not in the range x>=1."),
    ("[crawl]\norder = \"fastest\"\n", "[crawl] order = 'fastest': 'fastest' is not one of"),
])
def test_a_bad_file_is_one_line_and_exit_2(tmp_path: Path, text: str, expected: str) -> None:
    path = write_config(tmp_path, text)
    for command in (["config"], ["stats"], ["index", "--hours", "0.001"], ["serve", "--port", "0"]):
        code, output = failing(*command, "--data-dir", str(tmp_path))
        assert code == 2, (command, output)
        assert output == f"Error: {path}: " + output.split(f"{path}: ", 1)[1]  # one line, named
        assert expected in output and output.count("\n") == 1 and "Traceback" not in output


@pytest.mark.parametrize("name, value, expected", [
    ("PER_PAGE", "ten", "WEBCRAWLER_SERVE_PER_PAGE='ten' is not a valid int"),
    ("PER_PAGE", "0", "WEBCRAWLER_SERVE_PER_PAGE=0: 0 is not in the range x>=1."),
    ("REALTIME_MAX_JOBS", "-1", "WEBCRAWLER_SERVE_REALTIME_MAX_JOBS=-1: -1 is not in the range x>=1."),
    ("THREADS", "0", "WEBCRAWLER_SERVE_THREADS=0: 0 is not in the range 1<=x<=64."),
])
def test_a_bad_serve_variable_is_one_line_and_exit_2(tmp_path: Path, monkeypatch, name: str,
                                                       value: str, expected: str) -> None:
    monkeypatch.setenv(f"WEBCRAWLER_SERVE_{name}", value)
    for command in (["config"], ["serve", "--port", "0"]):
        code, output = failing(*command, "--data-dir", str(tmp_path))
        assert code == 2 and output == f"Error: {expected}\n", (command, output)


def test_serve_settings_match_the_query_servers_options() -> None:
    from webcrawler.query_server import OPTIONS

    options = ServeSettings().app_options()
    assert options == {k: v for k, v in OPTIONS.items() if k != "testing"}


def _float_options() -> list[tuple[str, str]]:
    """Every float option of every command (subcommands of groups included)."""
    import click

    found, todo = [], [("", main)]
    while todo:
        prefix, command = todo.pop()
        if isinstance(command, click.Group):
            todo += [(f"{prefix} {name}".strip(), sub) for name, sub in command.commands.items()]
            continue
        for param in command.params:
            floats = click.FloatRange | type(click.FLOAT)
            if isinstance(param, click.Option) and isinstance(param.type, floats):
                found.append((prefix, param.opts[0]))
    return sorted(found)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", "NaN"])
def test_every_float_flag_refuses_nan_and_infinity(value: str) -> None:
    options = _float_options()
    assert ("index", "--delay") in options and ("workbench", "--delay") in options
    for command, flag in options:
        code, output = failing(*command.split(), flag, value)
        refused = f"{value!r} is not a finite number." in output or (
            "inf" in value and "is not in the range" in output)  # a bounded range says so first
        assert code == 2 and refused, (command, flag, output)


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_float_settings_refuse_nan_and_infinity_from_file_and_variable(
        tmp_path: Path, monkeypatch, value: str) -> None:
    path = write_config(tmp_path, f"[crawl]\ndelay = {value}\n")
    code, output = failing("config", "--data-dir", str(tmp_path))
    assert (code, output) == (2, f"Error: {path}: [crawl] delay must be a finite number, not "
                                 f"{float(value)!r}\n")
    path.unlink()
    monkeypatch.setenv("WEBCRAWLER_SERVE_REALTIME_SECONDS", value)
    code, output = failing("config", "--data-dir", str(tmp_path))
    assert (code, output) == (2, f"Error: WEBCRAWLER_SERVE_REALTIME_SECONDS={value!r} must be a "
                                 f"finite number, not {float(value)!r}\n")


def test_the_file_must_be_a_small_regular_file_with_compiling_patterns(tmp_path: Path) -> None:
    path = tmp_path / "webcrawler.toml"
    path.symlink_to("/dev/zero")
    assert failing("config", "--data-dir", str(tmp_path)) == (
        2, f"Error: {path}: not a regular file\n")
    path.unlink()
    os.mkfifo(path)  # opening a pipe for reading would wait for a writer forever
    assert failing("config", "--data-dir", str(tmp_path)) == (
        2, f"Error: {path}: not a regular file\n")
    path.unlink()
    write_config(tmp_path, "[crawl]\nuser_agent = '" + "x" * (1 << 20) + "'\n")
    assert failing("config", "--data-dir", str(tmp_path)) == (
        2, f"Error: {path}: larger than 1048576 bytes: not a settings file\n")
    write_config(tmp_path, "[crawl]\ninclude = " + "[" * 5000 + "]" * 5000 + "\n")
    assert failing("config", "--data-dir", str(tmp_path)) == (
        2, f"Error: {path}: not valid TOML (nested too deeply)\n")
    write_config(tmp_path, "[crawl]\ninclude = ['^http://(docs']\n")
    for command in (["config"], ["index", "--hours", "0.001"]):
        code, output = failing(*command, "--data-dir", str(tmp_path))
        assert code == 2 and output.count("\n") == 1, output
        assert output.startswith(f"Error: {path}: [crawl] include: '^http://(docs' is not a "
                                 "regular expression (missing ), unterminated subpattern")


def test_credentials_are_read_with_the_same_checks_as_the_settings(tmp_path: Path) -> None:
    path = tmp_path / "webcrawler.toml"
    path.symlink_to("/dev/zero")
    with pytest.raises(ConfigError, match="not a regular file"):
        read_credentials(tmp_path)
    path.unlink()
    path.write_text('[[credentials]]\nhost = "a"\nheader = "X-Key: ' + "k" * (1 << 20) + '"\n')
    with pytest.raises(ConfigError, match="larger than 1048576 bytes"):
        read_credentials(tmp_path)
    path.write_text('[[credentials]]\nhost = "intranet:8443"\nheader = "X-Key: k"\n')
    assert [(c.host, c.header, c.value) for c in read_credentials(tmp_path)] == [
        ("intranet:8443", "X-Key", "k")]
