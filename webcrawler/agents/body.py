"""Read a response body under a byte cap and a deadline, decompressing it ourselves.

A crawler meets servers that send forever, send slowly forever, or send a
small gzip that inflates to gigabytes. So the body is read raw
(`decode_content=False`) with `read1`, which returns whatever has arrived
instead of waiting for a full buffer; the deadline is checked after every
piece, and gzip/deflate are inflated here with `zlib.decompressobj` and
`max_length`, so that no more than the cap is ever held in memory: a gzip
bomb costs at most the cap. The reader stops reading as soon as it knows the
answer (too large, too slow, or not text) and never reads the rest.

Problems are raised as the exceptions below; fetch.py turns them into data.
"""

from __future__ import annotations

import time
import zlib
from collections.abc import Callable
from typing import Protocol

from webcrawler.errors import FetchError

CHUNK = 64 * 1024
SNIFF_SIZE = 1024  # what `reject` gets to see, as filetypes.SNIFF_BYTES


class BodyError(FetchError):
    """The body could not be read as asked; `reason` is a messages.Reason code."""

    reason = ""


class BodyTooLarge(BodyError):
    reason = "too-large"


class DeadlineExceeded(BodyError):
    reason = "timeout"


class UnsupportedEncoding(BodyError):
    reason = "decode-error"


class Rejected(BodyError):
    """The `reject` callback recognised the first bytes as something we do not want."""

    reason = "unindexable-type"


class RawStream(Protocol):
    def read1(self, amt: int | None = None, decode_content: bool | None = None) -> bytes: ...


class _Inflater:
    """Incremental gzip/deflate decoding that never produces more than asked for."""

    def __init__(self, encoding: str) -> None:
        self.gzip = encoding in ("gzip", "x-gzip")
        self._fresh = True
        self._z = self._new()

    def _new(self) -> zlib._Decompress:
        return zlib.decompressobj(16 + zlib.MAX_WBITS if self.gzip else zlib.MAX_WBITS)

    def feed(self, data: bytes, room: int) -> bytes:
        """Inflate `data`, returning at most `room` + 1 bytes (one more says: over the cap).

        A loop, not recursion: a body may hold any number of gzip members
        (50,000 empty ones fit in a megabyte), each decoded by a fresh
        decompressor; input held back by `max_length` is taken up again.
        """
        out = bytearray()
        while len(out) <= room:
            out += self._decompress(data, room - len(out))
            if self.gzip and self._z.eof and self._z.unused_data:
                data = self._z.unused_data  # the next gzip member
                self._z = self._new()
            elif self._z.unconsumed_tail:
                data = self._z.unconsumed_tail
            else:
                break
        return bytes(out)

    def _decompress(self, data: bytes, room: int) -> bytes:
        try:
            out = self._z.decompress(data, room + 1)
        except zlib.error:
            if not (self._fresh and not self.gzip):
                raise
            # "deflate" servers often send raw deflate without the zlib header.
            self._z = zlib.decompressobj(-zlib.MAX_WBITS)
            out = self._z.decompress(data, room + 1)
        self._fresh = False
        return out


def read_body(
    raw: RawStream,
    content_encoding: str,
    limit: int,
    deadline: float,
    truncate: bool = False,
    reject: Callable[[bytes], bool] | None = None,
) -> bytes:
    """The decoded body, at most `limit` bytes.

    Past the limit: raise BodyTooLarge, or with `truncate` return the first
    `limit` bytes. Past `deadline` (time.monotonic()): DeadlineExceeded.
    `reject` sees the first bytes (SNIFF_SIZE or all of a shorter body) once:
    True raises Rejected without reading further.
    """
    inflater = _inflater(content_encoding)
    out = bytearray()
    sniffed = reject is None
    while True:
        if time.monotonic() > deadline:
            raise DeadlineExceeded("the page did not finish in time")
        data = raw.read1(CHUNK, decode_content=False)
        piece = _inflate(inflater, data, limit - len(out)) if inflater else data
        out += piece
        if len(out) > limit:
            if truncate:
                return bytes(out[:limit])
            raise BodyTooLarge(f"body larger than {limit} bytes")
        if not sniffed and (len(out) >= SNIFF_SIZE or not data):
            sniffed = True
            if reject is not None and reject(bytes(out[:SNIFF_SIZE])):
                raise Rejected("binary content")
        if not data:
            return bytes(out)


def _inflater(content_encoding: str) -> _Inflater | None:
    encoding = content_encoding.strip().lower()
    if encoding in ("", "identity"):
        return None
    if encoding in ("gzip", "x-gzip", "deflate"):
        return _Inflater(encoding)
    raise UnsupportedEncoding(f"content encoding {encoding!r}")


def _inflate(inflater: _Inflater, data: bytes, room: int) -> bytes:
    """Everything `data` inflates to, but never more than `room` + 1 bytes."""
    try:
        return inflater.feed(data, room) if data else b""
    except zlib.error as exc:
        raise UnsupportedEncoding(f"corrupt compressed body: {exc}") from None
