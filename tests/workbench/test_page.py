"""The workbench's own pages: a 404 is a 404 page (not a 500 from the query server's error
page), and without cytoscape.js the page says how to get it."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path

import pytest

from tests.workbench.conftest import Workbench
from webcrawler.web.server import ServerThread
from webcrawler.workbench import page
from webcrawler.workbench.app import create_app


def get(url: str) -> tuple[int, str, str]:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return answer.status, answer.headers["Content-Type"], answer.read().decode()
    except urllib.error.HTTPError as error:
        with error:
            return error.code, error.headers["Content-Type"], error.read().decode()


@pytest.mark.parametrize("path", ["nothing-here", "crawls/x", "static/vendor/missing.js",
                                  "api/nothing"])
def test_every_404_is_a_404_page(workbench: Workbench, path: str) -> None:
    status, kind, body = get(workbench.url + path)
    assert status == 404
    if path.startswith("api/"):
        assert kind == "application/json" and "There is no page" in body
    else:
        assert kind.startswith("text/html") and "Back to the workbench" in body


def test_a_405_is_not_a_500(workbench: Workbench) -> None:
    request = urllib.request.Request(workbench.url, method="DELETE")
    try:
        urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as error:
        assert error.code == 405 and "GET" in error.headers["Allow"]
        error.close()


def test_without_the_graph_library_the_page_says_how_to_get_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(page, "GRAPH_LIBRARY", tmp_path / "not-installed.js")
    app = create_app(tmp_path)
    with ServerThread(app, host="127.0.0.1", port=0, threads=2) as server:
        status, _, body = get(server.url)
    assert status == 200 and "make install" in body and "cytoscape.min.js" not in body.split(
        "</main>")[1]
    assert 'id="graph"' in body  # the page still works: counters, outline, results


def test_make_demo_installs_the_graph_library() -> None:
    makefile = (Path(__file__).parents[2] / "Makefile").read_text(encoding="utf-8")
    demo = next(line for line in makefile.splitlines() if line.startswith("demo:"))
    assert "$(CYTOSCAPE)" in demo.split("##")[0]
