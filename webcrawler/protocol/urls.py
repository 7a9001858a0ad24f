"""URL normalisation, and the split of a URL into a server and a document.

Two spellings of one resource must become one string, or the crawler fetches
it twice: scheme and host are lower-cased, default ports dropped, fragments
removed, dot segments resolved, percent-escapes made canonical (unreserved
characters decoded, the rest upper-case hex) and characters that must be
escaped are escaped. Only http and https are crawlable.

IP literals get one spelling too, before any scope check or fetch sees them:
a host that ends in a number is parsed as the WHATWG URL standard's IPv4 host
parser does (decimal ``2130706433``, octal ``0177.0.0.1``, hex ``0x7f.1``,
short dotted ``127.1``) and written as a dotted quad, or refused when it is
not a valid address (``1.2.3.4.5``); ``0x7f.example`` stays a name. IPv6
literals are compressed, and an IPv4-mapped one (``[::ffff:7f00:1]``) becomes
its dotted quad.

The database never stores whole URLs (as in the 1994 WebCrawler): a URL is a
server ``scheme://host[:port]`` plus a document ``/path?query`` on it.
This module is pure functions: no I/O, no state.
"""

from __future__ import annotations

import ipaddress
import re
from urllib.parse import urljoin, urlsplit

from webcrawler.errors import UsageError

SCHEMES = ("http", "https")
DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_URL_LENGTH = 2048

_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# Characters allowed to stand unescaped in a path or query (RFC 3986 pchar + "/" + "?").
_SAFE_PATH = _UNRESERVED | frozenset("!$&'()*+,;=:@/")
_SAFE_QUERY = _SAFE_PATH | frozenset("?")
_ESCAPE = re.compile(r"%([0-9A-Fa-f]{2})")


# A URL that `normalize` gives back as it is: lower-case http(s), a lower-case name whose last
# label starts with a letter (so it cannot end in a number) or a dotted quad without leading
# zeros, a port without them, a path and a non-empty query of characters that need no escape
# and hold no "%", nothing else (no user:password, no fragment, no white space). Default ports
# and dot segments are checked apart.
_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
_NORMAL = re.compile(
    r"(https?)://(?:(?:[a-z0-9\-]+\.)*[a-z][a-z0-9\-]*|" + rf"{_OCTET}(?:\.{_OCTET}){{3}})"
    r"(?::([1-9][0-9]{0,4}))?(/[A-Za-z0-9\-._~!$&'()*+,;=:@/]*)(?:\?[A-Za-z0-9\-._~!$&'()*+,;=:@/?]+)?")


class InvalidURL(UsageError, ValueError):
    """The string is not a crawlable http(s) URL."""


def normalize(url: str, base: str | None = None, max_length: int = MAX_URL_LENGTH) -> str:
    """Return the canonical absolute form of `url` (resolved against `base`).

    Raises InvalidURL for other schemes, missing or malformed hosts, bad
    ports and URLs longer than `max_length` after normalisation.
    """
    if base is None and is_normal(url, max_length):
        return url  # most URLs in a crawl were normalised before: links, seeds, final URLs
    return _normalized(url, base, max_length)


def _normalized(url: str, base: str | None, max_length: int) -> str:
    """`normalize` the long way: split, parse the host, escape, rebuild."""
    url = url.strip()
    if base is not None:
        try:
            url = urljoin(base, url)
        except ValueError as exc:
            raise InvalidURL(str(exc)) from None
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise InvalidURL(f"{exc}: {url[:200]!r}") from None
    scheme = parts.scheme.lower()
    if scheme not in SCHEMES:
        raise InvalidURL(f"not an http(s) URL: {url[:200]!r}")
    host = _normalize_host(parts.hostname or "")
    netloc = host if port in (None, DEFAULT_PORTS[scheme]) else f"{host}:{port}"
    path = _decoded_path(parts.path or "/")
    query = _canonical_escapes(parts.query, _SAFE_QUERY)
    result = f"{scheme}://{netloc}{path}" + (f"?{query}" if query else "")
    if len(result) > max_length:
        raise InvalidURL(f"URL longer than {max_length} characters")
    return result


def try_normalize(url: str, base: str | None = None, max_length: int = MAX_URL_LENGTH) -> str | None:
    """`normalize`, or None when the URL is not crawlable."""
    try:
        return normalize(url, base, max_length)
    except InvalidURL:
        return None


