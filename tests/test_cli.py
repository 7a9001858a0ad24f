"""The command line as a user meets it: real processes, stdout for results, stderr for logs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from webcrawler.config.layers import from_environment
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.settings import Settings


def webcrawler(*args: str, env: dict | None = None, timeout: float = 120):
    return subprocess.run([sys.executable, "-m", "webcrawler.cli", *args], capture_output=True,
                          text=True, timeout=timeout, env=env)


def test_robots_command_answers_one_line_per_url(tmp_path: Path):
    robots = tmp_path / "robots.txt"
    robots.write_text("User-agent: *\nDisallow: /private\n\nUser-agent: BadBot\nDisallow: /\n")
    result = webcrawler("robots", str(robots), "WebCrawler/0.1", "http://h/private/x", "http://h/ok")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == ["disallowed\thttp://h/private/x", "allowed\thttp://h/ok"]
    bad = webcrawler("robots", str(robots), "BadBot", "/anything")
    assert bad.stdout.strip() == "disallowed\t/anything"


def test_index_prints_progress_to_stderr_and_summary_to_stdout_then_stats(tmp_path: Path):
    pages = {"/": html("Home", "start", [("/a", "a"), ("/b", "b")]),
             "/a": html("A", "alpha"), "/b": html("B", "beta")}
    with LoopbackWeb([Site("127.0.4.50", pages)]) as web:
        data = str(tmp_path / "data")
        result = webcrawler("index", "--hours", "0.01", "--delay", "0", "--agents", "2",
                            "--data-dir", data, "--seed", web.url("127.0.4.50", "/"))
    assert result.returncode == 0, result.stderr
    assert "documents retrieved  3" in result.stdout
    assert "docs 3" in result.stderr  # the plain progress line (stderr is not a terminal)
    stats = webcrawler("stats", "--json", "--data-dir", data)
    figures = json.loads(stats.stdout)
    assert figures["documents"]["fetched"] == 3 and figures["servers_known"] == 1
    assert figures["index_documents"] == 3
    optimized = webcrawler("optimize", "--data-dir", data)
    assert optimized.returncode == 0 and "index optimized" in optimized.stdout
    assert json.loads(webcrawler("stats", "--json", "--data-dir", data).stdout)["index_documents"] == 3


def test_settings_defaults_environment_then_flags():
    env = {"WEBCRAWLER_DATA": "/tmp/x", "WEBCRAWLER_AGENTS": "3", "WEBCRAWLER_DELAY": "0.5",
           "WEBCRAWLER_INCLUDE": "^http://a/ ^http://b/"}
    settings = from_environment(env)
    assert settings.data_dir == Path("/tmp/x") and settings.agents == 3 and settings.delay == 0.5
    assert settings.include == ("^http://a/", "^http://b/")
    assert settings.database_url == "sqlite:////tmp/x/webcrawler.db"
    assert Settings().agents == 15 and Settings().delay == 1.0 and Settings().commit_every == 200


def test_bad_environment_value_is_a_clear_error(tmp_path: Path):
    import os

    env = dict(os.environ, WEBCRAWLER_AGENTS="many")
    result = webcrawler("index", "--hours", "0.001", "--data-dir", str(tmp_path), env=env)
    assert result.returncode == 2
    assert "WEBCRAWLER_AGENTS='many'" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(("seed", "why"), [
    ("http://[::1", "Invalid IPv6 URL"),  # urlsplit's ValueError was a traceback
    ("ftp://[::1]/", "ftp scheme: only http and https are crawled"),
    ("127.0.0.1/", "not a URL: write it with http:// or https://"),
])
def test_a_seed_that_is_not_a_url_is_one_line(tmp_path: Path, seed: str, why: str):
    result = webcrawler("index", "--seed", seed, "--hours", "0.001", "--data-dir", str(tmp_path / "d"))
    assert result.returncode == 1
    assert result.stderr == f"Error: --seed {seed!r}: {why}\n"


def test_an_agents_at_address_that_is_not_one_is_one_line(tmp_path: Path):
    result = webcrawler("index", "--seed", "http://127.0.0.1:9/", "--agents-at", "tcp://[::1",
                        "--hours", "0.001", "--data-dir", str(tmp_path / "d"))
    assert result.returncode == 2  # a setting: ConfigError
    assert result.stderr == ("Error: --agents-at 'tcp://[::1': Invalid IPv6 URL (give "
                             "tcp://HOST:PORT or tls://HOST:PORT)\n")


def test_index_without_seeds_or_crawl_says_what_to_do(tmp_path: Path):
    result = webcrawler("index", "--hours", "0.001", "--data-dir", str(tmp_path / "empty"))
    assert result.returncode == 1
    assert "give a --seed URL" in result.stderr and "Traceback" not in result.stderr


# The console script's own lines, with an exit handler that says when it runs and an object
# that says when the interpreter's teardown frees it.
CONSOLE_SCRIPT = """import atexit, sys
class Freed:
    def __del__(self):
        print("torn down", flush=True)
kept = Freed()
atexit.register(print, "exit handler ran", flush=True)
from webcrawler.cli import main
sys.exit(main())
"""


def test_a_crawl_ends_after_its_exit_handlers_with_its_status(tmp_path: Path):
    """Issue 36: `webcrawler index` leaves without tearing its interpreter down (cli/ending.py),
    but its exit handlers run, its output is all there, and its exit status is the command's, a
    success's or an error's; other commands end as Python ends."""
    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", CONSOLE_SCRIPT, *args], capture_output=True,
                              text=True, timeout=120)

    queued = run("index", "--hours", "0", "--seed", "http://127.0.4.47:1/", "--no-progress",
                 "--data-dir", str(tmp_path / "data"))
    assert queued.returncode == 0, queued.stderr
    lines = queued.stdout.splitlines()
    assert lines[0].startswith("Crawl finished") and lines[-1] == "exit handler ran"
    assert "torn down" not in queued.stdout  # no teardown after the handlers: `kept` stays
    refused = run("index", "--reindex", "--seed", "http://127.0.4.47:1/", "--data-dir",
                  str(tmp_path / "data"))
    assert refused.returncode == 2 and "--reindex rebuilds the index" in refused.stderr
    assert refused.stdout == "exit handler ran\n"
    version = run("--version")
    assert version.returncode == 0 and "version" in version.stdout
    assert version.stdout.splitlines()[-2:] == ["exit handler ran", "torn down"]
