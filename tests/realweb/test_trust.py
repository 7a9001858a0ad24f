"""Trust that adds up (issue 37): HTTPS trusts the operating system's store by default, and
--ca-bundle adds an intranet's CA to it (both verify in one crawl); --ca-bundle-only trusts the
bundle alone. The "operating system's store" is pointed at a CA of this test's own through
OpenSSL's SSL_CERT_FILE, which the system store honours and certifi's bundle does not. Real
HTTPS servers on loopback, real `webcrawler index` processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.support.tls import TestCA
from webcrawler.database.schema import connect, documents
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Site
from webcrawler.settings import Settings

from .conftest import pages


@pytest.fixture(scope="module")
def webs(tmp_path_factory):  # type: ignore[no-untyped-def]
    system, intranet = (TestCA(tmp_path_factory.mktemp(n), n) for n in ("system", "intranet"))
    sites = [Site("127.0.6.80", pages(1, "public"),
                  tls=system.server_context(system.issue("127.0.6.80"))),
             Site("127.0.6.81", pages(1, "intranet"),
                  tls=intranet.server_context(intranet.issue("127.0.6.81")))]
    with LoopbackWeb(sites) as web:
        yield web, system, intranet


def index(data: Path, web: LoopbackWeb, system: TestCA, *flags: str) -> dict[str, set]:
    """Crawl both sites with the system store holding `system`: the servers fetched from."""
    result = subprocess.run(
        [sys.executable, "-m", "webcrawler.cli", "index", "--data-dir", str(data), "--delay", "0",
         "--agents", "2", "--retries", "0", "--seed", web.url("127.0.6.80"), "--seed",
         web.url("127.0.6.81"), *flags], capture_output=True, text=True, timeout=300,
        env={**os.environ, "SSL_CERT_FILE": str(system.cert)})
    engine = connect(Settings(data_dir=data).database_url)
    try:
        with engine.connect() as conn:
            found = conn.execute(select(documents.c.server_id, documents.c.state)).all()
    finally:
        engine.dispose()
    assert found, result.stderr[-2000:]
    return {"servers": {server for server, state in found if state == State.FETCHED}}


def test_the_system_store_and_the_bundle_both_verify(webs, tmp_path: Path) -> None:
    web, system, intranet = webs
    both = index(tmp_path / "both", web, system, "--ca-bundle", str(intranet.cert))
    assert len(both["servers"]) == 2  # the public site by the system's store, the intranet by the bundle
    alone = index(tmp_path / "alone", web, system)
    assert len(alone["servers"]) == 1  # no bundle: the system's store, which has the public CA
    only = index(tmp_path / "only", web, system, "--ca-bundle", str(intranet.cert),
                 "--ca-bundle-only")
    assert len(only["servers"]) == 1  # the bundle alone: the intranet only


def test_a_bad_bundle_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.pem"
    bad.write_text("not a certificate\n")
    result = subprocess.run([sys.executable, "-m", "webcrawler.cli", "index", "--data-dir",
                             str(tmp_path / "data"), "--seed", "https://127.0.6.82/",
                             "--ca-bundle", str(bad)], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0 and "--ca-bundle" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_seed_that_fails_tls_is_a_failure_with_its_reason(webs, tmp_path: Path) -> None:
    """A seed whose robots.txt fails TLS stayed `queued` with `failures 0` and no reason; it is
    the crawl's failure, and the error, the summary and `stats` say why."""
    web, system, _ = webs
    data = tmp_path / "data"
    done = subprocess.run(
        [sys.executable, "-m", "webcrawler.cli", "index", "--data-dir", str(data), "--delay", "0",
         "--agents", "1", "--no-progress", "--seed", web.url("127.0.6.81")],
        capture_output=True, text=True, timeout=120,
        env={**os.environ, "SSL_CERT_FILE": str(system.cert)})  # the intranet's CA is not in it
    assert done.returncode == 1
    assert "still queued         0" in done.stdout
    assert "failures             1: connection-error 1" in done.stdout
    assert "TLS: the server's certificate is not trusted" in done.stderr
    stats = subprocess.run([sys.executable, "-m", "webcrawler.cli", "stats", "--data-dir",
                            str(data)], capture_output=True, text=True, timeout=60)
    assert "failures   connection-error 1" in stats.stdout