def is_normal(url: str, max_length: int = MAX_URL_LENGTH) -> bool:
    """Whether `url` plainly is its own normal form (`normalize(url, None, max_length) == url`):
    True only when it is, though some normal URLs (an IPv6 host, an escape) are not told so.
    The test is a pattern match where `normalize` splits, parses the host and rebuilds."""
    match = _NORMAL.fullmatch(url)
    if match is None or len(url) > max_length:
        return False
    scheme, port, path = match.groups()
    if port is not None and (int(port) > 65535 or int(port) == DEFAULT_PORTS[scheme]):
        return False
    return "/." not in path or not any(s in (".", "..") for s in path.split("/"))


def outside_patterns(url: str, max_length: int, include: list[re.Pattern[str]],
                     exclude: list[re.Pattern[str]]) -> bool:
    """True when `url` is too long, matches no include pattern (where there are any) or matches
    an exclude pattern: the scope's rules that read the URL's text alone, which the engine applies
    to links and a rendering agent to a page's own requests alike."""
    if len(url) > max_length:
        return True
    if include and not any(p.search(url) for p in include):
        return True
    return any(p.search(url) for p in exclude)


def split(url: str) -> tuple[str, str]:
    """Split a normalised URL into (server, document): ("http://h:81", "/p?q")."""
    scheme_end = url.index("://") + 3
    slash = url.find("/", scheme_end)
    if slash < 0:
        return url, "/"
    return url[:slash], url[slash:]


def join(server: str, document: str) -> str:
    """Inverse of `split`."""
    return server + document


def origin(scheme: str, host: str, port: int) -> str:
    """``scheme://host[:port]``, the port left out when it is the scheme's default."""
    return f"{scheme}://{host}" if port == DEFAULT_PORTS.get(scheme) else f"{scheme}://{host}:{port}"


def origin_parts(server: str) -> tuple[str, str, int]:
    """Inverse of `origin`: ("http", "host", 8080) from "http://host:8080" (IPv6 keeps its brackets)."""
    scheme, rest = server.split("://", 1)
    host, port = rest, ""
    if rest.startswith("["):
        end = rest.index("]")
        host, port = rest[: end + 1], rest[end + 2 :]
    elif ":" in rest:
        host, port = rest.rsplit(":", 1)
    return scheme, host, int(port) if port else DEFAULT_PORTS[scheme]


def host_of(url: str) -> str:
    """The host name of a URL (no port), for site: filters and display."""
    return urlsplit(url).hostname or ""


def _normalize_host(host: str) -> str:
    host = host.lower()
    if not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")  # also maps full-width digits and dots
        except UnicodeError as exc:
            raise InvalidURL(f"bad host name: {exc}") from None
    host = host.rstrip(".")
    if not host:
        raise InvalidURL("URL has no host")
    if any(c in host for c in " /\\@%<>\"'") or ".." in host:
        raise InvalidURL(f"bad host name: {host!r}")
    if ":" in host:
        return _ipv6_literal(host)
    if _ends_in_number(host):
        return _ipv4_literal(host)
    return host


def _ipv6_literal(host: str) -> str:
    """``[compressed]``, or the dotted quad of an IPv4-mapped address."""
    try:
        address = ipaddress.IPv6Address(host)
    except ValueError:
        raise InvalidURL(f"bad IPv6 address: {host[:100]!r}") from None
    mapped = address.ipv4_mapped
    return str(mapped) if mapped is not None else f"[{address.compressed}]"


def _ends_in_number(host: str) -> bool:
    """WHATWG's "ends in a number": is the last label digits, or a valid IPv4 number?"""
    last = host.rsplit(".", 1)[-1]
    return last.isdigit() or _ipv4_number(last) is not None


def _ipv4_literal(host: str) -> str:
    """WHATWG's IPv4 parser: 1 to 4 parts, each decimal, 0-octal or 0x-hex; the last fills the rest."""
    parts = host.split(".")
    numbers = [_ipv4_number(part) for part in parts]
    if len(parts) > 4 or any(n is None for n in numbers):
        raise InvalidURL(f"bad IPv4 address: {host[:100]!r}")
    values = [n for n in numbers if n is not None]
    if any(n > 255 for n in values[:-1]) or values[-1] >= 256 ** (5 - len(values)):
        raise InvalidURL(f"IPv4 address out of range: {host[:100]!r}")
    address = values[-1] + sum(n << (8 * (3 - i)) for i, n in enumerate(values[:-1]))
    return str(ipaddress.IPv4Address(address))


