"""client.Pools: a GET to an origin seen before goes to the pool its adapter chose, and only
while the adapter would choose it again, so the adapter's checks hold on every GET: the
--deny-private refusal, TLS verification, an --insecure-skip-tls-verify host's exemption.
Real servers on loopback (127.0.2.5x), a real Fetcher."""

from __future__ import annotations

from pathlib import Path

import pytest
import requests

from tests.support.tls import TestCA
from webcrawler.agents.client import lean_path
from webcrawler.agents.fetch import Fetcher
from webcrawler.demoweb.server import LoopbackWeb, Site, html
from webcrawler.protocol.messages import AgentConfig, Document, Failure, Reason, Retrieve

PLAIN, SECURE = "127.0.2.50", "127.0.2.51"
ROUTES = {"/a": html("A"), "/b": html("B")}


@pytest.fixture(scope="module")
def web(tmp_path_factory: pytest.TempPathFactory) -> LoopbackWeb:
    ca = TestCA(Path(tmp_path_factory.mktemp("ca")))  # trusted by nobody here
    sites = [Site(PLAIN, ROUTES), Site(SECURE, ROUTES, tls=ca.server_context(ca.issue(SECURE)))]
    with LoopbackWeb(sites) as loopback:
        yield loopback


def _remembered(fetcher: Fetcher, url: str) -> object:
    """The pool `fetcher`'s Pools would send `url` to, after checking it is the adapter's."""
    adapter = fetcher.session.get_adapter(url)
    target = lean_path(url)
    assert target is not None
    pool = fetcher._pools.get(adapter, url[:len(url) - len(target)], fetcher.session.verify,
                              fetcher.session.cert)
    if pool is not None:
        request = requests.PreparedRequest()
        request.method, request.url = "GET", url
        assert pool is adapter.get_connection_with_tls_context(
            request, fetcher.session.verify, None, fetcher.session.cert)
    return pool


def _twice(config: AgentConfig, web: LoopbackWeb, host: str, scheme: str = "http"
           ) -> list[object]:
    """Two GETs to one origin: the answers; the second was sent to a remembered pool."""
    with Fetcher(config) as fetcher:
        answers = []
        for job, path in enumerate(("/a", "/b")):
            url = web.url(host, path).replace("http://", f"{scheme}://")
            answers.append(fetcher.retrieve(Retrieve(job, url)))
            assert _remembered(fetcher, url) is not None
    return answers


def test_a_remembered_pool_still_refuses_private_addresses(web: LoopbackWeb) -> None:
    answers = _twice(AgentConfig(deny_private=True), web, PLAIN)
    assert [a.reason for a in answers if isinstance(a, Failure)] == [Reason.PRIVATE] * 2
    answers = _twice(AgentConfig(), web, PLAIN)
    assert [a.title for a in answers if isinstance(a, Document)] == ["A", "B"]


def test_a_remembered_pool_still_verifies_certificates(web: LoopbackWeb) -> None:
    answers = _twice(AgentConfig(), web, SECURE, "https")
    assert [(a.reason, a.detail[:4]) for a in answers if isinstance(a, Failure)] == [
        (Reason.CONNECTION, "TLS:")] * 2
    answers = _twice(AgentConfig(insecure_hosts=(SECURE,)), web, SECURE, "https")
    assert [a.title for a in answers if isinstance(a, Document)] == ["A", "B"]


def test_a_pool_the_adapter_would_not_choose_again_is_not_used(web: LoopbackWeb) -> None:
    """The first HTTPS GET changes the pool manager's settings (the trust context), after
    which the adapter keys plain HTTP's pools anew; a closed adapter chooses new pools."""
    plain = web.url(PLAIN, "/a")
    with Fetcher(AgentConfig()) as fetcher:
        fetcher.retrieve(Retrieve(1, plain))
        assert _remembered(fetcher, plain) is not None
        fetcher.retrieve(Retrieve(2, web.url(SECURE, "/a").replace("http://", "https://")))
        assert _remembered(fetcher, plain) is None
        fetcher.retrieve(Retrieve(3, plain))
        assert _remembered(fetcher, plain) is not None
        fetcher.session.get_adapter(plain).close()
        assert _remembered(fetcher, plain) is None
        assert isinstance(fetcher.retrieve(Retrieve(4, plain)), Document)


def test_pools_remember_a_bounded_number_of_origins(web: LoopbackWeb) -> None:
    """Past `limit` origins the memory starts over (the pool is chosen before connecting, so a
    GET that fails to connect is remembered too)."""
    plain = web.url(PLAIN, "/a")
    other = plain.replace(PLAIN, "localhost")  # nothing listens there on that port
    with Fetcher(AgentConfig()) as fetcher:
        fetcher._pools.limit = 1
        assert isinstance(fetcher.retrieve(Retrieve(1, plain)), Document)
        assert isinstance(fetcher.retrieve(Retrieve(2, other)), Failure)
        assert _remembered(fetcher, plain) is None
        assert _remembered(fetcher, other) is not None
