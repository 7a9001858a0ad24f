"""A command that needs an optional extra says which, in one line, when it is missing.

Each runs in a fresh interpreter where the extra's module cannot be imported
(`sys.modules[name] = None` makes Python refuse it, as if it were not installed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

RUN = ("import sys; sys.modules[sys.argv[1]] = None; from webcrawler.cli import main; "
       "main(sys.argv[2:], prog_name='webcrawler')")


def webcrawler_without(module: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", RUN, module, *args], capture_output=True,
                          text=True, timeout=120)


@pytest.mark.parametrize("command", [["agent-scheduler", "--port", "0"],
                                     ["agent-host", "--scheduler", "tcp://127.0.0.1:9"]])
def test_the_agent_host_commands_name_the_distributed_extra(command: list[str]) -> None:
    done = webcrawler_without("distributed", *command)
    assert done.returncode == 1
    assert done.stderr == (f"Error: webcrawler {command[0]} needs distributed, which is not "
                           "installed: pip install 'webcrawler-search[distributed]'\n")
    assert done.stdout == ""


def test_agents_at_names_the_distributed_extra(tmp_path: Path) -> None:
    done = webcrawler_without("distributed", "index", "--data-dir", str(tmp_path), "--seed",
                              "http://127.0.0.1:9/", "--agents-at", "tcp://127.0.0.1:9",
                              "--no-progress")
    assert done.returncode == 1
    assert "pip install 'webcrawler-search[distributed]'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_postgresql_url_names_the_postgres_extra(tmp_path: Path) -> None:
    done = webcrawler_without("psycopg", "stats", "--data-dir", str(tmp_path), "--db",
                              "postgresql+psycopg://nobody@127.0.0.1:9/none")
    assert done.returncode == 1
    assert "pip install 'webcrawler-search[postgres]'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr


PLAN_EXTRA = ("Error: the recrawl model (plan-recrawl, --plan auto) needs casadi, which is not "
              "installed: pip install 'webcrawler-search[plan]'\n")


def test_plan_recrawl_names_the_plan_extra() -> None:
    done = webcrawler_without("casadi", "plan-recrawl", "--pages", "2000000", "--buckets", "8",
                              "--periods", "5", "--strategy", "2")
    assert (done.returncode, done.stderr, done.stdout) == (1, PLAN_EXTRA, "")


def test_plan_auto_names_the_plan_extra_before_crawling(tmp_path: Path) -> None:
    done = webcrawler_without("casadi", "index", "--data-dir", str(tmp_path / "data"),
                              "--seed", "http://127.0.0.1:9/", "--incremental", "--plan", "auto",
                              "--no-progress")
    assert (done.returncode, done.stderr, done.stdout) == (1, PLAN_EXTRA, "")
    assert not (tmp_path / "data").exists()  # nothing made, nothing lost
