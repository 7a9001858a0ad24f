"""The body reader: byte cap, deadline, incremental gzip/deflate, early sniffing."""

from __future__ import annotations

import gzip
import io
import time
import zlib

import pytest

from webcrawler.agents.body import (
    BodyTooLarge,
    DeadlineExceeded,
    Rejected,
    UnsupportedEncoding,
    read_body,
)


class Raw:
    """A stand-in for urllib3's raw response: read1 returns small pieces and counts them."""

    def __init__(self, data: bytes, piece: int = 4096, delay: float = 0.0) -> None:
        self.stream = io.BytesIO(data)
        self.piece = piece
        self.delay = delay
        self.reads = 0

    def read1(self, amt: int | None = None, decode_content: bool | None = None) -> bytes:
        assert decode_content is False
        self.reads += 1
        time.sleep(self.delay)
        return self.stream.read(min(amt or self.piece, self.piece))


FAR = 1e18


def test_plain_body() -> None:
    assert read_body(Raw(b"hello" * 1000), "", 10_000, FAR) == b"hello" * 1000


def test_cap_stops_reading() -> None:
    raw = Raw(b"x" * 10_000_000)
    with pytest.raises(BodyTooLarge):
        read_body(raw, "identity", 100_000, FAR)
    assert raw.reads < 30  # stopped after the cap, did not drain 10 MB


def test_truncate_keeps_the_first_bytes() -> None:
    assert read_body(Raw(b"abcdef" * 1000), "", 10, FAR, truncate=True) == b"abcdefabcd"


@pytest.mark.parametrize("encoding, compress", [
    ("gzip", gzip.compress),
    ("x-gzip", gzip.compress),
    ("deflate", zlib.compress),
    ("deflate", lambda d: zlib.compress(d)[2:-4]),  # raw deflate, as some servers send it
])
def test_decompression(encoding: str, compress) -> None:
    data = b"<p>some text</p>" * 2000
    assert read_body(Raw(compress(data)), encoding, 100_000, FAR) == data


def test_multi_member_gzip() -> None:
    data = gzip.compress(b"first ") + gzip.compress(b"second")
    assert read_body(Raw(data), "gzip", 1000, FAR) == b"first second"


def test_fifty_thousand_gzip_members() -> None:
    data = gzip.compress(b"", mtime=0) * 50_000 + gzip.compress(b"end", mtime=0)
    assert read_body(Raw(data, piece=65536), "gzip", 1000, FAR) == b"end"
    members = gzip.compress(b"ab", mtime=0) * 50_000  # 100 KB decoded, over a 1,000-byte cap
    with pytest.raises(BodyTooLarge):
        read_body(Raw(members, piece=65536), "gzip", 1000, FAR)
    assert read_body(Raw(members, piece=65536), "gzip", 1001, FAR, truncate=True) == b"ab" * 500 + b"a"


def test_gzip_bomb_costs_at_most_the_cap() -> None:
    bomb = gzip.compress(b"\0" * 20_000_000, compresslevel=1)  # 20 MB in ~90 KB
    started = time.monotonic()
    with pytest.raises(BodyTooLarge):
        read_body(Raw(bomb, piece=65536), "gzip", 1_000_000, FAR)
    assert time.monotonic() - started < 0.5


def test_gzip_bomb_truncated_for_robots() -> None:
    bomb = gzip.compress(b"a" * 5_000_000, compresslevel=1)
    assert len(read_body(Raw(bomb, piece=65536), "gzip", 500, FAR, truncate=True)) == 500


def test_corrupt_and_unknown_encodings() -> None:
    with pytest.raises(UnsupportedEncoding):
        read_body(Raw(b"not gzip at all"), "gzip", 1000, FAR)
    with pytest.raises(UnsupportedEncoding):
        read_body(Raw(b"data"), "br", 1000, FAR)


@pytest.mark.wallclock
def test_deadline() -> None:
    raw = Raw(b"x" * 100_000, piece=10, delay=0.01)
    with pytest.raises(DeadlineExceeded):
        read_body(raw, "", 1_000_000, time.monotonic() + 0.1)
    assert raw.reads < 30


def test_reject_sees_the_first_bytes_once_and_stops_reading() -> None:
    seen: list[bytes] = []

    def reject(head: bytes) -> bool:
        seen.append(head)
        return head.startswith(b"%PDF")

    raw = Raw(b"%PDF-1.4" + b"\0" * 1_000_000, piece=512)
    with pytest.raises(Rejected):
        read_body(raw, "", 2_000_000, FAR, reject=reject)
    assert raw.reads <= 3 and len(seen) == 1 and len(seen[0]) == 1024
    seen.clear()
    assert read_body(Raw(b"short"), "", 100, FAR, reject=reject) == b"short"
    assert seen == [b"short"]
