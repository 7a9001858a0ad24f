"""Credentials stay on their channel (issue 37): an https credential never crosses the network in
clear, and none goes where the certificate is not checked. Real HTTPS servers on loopback with
this test's own CA, real HTTP servers beside them on the same hosts."""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.tls import TestCA
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.engine.loop.outcome import SeedsFailed
from webcrawler.settings import Settings

from .conftest import crawl, pages, with_credentials

SECRET = "ch4nnel-Pa55word"
BASIC = "Basic " + base64.b64encode(f"crawler:{SECRET}".encode()).decode()
SCOPE = (r"^https?://127\.0\.6\.(6[0-4])[:/]",)


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> TestCA:
    return TestCA(tmp_path_factory.mktemp("ca"))


def carried(hits: list, server: str) -> list[str]:
    """The paths of `server` whose request carried an Authorization header."""
    return [h.path for h in hits if h.server == server and dict(h.headers).get("Authorization")]


def test_an_https_credential_is_never_sent_in_clear(ca: TestCA, settings: Settings) -> None:
    """A host-only credential (https by default) goes to the host's HTTPS server, not to its
    HTTP server: neither a link there nor an https->http redirect, robots.txt first; a
    credential bound to host:port goes not to http://host:port/ named on another site."""
    intranet = pages(2, "intranet")
    sites = [Site("127.0.6.60", intranet, tls=ca.server_context(ca.issue("127.0.6.60")),
                  auth=("Authorization", BASIC)),
             Site("127.0.6.60", pages(1, "clear twin")),  # same host, plain HTTP, another port
             Site("127.0.6.61", {}),  # an uncredentialed site that links to ...
             Site("127.0.6.62", pages(1, "bound port"))]  # ... host:port of a credential, in clear
    with LoopbackWeb(sites) as web:
        secure, twin, elsewhere, bound = (s.name for s in web.servers)
        intranet["/"] = html("intranet home", "protected", [
            ("/p1", "one"), (f"http://{twin}/", "the same host in clear"), ("/to-http", "down")])
        intranet["/to-http"] = Page(status=302, headers=(("Location", f"http://{twin}/p1"),))
        web.servers[2].site.routes["/"] = html("elsewhere", "links", [(f"http://{bound}/", "x")])
        with_credentials(settings.data_dir.parent, "127.0.6.60", SECRET)
        with_credentials(settings.data_dir.parent, bound, SECRET)
        crawl(settings, [web.url("127.0.6.60"), f"http://{elsewhere}/"], include=SCOPE,
              ca_bundle=str(ca.cert))
        web.log.settle()
        hits = web.log.snapshot()
    paths = {server: [h.path for h in hits if h.server == server] for server in (twin, bound)}
    assert "/robots.txt" in paths[twin] and "/p1" in paths[twin] and "/" in paths[twin]
    assert "/robots.txt" in paths[bound] and "/" in paths[bound]
    assert carried(hits, twin) == [] and carried(hits, bound) == []
    assert set(carried(hits, secure)) >= {"/robots.txt", "/", "/p1", "/to-http"}
    assert all(h.status != 401 for h in hits if h.server == secure)


def test_no_credential_where_the_certificate_is_not_checked(ca: TestCA,
                                                            settings: Settings) -> None:
    """--insecure-skip-tls-verify: the server answers, but whoever answers may not be it, so
    it gets no credential (and refuses the crawl: 401)."""
    sites = [Site("127.0.6.63", pages(1, "unchecked"),
                  tls=ca.server_context(ca.issue("127.0.6.63")), auth=("Authorization", BASIC))]
    with LoopbackWeb(sites) as web:
        with_credentials(settings.data_dir.parent, "127.0.6.63", SECRET)
        with pytest.raises(SeedsFailed, match="401"):
            crawl(settings, [web.url("127.0.6.63")], insecure_skip_tls_verify=True, retries=0)
        web.log.settle()
        hits = web.log.snapshot()
    assert {h.path for h in hits} >= {"/robots.txt", "/"}
    assert carried(hits, web.servers[0].name) == []
    assert {h.status for h in hits} == {401}


def test_a_scheme_other_than_https_or_http_is_one_line(tmp_path: Path) -> None:
    data = with_credentials(tmp_path, "intranet.example", SECRET, scheme="ftp")
    result = subprocess.run([sys.executable, "-m", "webcrawler.cli", "config", "--data-dir",
                             str(data)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "[[credentials]] #1: scheme must be https" in result.stderr and SECRET not in result.stderr
