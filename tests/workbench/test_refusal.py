"""A refused loopback or private root says why (private-address) and how to allow it
(--allow-private-host), in the API, on the command line (`webcrawler crawl --on`), and the
demo prints the workbench command that crawls its web (issue 38: a crawl at the demo's hub
ended "no visited page matched the page predicate")."""

from __future__ import annotations

import json
import queue
import shlex
import subprocess
import sys
import threading
from pathlib import Path

from tests.workbench.conftest import Workbench, start_workbench, stop_workbench
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.web import processes

PRIVATE = "127.0.8.7"  # not among the hosts the tests' workbench allows


def test_a_refused_root_says_why_and_how_to_allow_it(workbench: Workbench, tmp_path: Path) -> None:
    with LoopbackWeb([Site(PRIVATE, {"/": html("Home", "home")})]) as web:
        definition = {"roots": [web.url(PRIVATE, "/")], "limits": {"seconds": 20}}
        _, started = workbench.call("POST", "/api/crawls", definition)
        view = workbench.wait(started["id"])
        assert view["summary"]["pages"] == 0 and view["processed"] == 0
        assert "private-address" in view["refused"] and PRIVATE in view["refused"]
        assert f"--allow-private-host {PRIVATE}" in view["refused"]

        path = tmp_path / "private.json"
        path.write_text(json.dumps(definition), encoding="utf-8")
        ran = subprocess.run([sys.executable, "-m", "webcrawler.cli", "crawl", str(path),
                              "--on", workbench.url, "--out", str(tmp_path / "out")],
                             capture_output=True, text=True, timeout=120)
        assert ran.returncode == 0, ran.stderr
        assert f"private-address: {PRIVATE}" in ran.stderr
        assert f"--allow-private-host {PRIVATE}" in ran.stderr
        web.log.settle()
        assert web.log.paths() == []


def test_a_crawl_that_was_not_refused_says_nothing_of_it(workbench: Workbench,
                                                        docs_web: LoopbackWeb) -> None:
    _, started = workbench.call("POST", "/api/crawls", {"roots": [docs_web.url("127.0.8.1", "/docs/")],
                                                        "scope": "subtree", "limits": {"seconds": 20}})
    view = workbench.wait(started["id"])
    assert view["summary"]["pages"] > 0 and view["refused"] is None


def _lines(stream: object, into: queue.Queue[str]) -> None:
    for line in stream:  # type: ignore[attr-defined]
        into.put(line)


def test_the_demo_prints_the_workbench_command_that_crawls_its_web(tmp_path: Path) -> None:
    demo = subprocess.Popen([sys.executable, "-m", "webcrawler.cli", "demo", "--seconds", "2",
                             "--agents", "2", "--port", "0", "--data-dir", str(tmp_path / "demo")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=_lines, args=(demo.stderr, lines), daemon=True).start()
    bench = None
    try:
        hint = ""
        for _ in range(2000):  # bounded: the demo crawls for 2 s
            line = lines.get(timeout=60)
            if "webcrawler workbench" in line:
                hint = line
                break
        command = shlex.split(hint.split("webcrawler workbench", 1)[1].split(" - ")[0])
        seed = hint.rsplit(" ", 1)[1].strip()
        assert command and set(command[::2]) == {"--allow-private-host"}
        bench = start_workbench(tmp_path / "wb", allow=tuple(command))
        _, started = bench.call("POST", "/api/crawls", {"roots": [seed], "scope": "anywhere",
                                                        "limits": {"pages": 6, "seconds": 30}})
        view = bench.wait(started["id"])
        assert view["summary"]["pages"] == 6 and view["refused"] is None
    finally:
        if bench is not None:
            stop_workbench(bench)
        processes.end_group(demo, 5)  # type: ignore[arg-type]
        if demo.stderr is not None:
            demo.stderr.close()
