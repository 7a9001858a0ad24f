"""The --deny-private safety: address classes, and the agent's check of its real peer."""

from __future__ import annotations

import pytest

from webcrawler.agents.fetch import Fetcher
from webcrawler.demoweb.server import LoopbackWeb, Page, Site, html
from webcrawler.protocol.addresses import Exempt, is_public, refused_literal, robots_hop
from webcrawler.protocol.messages import AgentConfig, Document, Failure, Reason, Retrieve, RobotsFile

HOST = "127.0.12.1"


@pytest.mark.parametrize(("address", "public"), [
    ("8.8.8.8", True), ("2001:4860:4860::8888", True),
    ("127.0.0.1", False), ("127.9.9.9", False), ("10.1.2.3", False), ("172.16.0.1", False),
    ("192.168.1.1", False), ("169.254.169.254", False), ("0.0.0.0", False), ("100.64.0.1", False),
    ("224.0.0.1", False), ("240.0.0.1", False), ("255.255.255.255", False),
    ("::1", False), ("::", False), ("fe80::1", False), ("fc00::1", False), ("ff02::1", False),
    ("::ffff:127.0.0.1", False), ("::ffff:8.8.8.8", True),
    ("2002:7f00:1::", False),  # 6to4 wrapping 127.0.0.1
    ("64:ff9b::7f00:1", False),  # NAT64 wrapping 127.0.0.1
    ("::7f00:1", False),  # IPv4-compatible (deprecated, reserved)
])
def test_public_addresses(address, public):
    assert is_public(address) is public


def test_literals_refused_unless_the_scope_names_them():
    nobody = Exempt()
    assert refused_literal("http://127.0.0.1", nobody)
    assert refused_literal("http://[::1]:8080", nobody)
    assert not refused_literal("http://127.0.0.1:81", Exempt(hosts=("127.0.0.1",)))  # any port
    assert not refused_literal("http://8.8.8.8", nobody)
    assert not refused_literal("http://localhost", nobody)  # a name: checked on the connection
    demo = Exempt(patterns=(r"^http://127\.0\.5\.[0-9]+:8080/",))
    assert not refused_literal("http://127.0.5.3:8080", demo)
    assert refused_literal("http://127.0.5.3:8081", demo)
    assert refused_literal("http://127.0.6.1:8080", demo)


@pytest.fixture(scope="module")
def web():
    with LoopbackWeb([Site(HOST, {"/": html("Inside", "secret")}, robots_txt="")]) as served:
        yield served


def fetch(config: AgentConfig, url: str, kind: str = "document"):
    with Fetcher(config) as fetcher:
        return fetcher.retrieve(Retrieve(1, url, kind))


def test_the_agent_refuses_a_private_peer_before_sending(web):
    before = len(web.log.snapshot())
    config = AgentConfig(deny_private=True, connect_timeout=2, read_timeout=2, total_timeout=5)
    answer = fetch(config, web.url(HOST))
    assert isinstance(answer, Failure) and answer.reason == Reason.PRIVATE
    robots = fetch(config, web.url(HOST, "/robots.txt"), "robots")
    assert isinstance(robots, RobotsFile) and robots.status is None
    assert robots.reason == Reason.PRIVATE
    web.log.settle()
    assert len(web.log.snapshot()) == before


def test_a_name_is_checked_after_dns():
    """`localhost` is a name (no literal the engine could refuse): the address it resolved to counts."""
    with LoopbackWeb([Site("127.0.0.1", {"/": html("Local")})]) as local:
        port = local.name("127.0.0.1").rsplit(":", 1)[1]
        config = AgentConfig(deny_private=True, connect_timeout=2, read_timeout=2, total_timeout=5)
        answer = fetch(config, f"http://localhost:{port}/")
        local.log.settle()
        assert isinstance(answer, Failure) and answer.reason == Reason.PRIVATE
        assert local.log.snapshot() == []


def test_hosts_named_by_the_scope_stay_reachable(web):
    config = AgentConfig(deny_private=True, allowed_hosts=(HOST,), connect_timeout=2,
                         read_timeout=2, total_timeout=5)
    answer = fetch(config, web.url(HOST))
    assert isinstance(answer, Document) and answer.title == "Inside"
    assert isinstance(fetch(AgentConfig(), web.url(HOST)), Document)  # off by default


def test_servers_an_include_pattern_names_stay_reachable(web):
    port = web.name(HOST).rsplit(":", 1)[1]
    named = rf"^http://127\.0\.12\.1:{port}/"
    config = AgentConfig(deny_private=True, allowed_patterns=(named,), connect_timeout=2,
                         read_timeout=2, total_timeout=5)
    assert isinstance(fetch(config, web.url(HOST)), Document)
    other = AgentConfig(deny_private=True, allowed_patterns=(r"^http://127\.0\.12\.1:1/",),
                        connect_timeout=2, read_timeout=2, total_timeout=5)
    answer = fetch(other, web.url(HOST))
    assert isinstance(answer, Failure) and answer.reason == Reason.PRIVATE


@pytest.mark.parametrize(("url", "target", "allowed"), [
    ("http://a.example/robots.txt", "https://a.example/robots.txt", True),
    ("http://a.example/robots.txt", "http://a.example/hop/1", True),  # same host: anything
    ("http://a.example/robots.txt", "http://www.a.example/robots.txt", True),
    ("http://a.example/robots.txt", "http://127.0.0.1:6379/robots.txt", True),  # deny-private's job
    ("http://a.example/robots.txt", "http://127.0.0.1:8080/admin/delete?all", False),
    ("http://a.example/robots.txt", "http://b.example/x?robots.txt", False),
])
def test_a_robots_redirect_leaves_the_host_only_for_another_robots_txt(url, target, allowed):
    assert robots_hop(url, target) is allowed


def test_the_agent_does_not_follow_a_robots_redirect_to_another_servers_page(web):
    port = web.name(HOST).rsplit(":", 1)[1]
    with LoopbackWeb([Site("127.0.12.2", {"/robots.txt": Page(b"", status=302, headers=(
            ("Location", f"http://127.0.12.1:{port}/secret"),))})]) as public:
        before = len(web.log.snapshot())
        answer = fetch(AgentConfig(connect_timeout=2, read_timeout=2, total_timeout=5),
                       public.url("127.0.12.2", "/robots.txt"), "robots")
        web.log.settle()
    assert isinstance(answer, RobotsFile) and answer.reason == Reason.BAD_REDIRECT
    assert len(web.log.snapshot()) == before


def test_include_patterns_name_ip_literals_only():
    """A loose include pattern must not exempt a name whose DNS answer an attacker chooses."""
    loose = Exempt(hosts=("docs.example.org",), patterns=(r"docs\.example\.org",))
    assert loose.names("https://docs.example.org")
    assert not loose.names("https://docs.example.org.attacker.test")
    assert Exempt(patterns=(r"127\.0\.5\.",)).names("http://127.0.5.1:8080")
