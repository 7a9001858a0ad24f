"""A small changing web crawled once, for the export and stats tests."""

from __future__ import annotations

import subprocess
import time

import pytest
from click.testing import CliRunner

from tests.support.changeweb import ChangingWeb
from tests.support.genweb_server import GenWebServer
from webcrawler.cli import main
from webcrawler.commands.index import run_index
from webcrawler.settings import Settings


def webcrawler(*args: str) -> subprocess.CompletedProcess:
    """Run a read-only command (export, stats) in this process, as the command line would."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout_bytes, result.stderr_bytes)


@pytest.fixture(scope="package")
def crawled(tmp_path_factory: pytest.TempPathFactory):
    """A small static changing web (no changes: the text is known), crawled once into a data dir."""
    work = tmp_path_factory.mktemp("export")
    data = work / "data"
    web = ChangingWeb(servers=2, pages_per_server=12, links_per_page=6, page_bytes=1500, spread="static",
                      first_address="127.0.44.32", day_seconds=1e6, epoch=time.time(),
                      log_path=str(work / "requests.log"))
    with GenWebServer(web) as served:
        settings = Settings(data_dir=data, agents=2, delay=0.0, hours=0.05, commit_every=20,
                            progress_interval=60.0, seeds=(served.seed_url,),
                            include=(served.include_pattern,), keep_responses=True)
        run_index(settings, progress=False)
    return served, data


