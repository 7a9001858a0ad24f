"""`webcrawler crawl FILE.py`: a crawler script run from the command line, in its own process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = '''
from webcrawler.toolkit import Crawler, Limits, Wildcard

class Leaves(Crawler):
    leaf = Wildcard("*/?/?")
    limits = Limits(pages=100)

    def visit(self, page):
        if self.leaf.matches(page.url):
            print("leaf", page.url, page.title)
'''


def run_command(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "WEBCRAWLER_DATA": str(tmp_path / "data"), "WEBCRAWLER_AGENTS": "2"}
    return subprocess.run([sys.executable, "-m", "webcrawler.cli", "crawl", *args],
                          capture_output=True, text=True, timeout=60, env=env, cwd=tmp_path)


def test_crawl_runs_the_class_in_the_file(tree_web, tmp_path):
    script = tmp_path / "leaves.py"
    script.write_text(SCRIPT)
    done = run_command(tmp_path, str(script), "--root", tree_web.url("127.0.6.1", "/"),
                       "--delay", "0", "--depth", "1")
    assert done.returncode == 0, done.stderr
    assert "leaf" not in done.stdout  # depth 1: the leaves (depth 2) are never fetched
    assert "3 pages visited" in done.stdout and "stopped: queue-empty" in done.stdout
    done = run_command(tmp_path, str(script), "--root", tree_web.url("127.0.6.1", "/"),
                       "--delay", "0", "--order", "dfs", "--pages", "3")
    assert done.returncode == 0, done.stderr
    assert done.stdout.count("leaf") == 1 and "stopped: limit-pages" in done.stdout


def test_crawl_errors_are_one_line(tmp_path):
    script = tmp_path / "two.py"
    script.write_text("from webcrawler.toolkit import Crawler\nclass A(Crawler): pass\n"
                      "class B(Crawler): pass\n")
    done = run_command(tmp_path, str(script))
    assert done.returncode == 2 and "name one with --class" in done.stderr
    done = run_command(tmp_path, str(script), "--class", "A")
    assert done.returncode == 1 and "A has no roots" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_toolkit_error_is_one_line_with_its_exit_status(tmp_path):
    """A crawler the toolkit cannot run as written (an unknown order, a root that is not a URL)
    is a ToolkitError: one line at the command line, never a traceback (the root was one)."""
    from webcrawler.errors import ToolkitError

    script = tmp_path / "sideways.py"
    script.write_text("from webcrawler.toolkit import Crawler\nclass Sideways(Crawler):\n"
                      "    roots = ['http://127.0.0.1:9/']\n    order = 'sideways'\n")
    done = run_command(tmp_path, str(script))
    assert done.returncode == ToolkitError.exit_code
    assert done.stderr == "Error: unknown order 'sideways': choose from bfs, dfs, priority\n"
    assert done.stdout == ""
    done = run_command(tmp_path, str(script), "--root", "http://[::1")  # urlsplit's ValueError
    assert done.returncode == ToolkitError.exit_code
    assert done.stderr == "Error: 'http://[::1' is not an http(s) URL that can be crawled\n"


@pytest.mark.parametrize(("line", "said"), [
    ("limits = {'pages': 5}", "Error: Bad.limits is a dict: give Limits(pages=..., depth=..., "
                              "seconds=..., bytes=...)\n"),
    ("limits = Limits(seconds='ten')", "Error: bad.py: ToolkitError: Limits(seconds='ten'): give a "
                                       "number, 0 or more, or None\n"),
    ("limits = Limits(pages=-1)", "Error: bad.py: ToolkitError: Limits(pages=-1): give a number, "
                                  "0 or more, or None\n"),
    ("roots = 'http://127.0.0.1:9/'", "Error: Bad(): ToolkitError: Bad's roots are one string: give "
                                      "a list, roots=['http://127.0.0.1:9/']\n"),
])
def test_limits_and_roots_of_the_wrong_kind_are_one_line(tmp_path, line: str, said: str) -> None:
    """A crawler's limits that are not a Limits of numbers, or roots that are one string, are
    its file's error in one line (a dict or a string of seconds was a TypeError's traceback,
    a negative bound stopped the crawl without a word, a string root crawled its letters)."""
    from webcrawler.errors import ToolkitError

    script = tmp_path / "bad.py"
    script.write_text("from webcrawler.toolkit import Crawler, Limits\nclass Bad(Crawler):\n"
                      f"    roots = ['http://127.0.0.1:9/']\n    {line}\n")
    done = run_command(tmp_path, script.name)  # in its folder: the line names the file so
    assert done.returncode == ToolkitError.exit_code
    assert done.stderr == said and done.stdout == ""


def test_a_script_that_runs_at_import_does_not_start_crawls_in_its_agents(tree_web, tmp_path):
    script = tmp_path / "ten_lines.py"
    script.write_text(
        "from webcrawler.toolkit import Crawler, Limits\n"
        "from webcrawler.settings import Settings\n"
        "class Titles(Crawler):\n"
        "    def visit(self, page):\n"
        "        print(page.title)\n"
        f"summary = Titles(roots=[{tree_web.url('127.0.6.1', '/')!r}], limits=Limits(pages=2),\n"
        f"                 settings=Settings(data_dir=__import__('pathlib').Path({str(tmp_path)!r}),"
        " agents=2, delay=0.0)).run()\n"
        "print(summary.stop_reason)\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["home", "a", "limit-pages"]
    assert "Traceback" not in done.stderr


def test_the_crawlers_own_init_sees_the_roots_given_and_its_errors_are_one_line(tree_web, tmp_path):
    script = tmp_path / "init.py"
    script.write_text(
        "from webcrawler.toolkit import Crawler\n"
        "class Own(Crawler):\n"
        "    def __init__(self, **kw):\n"
        "        super().__init__(**kw)\n"
        "        self.first = self.roots[0]\n"  # IndexError when the roots come too late
        "    def visit(self, page):\n"
        "        print('from', self.first, 'visited', page.url)\n")
    root = tree_web.url("127.0.6.1", "/")
    done = run_command(tmp_path, str(script), "--root", root, "--delay", "0", "--depth", "0")
    assert done.returncode == 0, done.stderr
    assert f"from {root} visited {root}" in done.stdout
    done = run_command(tmp_path, str(script))
    assert done.returncode == 1 and "Own(): IndexError" in done.stderr
    assert "Traceback" not in done.stderr
