"""A workbench on a relative data directory (the default ./webcrawler-data, or a relative
--data-dir) serves its results: Flask's send_file would read a relative path from the
package's folder (HTTP 500), so the workbench keeps its data directory absolute."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.workbench.conftest import start_workbench, stop_workbench
from webcrawler.demoweb.server import LoopbackWeb


@pytest.mark.parametrize("data_dir", [None, Path("relative-data")], ids=["default", "relative"])
def test_a_result_downloads_from_a_relative_data_directory(
        docs_web: LoopbackWeb, tmp_path: Path, data_dir: Path | None) -> None:
    bench = start_workbench(data_dir, cwd=tmp_path)
    try:
        definition = {"roots": [docs_web.url("127.0.8.1", "/docs/")], "scope": "subtree",
                      "limits": {"seconds": 30}}
        _, started = bench.call("POST", "/api/crawls", definition)
        assert bench.wait(started["id"])["result"] == "document.html"
        status, body = bench.call("GET", started["result_url"])
        assert status == 200
        kept = tmp_path / (data_dir or "webcrawler-data") / "workbench" / started["id"] / "document.html"
        assert body == kept.read_bytes() and b"marker-6" in body

        path = tmp_path / "manual.json"
        path.write_text(json.dumps(definition), encoding="utf-8")
        relocated = subprocess.run([sys.executable, "-m", "webcrawler.cli", "crawl", str(path),
                                    "--on", bench.url, "--out", str(tmp_path / "there")],
                                   capture_output=True, text=True, timeout=120)
        assert relocated.returncode == 0, relocated.stderr
        assert (tmp_path / "there" / "document.html").read_bytes() == kept.read_bytes()
    finally:
        stop_workbench(bench)
