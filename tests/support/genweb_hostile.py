"""The generated web's hostile corners, as real HTTP behaviour (see genweb.HOSTILE).

Each corner is one server. Replies that a plain body cannot express (a page
that never finishes, a 20 MB page) are named by `Reply.stream`, and
`genweb_server` produces them, always bounded in bytes and in time.
"""

from __future__ import annotations

import datetime
import random
import zlib
from functools import cache
from typing import Protocol

from tests.support.replies import HUGE_BYTES, Reply


class GenWeb(Protocol):
    """What the hostile corners read of the generated web (genweb.GenWeb)."""

    @property
    def bomb_mib(self) -> int: ...

    @property
    def hostile(self) -> tuple[str, ...]: ...

    def origin(self, server: int) -> str: ...

    def hostile_server(self, corner: str) -> int: ...

OPEN_ROBOTS = Reply(200, b"User-agent: *\nDisallow:\n", "text/plain")
NOT_FOUND = Reply(404, b"not found", "text/plain")


def _page(title: str, hrefs: list[str]) -> Reply:
    anchors = "".join(f'<p><a href="{h}">{h}</a></p>' for h in hrefs)
    return Reply(200, f"<html><head><title>{title}</title></head><body><h1>{title}</h1>"
                      f"{anchors}</body></html>".encode())


def _redirect(location: str) -> Reply:
    return Reply(302, b"", "text/plain", (("Location", location),))


def hostile_reply(web: GenWeb, corner: str, path: str) -> Reply:
    if corner == "robots-503":
        if path == "/robots.txt":
            return Reply(503, b"try again later", "text/plain", (("Retry-After", "3600"),))
        return _page("Behind a robots.txt that fails", ["/page/1.html"])
    if path == "/robots.txt":
        return OPEN_ROBOTS
    handler = _HANDLERS[corner]
    return handler(web, path) or NOT_FOUND


def _calendar(web: GenWeb, path: str) -> Reply | None:
    if not (path.startswith("/calendar/") and path.endswith(".html")):
        return None
    try:
        day = datetime.date.fromisoformat(path[len("/calendar/"):-len(".html")])
    except ValueError:
        return None
    later = [day + datetime.timedelta(days=1), day - datetime.timedelta(days=1),
             day + datetime.timedelta(days=31), day + datetime.timedelta(days=366)]
    return _page(f"Events on {day.isoformat()}: none",
                 [f"/calendar/{d.isoformat()}.html" for d in later if d.year < 9999])


def _loop(web: GenWeb, path: str) -> Reply | None:
    if path == "/loop/index.html":
        return _page("Redirects", ["/loop/a", "/chain/1"])
    if path == "/loop/a":
        return _redirect("/loop/b")
    if path == "/loop/b":
        return _redirect("/loop/a")
    if path.startswith("/chain/") and path[7:].isdigit():
        return _redirect(f"/chain/{int(path[7:]) + 1}")
    return None


def _slow(web: GenWeb, path: str) -> Reply | None:
    if path == "/slow/index.html":
        return _page("Slow pages", ["/slow/trickle.html", "/slow/stall.html"])
    if path == "/slow/trickle.html":
        return Reply(200, stream="trickle")
    if path == "/slow/stall.html":
        return Reply(200, stream="stall")
    return None


def _huge(web: GenWeb, path: str) -> Reply | None:
    if path == "/huge/index.html":
        return _page("Huge pages", ["/huge/big.html", "/huge/stream.html"])
    if path == "/huge/big.html":
        return Reply(200, stream="huge", headers=(("Content-Length", str(HUGE_BYTES)),))
    if path == "/huge/stream.html":
        return Reply(200, stream="huge-stream")
    return None


def _bomb(web: GenWeb, path: str) -> Reply | None:
    if path != "/bomb.html":
        return None
    return Reply(200, gzip_bomb(web.bomb_mib), headers=(("Content-Encoding", "gzip"),))


def _binary(web: GenWeb, path: str) -> Reply | None:
    if path != "/binary.html":
        return None
    noise = random.Random(7).randbytes(60_000)
    return Reply(200, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + noise)


_HANDLERS = {"calendar": _calendar, "redirect-loop": _loop, "never-finishes": _slow,
             "huge": _huge, "gzip-bomb": _bomb, "binary": _binary}


@cache
def gzip_bomb(mib: int) -> bytes:
    """`mib` MiB of zeros, gzip-compressed (about 1/230 of that on the wire)."""
    packer = zlib.compressobj(1, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    body = b"".join(packer.compress(zeros) for _ in range(mib)) + packer.flush()
    return body


def expected_failures(web: GenWeb) -> dict[str, tuple[str, str | None]]:
    """Hostile URL -> (document state, reason) once a crawl has met it."""
    corners: dict[str, dict[str, tuple[str, str | None]]] = {
        "redirect-loop": {"/loop/a": ("redirected", None), "/loop/b": ("redirected", None),
                          "/chain/6": ("failed", "too-many-redirects")},
        "never-finishes": {"/slow/trickle.html": ("failed", "timeout"),
                           "/slow/stall.html": ("failed", "timeout")},
        "huge": {"/huge/big.html": ("failed", "too-large"),
                 "/huge/stream.html": ("failed", "too-large")},
        "gzip-bomb": {"/bomb.html": ("failed", "too-large")},
        "binary": {"/binary.html": ("excluded", "unindexable-type")},
        "robots-503": {"/": ("queued", None)},
    }
    out = {}
    for corner in web.hostile:
        origin = web.origin(web.hostile_server(corner))
        out.update({origin + path: want for path, want in corners.get(corner, {}).items()})
    return out
