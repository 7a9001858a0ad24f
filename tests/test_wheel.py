"""A built wheel installs into a fresh virtual environment and runs (issue 38): its
distribution is `webcrawler-search` (PyPI's `webcrawler` is an unrelated package of 2013),
its import name `webcrawler`, and it carries what an installed copy needs beyond the
clone (templates, the workbench's script, the language model): `webcrawler demo` crawls,
indexes and searches from it.

The wheel is built once (pip, as a user would); the new environment gets the wheel
itself, and the already installed dependencies are put on its path (a .pth file) rather
than downloaded again, so the test stays offline and cheap."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment with only the built wheel installed in it."""
    work = tmp_path_factory.mktemp("wheel")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(work),
                            str(ROOT)], capture_output=True, text=True, timeout=300)
    assert built.returncode == 0, built.stderr[-2000:]
    wheels = list(work.glob("*.whl"))
    assert [w.name.split("-")[0] for w in wheels] == ["webcrawler_search"]
    with zipfile.ZipFile(wheels[0]) as wheel:
        assert any(name.startswith("webcrawler/") for name in wheel.namelist())
    env = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True, timeout=120)
    site = Path(subprocess.run([str(env / "bin" / "python"), "-c", "import sysconfig; "
                                "print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    # the dependencies this interpreter already has, after the new environment's own packages
    (site / "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    installed = subprocess.run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"),
                                "install", "--no-deps", "-q", str(wheels[0])],
                               capture_output=True, text=True, timeout=300)
    assert installed.returncode == 0, installed.stderr[-2000:]
    return env


def run(env: Path, *args: str, cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("WEBCRAWLER_", "PYTHON"))}
    return subprocess.run([str(env / "bin" / "webcrawler"), *args], capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env=clean)


def test_the_wheel_is_the_one_imported(venv: Path, tmp_path: Path) -> None:
    where = subprocess.run([str(venv / "bin" / "python"), "-c",
                            "import webcrawler; print(webcrawler.__file__)"],
                           capture_output=True, text=True, cwd=tmp_path, check=True).stdout
    assert where.startswith(str(venv)) and str(ROOT) not in where


def test_the_installed_command_answers_help_and_version(venv: Path, tmp_path: Path) -> None:
    helped = run(venv, "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "demo" in helped.stdout and "workbench" in helped.stdout
    version = run(venv, "--version", cwd=tmp_path)
    assert version.returncode == 0 and "0.1.0" in version.stdout


@pytest.fixture(scope="module")
def demo(venv: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder where the installed `webcrawler demo` crawled and indexed its web."""
    where = tmp_path_factory.mktemp("demo")
    ran = run(venv, "demo", "--seconds", "3", "--agents", "2", "--no-serve", "--data-dir", "demo",
              cwd=where)
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert "documents retrieved" in ran.stdout
    return where


def test_the_installed_demo_crawls_indexes_and_searches(venv: Path, demo: Path) -> None:
    found = run(venv, "search", "regular expression", "--data-dir", "demo", "--seconds", "1",
                "--max-fetches", "1", cwd=demo)
    assert found.returncode == 0, found.stderr[-2000:]
    assert "http://127.0.5." in found.stdout  # results from the demo web


PAGES = """
from webcrawler.query_server import create_app
from webcrawler.workbench.app import create_app as create_workbench
search = create_app("demo", testing=True)
bench = create_workbench("demo", testing=True)
try:
    print(search.test_client().get("/search?q=regular+expression").status_code,
          bench.test_client().get("/").status_code)
finally:
    search.extensions["webcrawler.sources"].close()
    bench.extensions["webcrawler.workbench"].close()
"""


def test_the_installed_pages_render_from_the_wheels_templates(venv: Path, demo: Path) -> None:
    shown = subprocess.run([str(venv / "bin" / "python"), "-c", PAGES], capture_output=True, text=True,
                           cwd=demo, timeout=120)
    assert shown.stdout.split() == ["200", "200"], shown.stderr[-2000:]
