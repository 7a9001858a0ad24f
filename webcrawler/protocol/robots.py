"""robots.txt rules for our crawler, following RFC 9309 to the letter.

The engine fetches ``/robots.txt`` once per server (the agent follows up to
five redirects), stores status and body, and builds the rules with
`RobotsRules.from_response(status, body, token)`; the same call re-creates
them from the database, so status + body is the serialised form.

Why this module parses and matches by itself rather than through protego
(Scrapy's parser): protego 0.7 departs from RFC 9309 both in the group it
picks and in how it compares paths, and no rewriting of the text handed to
it fixes that (tests/test_robots.py runs every case below against it):

- it scores groups by "user-agent value found in our name at a word
  boundary", so ``User-agent: Web`` captures WebCrawler, ``Web*`` too, and
  ``User-agent: WebCrawler/1.0`` does not match it at all;
- any other record (``Crawl-delay``, ``Foo:``) ends a run of user-agent
  lines, which RFC 9309 2.2.4 forbids;
- it accepts ``Disallow /x`` (no colon) and ``Dissallow``, ``User agent``,
  which the RFC grammar does not;
- it ends lines at U+0085, U+2028, form feed... (``str.splitlines``), not
  only at CR, LF, CRLF; and a leading byte-order mark spoils the first line
  (ours drops a BOM, or any prefix of one, as Google's parser does);
- ``Allow: /d/index.html`` also allows ``/d/``; ``Disallow: /a$`` also
  disallows ``/a$b``;
- it decodes every escape to text: ``%FF`` and ``%FE`` both become U+FFFD
  and compare equal; yet ``/`` and ``%2F`` never match each other, not
  even in RFC 9309's own example (``?baz=https://foo.bar``), and a BOM cut
  short (U+FFFD) spoils the first line.

Choices where the RFC leaves room:

- a user-agent line names the leading run of letters, "_" and "-" of its
  value (``WebCrawler/1.0`` -> WebCrawler), as Google's reference parser does;
- only Allow/Disallow lines end a run of user-agent lines, so
  ``User-agent: *`` + ``Crawl-delay: 5`` + ``User-agent: WebCrawler`` +
  ``Disallow: /`` is one group naming both (Google's reference parser agrees);
- paths and queries compare after percent-encoding is made canonical, so
  that a character and its escape are equal (RFC 9309 2.2.2: reserved
  octets are compared percent-encoded, escapes of other ASCII octets
  decoded): escapes of unreserved and reserved characters are decoded,
  ``%2F`` and ``%3F`` included (the RFC's own example matches
  ``?baz=https://foo.bar`` with ``?baz=https%3A%2F%2Ffoo.bar``; a site that
  disallows ``/a/b`` means ``/a%2Fb`` too, which many servers route alike);
  other escapes are upper-cased; non-ASCII and must-escape characters
  (space, ``"<>\\^`{|}``, controls) are encoded as UTF-8 escapes; "*", "$",
  "#" and "%" stay escaped, since a literal one means something else, and
  "*" and "$" in a URL are escaped so that ``%2A``/``%24`` in a rule match
  them. Google's reference parser decodes nothing, so it departs here;
- precedence counts the octets of the normalised pattern, "*" and "$"
  included; on a tie Allow wins;
- ``Crawl-delay`` (not in the RFC) belongs to its group; when several groups
  apply, the largest delay wins;
- 429 is a 4xx like any other (allow all), as the RFC says.

Pure logic: it never touches the network or the database; the only I/O is
`check_file` reading the file it is given.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from webcrawler.errors import UsageError

logger = logging.getLogger(__name__)

MAX_BYTES = 500 * 1024  # RFC 9309 2.5: parse at least 500 KiB; we parse exactly that
ROBOTS_PATH = "/robots.txt"

_EOL = re.compile(r"\r\n|\r|\n")  # RFC 9309 EOL: LF, CR or CRLF, nothing else
_WS = " \t"
_TOKEN = re.compile(r"[A-Za-z_-]+")
_GLOBAL_AGENT = re.compile(r"\*(?:[ \t]|\Z)")
_DELAY = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)\Z")
_HEX2 = re.compile(r"[0-9A-Fa-f]{2}")
# What a byte-order mark, whole or cut short (EF BB), leaves at the start of
# the text: itself, U+FFFD once decoded with errors="replace", or its Latin-1
# reading "ï»¿". No record starts with these, so they are dropped.
_BOM_DEBRIS = re.compile("\\A[\ufeff\ufffd\u00ef\u00bb\u00bf]+")
_UTF8_BOM = b"\xef\xbb\xbf"
_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
# The characters compared as themselves, whether written plainly or escaped:
# unreserved and reserved (RFC 3986 2.2), less "*" and "$", which robots.txt
# gives a meaning, and "#", which starts a comment or a fragment.
_KEPT = _UNRESERVED | frozenset(":/?[]@!&'()+,;=")
_PLAIN = re.compile(r"[A-Za-z0-9\-._~:/?\[\]@!&'()+,;=]*")


class InvalidUserAgent(UsageError, ValueError):
    """The user agent does not start with a product token (letters, "_" and "-")."""


def product_token(user_agent: str) -> str:
    """The product token of a user agent: "WebCrawler/0.1 (+http://x)" -> "WebCrawler"."""
    token = re.split(r"[/\s]", user_agent.strip(), maxsplit=1)[0]
    if not _TOKEN.fullmatch(token):
        raise InvalidUserAgent(
            f"user agent {user_agent!r} must start with a product token made of "
            "letters, '_' and '-' (RFC 9309 2.2.1), e.g. 'WebCrawler/0.1'"
        )
    return token


@dataclass(frozen=True, slots=True)
class _Rule:
    """One Allow/Disallow pattern, split at its "*" wildcards."""

    allow: bool
    parts: tuple[str, ...]  # normalised literal pieces between wildcards
    anchored: bool  # the pattern ended with "$"
    length: int  # octets of the normalised pattern: the precedence

    @classmethod
    def compile(cls, allow: bool, pattern: str) -> _Rule:
        anchored = pattern.endswith("$")
        text = _normalize(pattern[:-1] if anchored else pattern, wildcards=True)
        return cls(allow, tuple(text.split("*")), anchored, len(text) + anchored)

    def matches(self, path: str) -> bool:
        """Does the pattern match `path` (normalised), from its first octet?"""
        first, *rest = self.parts
        if not path.startswith(first):
            return False
        if not rest:
            return path == first if self.anchored else True
        pos = len(first)
        for part in rest[:-1]:  # leftmost placement of each piece leaves the most room
            found = path.find(part, pos)
            if found < 0:
                return False
            pos = found + len(part)
        last = rest[-1]
        if self.anchored:
            return len(path) - len(last) >= pos and path.endswith(last)
        return path.find(last, pos) >= 0


@dataclass(slots=True)
class _Group:
    agents: list[str] = field(default_factory=list)  # lower-cased tokens, "*", or ""
    rules: list[_Rule] = field(default_factory=list)
    crawl_delay: float | None = None


@dataclass(frozen=True, slots=True)
class RobotsRules:
    """What one server's robots.txt lets the crawler with product token `token` do.

    Build it with `from_response`; `status` and `body` are what to store to
    build it again. `unavailable` is True when the server could not say
    (5xx or unreachable): everything is disallowed and the engine should try
    again later.
    """

    status: int | None
    body: str = field(repr=False)
    token: str
    unavailable: bool = False
    crawl_delay: float | None = None
    rules: tuple[_Rule, ...] = field(default=(), repr=False)
    # The rules by the literal text before their first "*" (only those that prefix a path
    # can match it), longest last: a 30,000-rule file costs a few lookups, not 30,000 tests.
    _index: tuple[tuple[int, dict[str, list[_Rule]]], ...] = field(
        init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", _index_rules(self.rules))

    @classmethod
    def from_response(cls, status: int | None, body: str, token: str) -> RobotsRules:
        """Rules from a robots.txt answer (RFC 9309 2.3.1).

        2xx: the body is parsed. 4xx (401 and 403 included): "unavailable",
        everything is allowed. 5xx or None (unreachable): "unreachable",
        everything is disallowed and `unavailable` is True. A 3xx means the
        agent gave up after five redirects, which RFC 9309 2.3.1.2 lets us
        treat as unavailable: allow all, like 4xx. Anything else (1xx, >599)
        is no answer at all, treated as unreachable.
        """
        token = product_token(token)
        if status is not None and 200 <= status < 300:
            body = _truncate(_BOM_DEBRIS.sub("", body, count=1))
            rules, delay = _select(_parse(body), token.lower())
            logger.debug("robots.txt: %d rules, crawl-delay %s for %s", len(rules), delay, token)
            return cls(status, body, token, crawl_delay=delay, rules=rules)
        if status is not None and 300 <= status < 500:
            return cls(status, "", token)
        return cls(status, "", token, unavailable=True, rules=(_Rule.compile(False, "/"),))

    def allowed(self, url_or_path: str) -> bool:
        """May the crawler fetch this URL ("http://h/p?q") or path ("/p?q")?"""
        path = _target(url_or_path)
        if path == ROBOTS_PATH:
            return True
        best: _Rule | None = None
        for length, by_first in self._index:
            if length > len(path):
                break
            for rule in by_first.get(path[:length], ()):
                if rule.matches(path) and (
                    best is None
                    or rule.length > best.length
                    or (rule.length == best.length and rule.allow)
                ):
                    best = rule
        return best is None or best.allow


def check_file(path: str | Path, user_agent: str, urls: Iterable[str]) -> list[tuple[bool, str]]:
    """Check `urls` against a local robots.txt, as crawler `user_agent` would.

    Raises OSError if the file cannot be read, InvalidUserAgent for a user
    agent without a product token.
    """
    body = decode_body(Path(path).read_bytes())
    rules = RobotsRules.from_response(200, body, product_token(user_agent))
    return [(rules.allowed(url), url) for url in urls]


def decode_body(data: bytes) -> str:
    """A robots.txt body as text: UTF-8, bad octets replaced, a byte-order mark dropped.

    A BOM cut short (EF, or EF BB) is dropped too, as Google's reference
    parser skips any prefix of it: otherwise its debris would join the
    first line, usually "User-agent: *", and make it unreadable.
    """
    for end in (3, 2, 1):
        if data.startswith(_UTF8_BOM[:end]):
            data = data[end:]
            break
    return data.decode("utf-8", errors="replace")


def format_check(results: Iterable[tuple[bool, str]]) -> str:
    """One line per URL, "allowed<TAB>URL" or "disallowed<TAB>URL", no final newline."""
    return "\n".join(f"{'allowed' if ok else 'disallowed'}\t{url}" for ok, url in results)


def _truncate(body: str) -> str:
    """The first MAX_BYTES octets of `body`, cut back to the end of a line.

    A body that reaches the limit was probably cut by the agent mid-line, so
    its last partial line is dropped rather than read as a shorter rule.
    """
    if len(body) * 4 < MAX_BYTES:  # no character is longer than four octets
        return body
    data = body.encode("utf-8", "surrogatepass")
    if len(data) < MAX_BYTES:
        return body
    head = data[:MAX_BYTES]
    cut = max(head.rfind(b"\n"), head.rfind(b"\r"))
    return head[: cut + 1].decode("utf-8", "surrogatepass")


def _index_rules(rules: tuple[_Rule, ...]) -> tuple[tuple[int, dict[str, list[_Rule]]], ...]:
    """The rules grouped by the length, then the text, of their first literal piece."""
    index: dict[int, dict[str, list[_Rule]]] = {}
    for rule in rules:
        first = rule.parts[0]
        index.setdefault(len(first), {}).setdefault(first, []).append(rule)
    return tuple(sorted(index.items()))


def _parse(body: str) -> list[_Group]:
    """The groups of a robots.txt (RFC 9309 2.1-2.2)."""
    groups: list[_Group] = []
    group: _Group | None = None
    taking_agents = False  # True while user-agent lines may still join `group`
    for line in _EOL.split(body):
        key, sep, value = line.partition("#")[0].partition(":")
        if not sep:
            continue  # blank, comment, or not a record: no effect on grouping
        key, value = key.strip(_WS).lower(), value.strip(_WS)
        if key == "user-agent":
            if group is None or not taking_agents:
                group = _Group()
                groups.append(group)
                taking_agents = True
            group.agents.append(_agent_of(value))
        elif group is None:
            continue  # records before the first user-agent line belong to no group
        elif key in ("allow", "disallow"):
            taking_agents = False
            if value:  # "Disallow:" with no path is a rule that matches nothing
                group.rules.append(_Rule.compile(key == "allow", value))
        elif key == "crawl-delay" and _DELAY.match(value):
            group.crawl_delay = max(float(value), group.crawl_delay or 0.0)
    return groups


def _agent_of(value: str) -> str:
    """The token a user-agent line names, lower-cased: "*", a product token or ""."""
    if _GLOBAL_AGENT.match(value):
        return "*"
    found = _TOKEN.match(value)
    return found.group().lower() if found else ""


def _select(groups: list[_Group], token: str) -> tuple[tuple[_Rule, ...], float | None]:
    """The rules and crawl delay of the groups naming `token`, else of the "*" groups."""
    chosen = [g for g in groups if token in g.agents] or [g for g in groups if "*" in g.agents]
    delays = [g.crawl_delay for g in chosen if g.crawl_delay is not None]
    return tuple(r for g in chosen for r in g.rules), max(delays, default=None)


def _target(url_or_path: str) -> str:
    """The normalised path and query of a URL or of a "/path?query"."""
    text = url_or_path.partition("#")[0]
    if not text.startswith("/"):
        scheme_end = text.find("://")
        if scheme_end >= 0:
            rest = text[scheme_end + 3 :]
            ends = [i for i in (rest.find("/"), rest.find("?")) if i >= 0]
            text = rest[min(ends) :] if ends else ""
        if not text.startswith("/"):
            text = "/" + text
    return _normalize(text, wildcards=False)


def _normalize(text: str, wildcards: bool) -> str:
    """Percent-encoding made canonical (RFC 9309 2.2.2, RFC 3986 6.2.2).

    With `wildcards`, "*" is kept (a pattern's wildcard); otherwise it is
    escaped like "$", so that a literal "*" in a URL matches "%2A" in a rule.
    """
    if _PLAIN.fullmatch(text):
        return text
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "%" and _HEX2.match(text, i + 1):
            octet = int(text[i + 1 : i + 3], 16)
            out.append(chr(octet) if chr(octet) in _KEPT else f"%{octet:02X}")
            i += 3
            continue
        if char in _KEPT or (wildcards and char == "*"):
            out.append(char)
        else:
            out.extend(f"%{octet:02X}" for octet in char.encode("utf-8", "surrogatepass"))
        i += 1
    return "".join(out)
