"""`make demo` and `make test` need no npm (issue 38): the workbench's graph library is
fetched when npm is there, and otherwise `make` says in one line how to get it and goes on
(the Workbench then works without its graph: tests/workbench/test_browser_newcomer.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAKE = shutil.which("make")


def fetch_graph_library(tmp_path: Path, tools: Path) -> subprocess.CompletedProcess[str]:
    """The Makefile's cytoscape.js rule, run in `tmp_path` with only `tools` on PATH."""
    assert MAKE is not None
    return subprocess.run([MAKE, "-s", "-f", str(ROOT / "Makefile"), "-C", str(tmp_path),
                           "CYTOSCAPE=vendor/cytoscape.min.js", "vendor/cytoscape.min.js"],
                          env={"PATH": str(tools), "HOME": str(tmp_path)}, capture_output=True,
                          text=True, timeout=60)


def tools(folder: Path, *names: str) -> Path:
    folder.mkdir()
    for name in names:
        found = shutil.which(name)
        assert found is not None, name
        os.symlink(found, folder / name)
    return folder


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_without_npm_make_says_so_in_one_line_and_goes_on(tmp_path: Path) -> None:
    ran = fetch_graph_library(tmp_path, tools(tmp_path / "bin", "sh", "mkdir"))
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.count("\n") == 1 and "npm not found" in ran.stderr
    assert "apt-get install npm" in ran.stderr and "make install" in ran.stderr
    assert not (tmp_path / "vendor" / "cytoscape.min.js").exists()


@pytest.mark.skipif(MAKE is None, reason="make is not installed")
def test_when_npm_cannot_fetch_make_says_so_and_leaves_no_file(tmp_path: Path) -> None:
    bin_dir = tools(tmp_path / "bin", "sh", "mkdir", "rm")
    (bin_dir / "npm").write_text("#!/bin/sh\necho 'npm error network' >&2\nexit 1\n", encoding="utf-8")
    (bin_dir / "npm").chmod(0o755)
    ran = fetch_graph_library(tmp_path, bin_dir)
    assert ran.returncode == 0, ran.stderr
    assert ran.stderr.splitlines()[-1].startswith("npm could not fetch cytoscape@")
    assert not list((tmp_path / "vendor").glob("*"))


def test_make_demo_and_make_test_still_fetch_it_when_npm_is_there() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    for target in ("demo:", "test:", "install:"):
        line = next(line for line in makefile.splitlines() if line.startswith(target) and "$(STAMP)" in line)
        assert "$(CYTOSCAPE)" in line.split("##")[0], target
