"""Turn a body's bytes into text, in the order a browser would decide the encoding.

1. a byte-order mark (it cannot lie about itself);
2. the charset parameter of the HTTP Content-Type header;
3. <meta charset>, <meta http-equiv=content-type> or <?xml encoding?> in the
   first few KB (the HTML "prescan");
4. detection with charset-normalizer on a bounded prefix, so a 1 MB page
   costs no more to guess than a 16 KB one;
5. UTF-8 with replacement characters.

A label that names no text codec (a typo, "none", "base64", "utf-7") is
skipped and the next source is asked. Decoding never raises: the worst case
is replacement characters. Labels for Latin-1 and ASCII decode as
windows-1252, as browsers do (WHATWG Encoding Standard), because old pages
that say Latin-1 use its curly quotes.
"""

from __future__ import annotations

import codecs
import re

import charset_normalizer

PRESCAN_BYTES = 4096
DETECT_BYTES = 16 * 1024
DETECT_CONTEXT = 512  # ASCII before the first non-UTF-8 byte tells the detector nothing

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF32_LE, "utf-32-le"),  # before UTF-16 LE: it starts with the same two bytes
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_META_CHARSET = re.compile(
    rb"""<meta[^>]*?charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.IGNORECASE
)
_XML_ENCODING = re.compile(rb"""^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._\-]+)["']""")
_HEADER_CHARSET = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.IGNORECASE)
# Codecs that are not safe or sensible for web text, even though Python knows them.
_REFUSED = frozenset({"utf-7", "unicode-escape", "raw-unicode-escape", "idna", "punycode",
                      "undefined", "unicode-internal"})
_WHATWG_ALIASES = {"iso8859-1": "cp1252", "ascii": "cp1252"}
WEB_ENCODINGS = (
    "utf_8", "cp1252", "iso8859_15", "cp1250", "iso8859_2", "cp1251", "koi8_r", "iso8859_5",
    "cp1253", "iso8859_7", "cp1254", "cp1255", "cp1256", "cp1257", "cp1258", "shift_jis",
    "euc_jp", "iso2022_jp", "gb18030", "big5", "euc_kr", "tis_620",
)
_DISPLAY_NAMES = {"cp1252": "windows-1252", "utf_8": "utf-8"}


def decode(body: bytes, header_content_type: str | None = None) -> tuple[str, str]:
    """Return (text, charset used) for `body`; never raises."""
    skip, codec = choose(body, header_content_type)
    return body[skip:].decode(codec, errors="replace"), _DISPLAY_NAMES.get(codec, codec)


def utf8_bytes(body: bytes, text: str, charset: str) -> bytes | None:
    """`body` when it is exactly `text`'s UTF-8 encoding (`text, charset = decode(body, ...)`),
    else None: the parser takes UTF-8 bytes, and a page that is already valid UTF-8 need not be
    encoded back from its text. A body decoded as UTF-8 without a replacement character and
    without a byte-order mark (which `decode` skips) is valid UTF-8, and valid UTF-8 decodes and
    encodes back to itself; a text with a replacement character may have been repaired, so it
    is not vouched for (a page may also spell one out: it is then encoded as before)."""
    if charset != "utf-8" or "\ufffd" in text or body.startswith(codecs.BOM_UTF8):
        return None
    return body


def choose(body: bytes, header_content_type: str | None = None) -> tuple[int, str]:
    """(bytes of byte-order mark to skip, codec) from the most trusted source that names one."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return len(bom), name
    for label in (header_charset(header_content_type), declared_charset(body)):
        codec = codec_for(label)
        if codec:
            return 0, codec
    return 0, detect(body)


def header_charset(content_type: str | None) -> str:
    """The charset parameter of a Content-Type header, or ""."""
    if not content_type:
        return ""
    match = _HEADER_CHARSET.search(content_type)
    return match.group(1) if match else ""


def declared_charset(body: bytes) -> str:
    """The encoding the document declares about itself in its first bytes, or ""."""
    head = body[:PRESCAN_BYTES]
    match = _XML_ENCODING.match(head) or _META_CHARSET.search(head)
    if not match:
        return ""
    label = match.group(1).decode("ascii", errors="replace")
    # A document read as bytes cannot really be UTF-16 if its ASCII meta was readable.
    return "utf-8" if label.lower().startswith("utf-16") else label


def codec_for(label: str | None) -> str:
    """The Python codec name for a charset label, or "" when it is unknown or unsuitable."""
    if not label:
        return ""
    try:
        info = codecs.lookup(label.strip().strip("\"'"))
    except (LookupError, ValueError):
        return ""
    if not getattr(info, "_is_text_encoding", True):
        return ""  # base64, rot13, zlib: byte transforms, not character sets
    name = info.name.replace("_", "-")
    if name in _REFUSED:
        return ""
    return _WHATWG_ALIASES.get(name, info.name)


def detect(body: bytes) -> str:
    """Guess the codec of undeclared bytes; utf-8 when they are valid UTF-8 or when unsure.

    Checking UTF-8 validity of the whole body runs at memory speed; the
    detector, which is not cheap, only sees a bounded window starting just
    before the first byte that is not UTF-8 (a long ASCII prefix says nothing
    and makes every code page look equally good).
    """
    try:
        body.decode("utf-8")
        return "utf-8"
    except UnicodeDecodeError as exc:
        start = _ascii_boundary(body, max(0, exc.start - DETECT_CONTEXT))
    return _guess(body[start : start + DETECT_BYTES]) or "utf-8"


def _ascii_boundary(body: bytes, start: int) -> int:
    """Move `start` to an ASCII byte, so the window does not open inside a multi-byte character."""
    if start == 0:
        return 0
    for i in range(start, min(len(body), start + 64)):
        if body[i] < 0x80:
            return i
    return start


def _guess(sample: bytes) -> str:
    """charset-normalizer limited to encodings seen on the web; ties go to the commoner one.

    Short Latin samples fit several code pages equally well, and a detector
    left to itself picks cp775 for French: among the least chaotic, most
    coherent candidates (and the code pages that decode to the same text)
    take the first in `WEB_ENCODINGS`, which lists windows-1252 before its
    neighbours.
    """
    try:
        matches = list(charset_normalizer.from_bytes(sample, cp_isolation=list(WEB_ENCODINGS)))
    except Exception:  # noqa: BLE001 - a detector bug must not lose the page
        return ""
    if not matches:
        return ""
    low = min(m.chaos for m in matches)
    calm = [m for m in matches if m.chaos <= low + 0.02]
    high = max(m.coherence for m in calm)
    names = {n for m in calm if m.coherence >= high - 0.02 for n in m.could_be_from_charset}
    for name in WEB_ENCODINGS:
        if name in names:
            return codec_for(name)
    return ""