def _ipv4_number(part: str) -> int | None:
    """One part of an IPv4 host (decimal, 0x hex, 0 octal), or None when it is not a number."""
    if not part:
        return None
    radix = 10
    if part[:2] in ("0x", "0X"):
        part, radix = part[2:], 16
    elif len(part) > 1 and part.startswith("0"):
        part, radix = part[1:], 8
    if not part:
        return 0
    digits = "0123456789abcdef"[:radix]
    if any(c not in digits for c in part.lower()):
        return None
    return int(part, radix)


def remove_dot_segments(path: str) -> str:
    """RFC 3986 section 5.2.4, so that /a/./b/../c becomes /a/c."""
    if "." not in path:
        return path if path.startswith("/") else "/" + path
    output: list[str] = []
    for segment in path.split("/")[1:] if path.startswith("/") else path.split("/"):
        if segment == "..":
            if output:
                output.pop()
        elif segment != ".":
            output.append(segment)
    trailing = path.endswith(("/.", "/..")) or path in (".", "..")
    return "/" + "/".join(output) + ("/" if trailing and output else "")


def _decoded_path(path: str) -> str:
    """The path with canonical escapes, then without dot segments: RFC 3986 normalises
    percent-encoding (section 6.2.2.2) before removing dot segments (5.2.4), so that
    ``/%2e%2e/etc/passwd`` is ``/etc/passwd`` and never stored as ``/../etc/passwd``."""
    return remove_dot_segments(_canonical_escapes(path, _SAFE_PATH))


def _canonical_escapes(text: str, safe: frozenset[str]) -> str:
    """Decode escapes of unreserved characters, upper-case the rest, escape what must be."""
    if not text:
        return text
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "%" and _ESCAPE.match(text, i):
            decoded = chr(int(text[i + 1 : i + 3], 16))
            out.append(decoded if decoded in _UNRESERVED else text[i : i + 3].upper())
            i += 3
            continue
        if char in safe:
            out.append(char)
        else:
            out.extend(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))
        i += 1
    return "".join(out)


# Query and path parameters that name a visitor, a session or a campaign, never the content:
# two URLs that differ only by them are one document. Names are case-insensitive; a trailing
# "*" makes a prefix. The crawl's `strip_params` setting replaces this list.
TRACKING_PARAMETERS = (
    # campaign and click tracking
    "utm_*", "fbclid", "gclid", "gclsrc", "dclid", "gbraid", "wbraid", "msclkid", "yclid",
    "twclid", "ttclid", "igshid", "li_fat_id", "mc_eid", "mc_cid", "_ga", "_gl", "_hsenc",
    "_hsmi", "__hstc", "__hssc", "__hsfp", "hsctatracking", "mkt_tok", "oly_anon_id",
    "oly_enc_id", "vero_id", "vero_conv", "wickedid", "srsltid", "ref_src", "s_cid", "spm",
    # session identifiers
    "jsessionid", "phpsessid", "aspsessionid*", "sid", "sessionid", "session_id", "cfid",
    "cftoken", "oscsid", "zenid",
)
_PATH_PARAMETER = re.compile(r";([^/;=?]*)=[^/;?]*")


class ParamNames:
    """The parameter names `strip_params` drops: exact names and "prefix*" patterns, any case."""

    __slots__ = ("exact", "prefixes")

    def __init__(self, patterns: tuple[str, ...] | list[str] = TRACKING_PARAMETERS) -> None:
        self.exact = frozenset(p.lower() for p in patterns if p and not p.endswith("*"))
        self.prefixes = tuple(p[:-1].lower() for p in patterns if len(p) > 1 and p.endswith("*"))

    def __contains__(self, name: str) -> bool:
        name = name.lower()
        return name in self.exact or (bool(self.prefixes) and name.startswith(self.prefixes))

    def __bool__(self) -> bool:
        return bool(self.exact or self.prefixes)


def strip_params(url: str, names: ParamNames) -> str:
    """A normalised URL without its tracking and session parameters (`names`).

    Query parameters are dropped by name, the others kept as they are, in their order
    (parameters that select content stay: ``?page=2``, ``?id=7``); a path parameter
    (``/a;jsessionid=0A1B``) is dropped by name too. Everything else is left untouched,
    so the result is still what `normalize` would write.
    """
    if ("?" not in url and ";" not in url) or not names:
        return url
    base, mark, query = url.partition("?")
    if ";" in base:
        base = _PATH_PARAMETER.sub(lambda m: "" if m.group(1) in names else m.group(0), base)
    if not mark:
        return base
    kept = [part for part in query.split("&") if part.partition("=")[0] not in names]
    return f"{base}?{'&'.join(kept)}" if kept else base
