"""`webcrawler crawl definition.json`: here, and relocated to another workbench with --on.

The same definition gives the same document from the command line and from the
workbench's API. Relocation runs it on a second workbench (another loopback
address) under that host's RequestPolicy, which refuses a site outside its
allowed hosts and writes the refusal to its audit log.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from tests.workbench.conftest import CHAPTERS, Workbench, docs_pages
from webcrawler.demoweb.server import LoopbackWeb, Site


def crawl(definition: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "webcrawler.cli", "crawl", str(definition),
                           "--delay", "0", "--agents", "2", *flags],
                          capture_output=True, text=True, timeout=120)


def write(tmp_path: Path, definition: dict) -> Path:
    path = tmp_path / "manual.json"
    path.write_text(json.dumps(definition), encoding="utf-8")
    return path


def test_the_command_line_and_the_api_give_the_same_document(
        workbench: Workbench, docs_web: LoopbackWeb, tmp_path: Path) -> None:
    definition = {"name": "Manual", "roots": [docs_web.url("127.0.8.1", "/docs/")], "scope": "subtree",
                  "limits": {"seconds": 30}}
    ran = crawl(write(tmp_path, definition), "--out", str(tmp_path / "here"))
    assert ran.returncode == 0, ran.stderr
    assert f"{CHAPTERS + 1} pages visited" in ran.stdout and "stopped: queue-empty" in ran.stdout
    here = (tmp_path / "here" / "document.html").read_bytes()
    _, started = workbench.call("POST", "/api/crawls", definition)
    workbench.wait(started["id"])
    assert workbench.call("GET", started["result_url"])[1] == here


def test_a_bad_definition_file_is_one_line(tmp_path: Path) -> None:
    ran = crawl(write(tmp_path, {"roots": ["http://127.0.8.1/"], "order": "random"}))
    assert ran.returncode == 1
    assert ran.stderr.strip().splitlines() == \
        [f"Error: {tmp_path / 'manual.json'}: order must be one of bfs, dfs, priority"]


def test_relocation_runs_under_the_hosts_policy_which_refuses_and_audits(
        make_workbench: Callable[..., Workbench], tmp_path: Path) -> None:
    with LoopbackWeb([Site("127.0.8.3", docs_pages()), Site("127.0.8.4", docs_pages())]) as web:
        allowed, other = web.name("127.0.8.3"), web.name("127.0.8.4")
        audit = tmp_path / "audit.jsonl"
        host = make_workbench("127.0.9.2", "--policy-host", allowed, "--audit-log", str(audit),
                              name="host")
        mine = make_workbench("127.0.9.1", name="mine")
        assert host.url.startswith("http://127.0.9.2:") and mine.url.startswith("http://127.0.9.1:")
        roots = [web.url(address, "/docs/ch5.html") for address in ("127.0.8.3", "127.0.8.4")]
        definition = {"roots": roots, "scope": "server", "limits": {"seconds": 30}}
        path = write(tmp_path, definition)
        there = crawl(path, "--on", host.url, "--out", str(tmp_path / "there"))
        assert there.returncode == 0, there.stderr
        assert "2 pages visited" in there.stdout and "refused by the policy" in there.stdout
        document = (tmp_path / "there" / "document.html").read_text()
        assert allowed in document and other not in document
        web.log.settle()
        assert web.log.paths(other) == []  # not one request reached the refused host
        _, started = mine.call("POST", "/api/crawls", definition)
        assert mine.wait(started["id"])["summary"]["pages"] == 4  # no policy there: both sites
    entries = [json.loads(line) for line in audit.read_text().splitlines()]
    refused = [e for e in entries if not e["allowed"]]
    assert refused and {e["url"].split("/")[2] for e in refused} == {other}
    assert all(e["reason"] == f"host {other} is not allowed" for e in refused)
    assert {e["url"].split("/")[2] for e in entries if e["allowed"]} == {allowed}


def test_python_crawlers_are_never_sent_to_another_workbench(tmp_path: Path) -> None:
    script = tmp_path / "mine.py"
    script.write_text("from webcrawler.toolkit import Crawler\nclass Mine(Crawler):\n    pass\n")
    ran = crawl(script, "--on", "http://127.0.9.9:1/")
    assert ran.returncode == 2 and "never on another workbench" in ran.stderr
