"""Intranets: a private CA (--ca-bundle), client certificates, and credentials per host that
go to that host only and are written nowhere. Real TLS servers on loopback with certificates
this test's own CA issues, a server demanding HTTP Basic, and a redirect to another port that
must not receive the credential."""

from __future__ import annotations

import base64
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.tls import TestCA
from webcrawler.database.states import State
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.engine.loop.outcome import SeedsFailed

from .conftest import crawl, index_command, pages, rows, with_credentials

SECRET = "s3cr3t-Pa55word"
BASIC = "Basic " + base64.b64encode(f"crawler:{SECRET}".encode()).decode()


@pytest.fixture(scope="module")
def ca(tmp_path_factory) -> TestCA:
    return TestCA(tmp_path_factory.mktemp("ca"))


def test_a_private_ca_is_trusted_only_when_given(ca, settings):
    tls = ca.server_context(ca.issue("127.0.6.50"))
    with LoopbackWeb([Site("127.0.6.50", pages(2), tls=tls)]) as web:
        with pytest.raises(SeedsFailed, match="not trusted"):
            crawl(settings, [web.url("127.0.6.50")])
        untrusted = rows(settings)
        assert web.log.paths() == []  # no request passed the handshake
        crawl(settings, [], ca_bundle=str(ca.cert))
        trusted = rows(settings)
    assert web.url("127.0.6.50").startswith("https://")
    assert set(untrusted) == {"/"}  # robots.txt failed verification: nothing else asked
    assert {r["state"] for r in trusted.values()} == {State.FETCHED} and len(trusted) == 3


def test_insecure_skip_tls_verify_is_needed_to_accept_any_certificate(ca, settings):
    tls = ca.server_context(ca.issue("127.0.6.51"))
    with LoopbackWeb([Site("127.0.6.51", pages(1), tls=tls)]) as web:
        crawl(settings, [web.url("127.0.6.51")], insecure_skip_tls_verify=True)
    assert {r["state"] for r in rows(settings).values()} == {State.FETCHED}


def test_a_client_certificate_is_presented(ca, settings):
    tls = ca.server_context(ca.issue("127.0.6.54"), client_ca=True)
    client = ca.issue("crawler", client=True)
    with LoopbackWeb([Site("127.0.6.54", pages(1), tls=tls)]) as web:
        with pytest.raises(SeedsFailed):
            crawl(settings, [web.url("127.0.6.54")], ca_bundle=str(ca.cert), retries=0)
        refused = rows(settings)["/"]  # without one: a failure a resumed crawl tries again
        assert refused["state"] == State.FAILED and refused["detail"].startswith("robots.txt")
        crawl(settings, [], ca_bundle=str(ca.cert), client_cert=str(client.cert),
              client_key=str(client.key))
    assert {r["state"] for r in rows(settings).values()} == {State.FETCHED}


def test_credentials_go_to_their_host_only_and_are_written_nowhere(tmp_path: Path):
    other_routes = pages(1)
    routes = pages(2)
    sites = [Site("127.0.6.52", routes, auth=("Authorization", BASIC)),
             Site("127.0.6.52", other_routes),  # the same host, another port
             Site("127.0.6.53", pages(1))]  # another host
    with LoopbackWeb(sites) as web:
        protected, same_host, other_host = (f"http://{s.name}" for s in web.servers)
        routes["/go-port"] = Page(status=302, headers=(("Location", same_host + "/"),))
        routes["/go-host"] = Page(status=302, headers=(("Location", other_host + "/"),))
        routes["/"] = html("home", "protected", [("/p1", "1"), ("/p2", "2"), ("/go-port", "port"),
                                                  ("/go-host", "host")])
        data = with_credentials(tmp_path, web.servers[0].name, SECRET, scheme="http")
        result = index_command(data, protected + "/", "--agents", "2", "--progress")
        web.log.settle()
        hits = web.log.snapshot()
    assert result.returncode == 0, result.stderr[-3000:]
    carried = {h.server for h in hits if dict(h.headers).get("Authorization")}
    assert carried == {web.servers[0].name}  # never on the redirect to another port or host
    assert all(h.status != 401 for h in hits if h.server == web.servers[0].name)
    assert {h.server for h in hits} == {s.name for s in web.servers}  # the redirects were followed
    assert SECRET not in result.stdout + result.stderr and BASIC not in result.stderr
    exported = subprocess.run([sys.executable, "-m", "webcrawler.cli", "export", "--data-dir",
                               str(data)], capture_output=True, text=True, timeout=60)
    config = subprocess.run([sys.executable, "-m", "webcrawler.cli", "config", "--json",
                             "--data-dir", str(data)], capture_output=True, text=True, timeout=60)
    assert exported.returncode == 0 and config.returncode == 0
    assert SECRET not in exported.stdout + config.stdout
    token = BASIC.split()[1].encode()
    for path in data.rglob("*"):
        if path.is_file() and path.name != "webcrawler.toml":
            content = path.read_bytes()
            assert SECRET.encode() not in content and token not in content, path


def test_a_bad_credentials_table_is_one_line(tmp_path: Path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "webcrawler.toml").write_text('[[credentials]]\nhost = "x"\nusername = "u"\n')
    result = subprocess.run([sys.executable, "-m", "webcrawler.cli", "config", "--data-dir",
                             str(data)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert "[[credentials]] #1" in result.stderr and len(result.stderr.strip().splitlines()) == 1
