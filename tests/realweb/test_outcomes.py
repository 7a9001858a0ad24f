"""Honest endings, as a user meets them: real processes, exit codes that tell the truth, one
line on stderr and nothing written where nothing should be."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.flakyweb import slow
from webcrawler.demoweb.server import LoopbackWeb, Site

from .conftest import pages


def webcrawler(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "webcrawler.cli", *args], capture_output=True,
                          text=True, timeout=timeout)


FAST = ("--delay", "0", "--agents", "2", "--retries", "1", "--retry-backoff", "0.1",
        "--no-progress")


def test_an_unreachable_seed_is_a_failure_with_its_reason(tmp_path: Path):
    result = webcrawler("index", "--seed", "http://127.0.0.1:9/", "--data-dir",
                        str(tmp_path / "data"), *FAST)
    assert result.returncode == 1, result.stdout
    error = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert len(error) == 1 and "http://127.0.0.1:9/" in error[0]
    assert "robots.txt unreachable: connection refused" in error[0]
    assert "still queued         0" in result.stdout  # the summary agrees with the error
    assert "failures             1: connection-refused 1" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("seed", ["not-a-url", "ftp://example.org/file", "localhost:8080/"])
def test_a_malformed_seed_is_refused_by_name(tmp_path: Path, seed: str):
    data = tmp_path / "data"
    result = webcrawler("index", "--seed", seed, "--data-dir", str(data), *FAST)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and repr(seed) in lines[0], result.stderr
    assert not data.exists()  # nothing started, nothing written


@pytest.mark.parametrize("command", [("stats",), ("search", "anything"),
                                     ("evaluate-ordering",), ("index",)])
def test_commands_refuse_a_data_directory_that_does_not_exist(tmp_path: Path, command):
    data = tmp_path / "missing"
    result = webcrawler(*command, "--data-dir", str(data))
    assert result.returncode == 1, result.stdout
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert not data.exists()


def test_an_interrupted_crawl_exits_130_and_resumes(tmp_path: Path):
    routes = {path: slow(0.3, page) for path, page in pages(30).items()}
    with LoopbackWeb([Site("127.0.6.30", routes)]) as web:
        data = tmp_path / "data"
        crawl = subprocess.Popen([sys.executable, "-m", "webcrawler.cli", "index", "--seed",
                                  web.url("127.0.6.30"), "--data-dir", str(data), *FAST],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while len(web.log.paths()) < 4 and time.monotonic() < deadline:
            time.sleep(0.05)
        crawl.send_signal(signal.SIGINT)
        out, _err = crawl.communicate(timeout=60)
        assert crawl.returncode == 130
        assert "interrupted" in out
        resumed = webcrawler("index", "--data-dir", str(data), *FAST)
    assert resumed.returncode == 0, resumed.stderr
    stats = json.loads(webcrawler("stats", "--json", "--data-dir", str(data)).stdout)
    assert stats["documents"].get("fetched") == 31


def test_the_summary_and_stats_file_failures_under_the_same_names(tmp_path: Path):
    routes = pages(2)
    routes["/p1"] = slow(0, routes["/p1"].__class__(b"\x89PNG\r\n\x1a\n", content_type="image/png"))
    with LoopbackWeb([Site("127.0.6.31", routes)]) as web:
        data = str(tmp_path / "data")
        result = webcrawler("index", "--seed", web.url("127.0.6.31"), "--data-dir", data, *FAST)
    assert result.returncode == 0, result.stderr
    stats = webcrawler("stats", "--data-dir", data).stdout
    summary = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    assert "unindexable-type 1" in summary["excluded"] and "unindexable" not in summary["failures"]
    assert "unindexable-type 1" in next(s for s in stats.splitlines() if s.startswith("excluded"))
    assert "retries 0, recovered 0, final failures 0" in summary["retried"]
    assert "retries 0, recovered 0, final failures 0" in stats


def test_config_shows_the_stored_scope(tmp_path: Path):
    with LoopbackWeb([Site("127.0.6.32", pages(1))]) as web:
        data = str(tmp_path / "data")
        crawled = webcrawler("index", "--seed", web.url("127.0.6.32"), "--data-dir", data,
                             "--include", "^http://127\\.0\\.6\\.32", "--max-depth", "7", *FAST)
    assert crawled.returncode == 0, crawled.stderr
    crawl = json.loads(webcrawler("config", "--json", "--data-dir", data).stdout)["crawl"]
    assert crawl["include"] == {"value": ["^http://127\\.0\\.6\\.32"], "source": "stored",
                                "from": "with the crawl"}
    assert crawl["max_depth"]["value"] == 7 and crawl["max_depth"]["source"] == "stored"
    assert crawl["scope_hosts"]["value"] == ["127.0.6.32"]
    text = webcrawler("config", "--data-dir", data).stdout
    assert any(line.split()[:1] == ["max_depth"] and "stored" in line for line in text.splitlines())
