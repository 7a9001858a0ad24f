"""Patterns for links and pages: Wildcard, Regexp and Tagexp (SPHINX section 2's Pattern).

- `Wildcard("http://host/faculty/*/home.html")`: Unix shell-style, `*` any
  run of characters (slashes included), `?` one character; matches the whole text.
- `Regexp(r"/introsml/.*\\.html$")`: Python `re` (SPHINX used Perl 5 syntax),
  searched anywhere in the text.
- `Tagexp("<li><a href></a></li>")`: a regular expression whose alphabet is
  the page's HTML tags. Text between tags is ignored; a tag in the pattern
  matches a tag of that name with at least the attributes it names
  (`<a href>`: has an href; `<div class=result>`: its class list holds
  "result"; `<input type=text>`: that exact value). `.` is any one tag;
  `*`, `+`, `?`, `{m,n}`, `|` and parentheses work on tags as `re` does on
  characters.

`matches(text)` says whether a URL (or, for Tagexp, a page's markup) matches;
`find(page)` returns the matches in `page.html` as `Region`s.
"""

from __future__ import annotations

import re
from typing import Any

from webcrawler.errors import ToolkitError
from webcrawler.toolkit.markup import Tag, tags
from webcrawler.toolkit.model import Page, Region

_PATTERN_TAG = re.compile(r"<(/?)([a-zA-Z][\w:-]*)((?:[^>\"']|\"[^\"]*\"|'[^']*')*)>")
_PATTERN_ATTRIBUTE = re.compile(r"""([^\s"'>/=]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+)))?""")


class Pattern:
    """A pattern over URLs, text or markup."""

    source: str

    def matches(self, text: str) -> bool:
        raise NotImplementedError

    def find(self, page: Page | str) -> list[Region]:
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.source!r})"


def _html_of(page: Page | str) -> str:
    return page if isinstance(page, str) else page.html


def _regions(found: Any, label: str) -> list[Region]:
    return [Region(m.start(), m.end(), {label}, {}) for m in found if m.end() > m.start()]


class Wildcard(Pattern):
    """Shell-style wildcards over the whole text (case-sensitive, as URLs are)."""

    def __init__(self, pattern: str) -> None:
        self.source = pattern
        self._whole = re.compile(wildcard_regex(pattern) + r"\Z", re.S)
        self._anywhere = re.compile(wildcard_regex(pattern), re.S)

    def matches(self, text: str) -> bool:
        return self._whole.match(text) is not None

    def find(self, page: Page | str) -> list[Region]:
        return _regions(self._anywhere.finditer(_html_of(page)), "wildcard")


def wildcard_regex(pattern: str) -> str:
    """`*` -> any run of characters (as few as will do), `?` -> one, `[...]` a class."""
    out, i = [], 0
    while i < len(pattern):
        char = pattern[i]
        if char == "*":
            out.append(".*?")
        elif char == "?":
            out.append(".")
        elif char == "[" and "]" in pattern[i + 2:]:
            end = pattern.index("]", i + 2)
            body = pattern[i + 1:end]
            out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


class Regexp(Pattern):
    """A Python regular expression, searched anywhere in the text."""

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self.source = pattern
        try:
            self._re = re.compile(pattern, flags)
        except re.error as error:  # re.error is no ValueError: callers would see a traceback
            raise ToolkitError(f"Regexp {pattern!r}: {error}") from None

    def matches(self, text: str) -> bool:
        return self._re.search(text) is not None

    def find(self, page: Page | str) -> list[Region]:
        return _regions(self._re.finditer(_html_of(page)), "regexp")


class Tagexp(Pattern):
    """A regular expression over the sequence of a page's tags (see the module docstring)."""

    def __init__(self, pattern: str) -> None:
        self.source = pattern
        self._re = re.compile(translate(pattern), re.S)

    def matches(self, text: str) -> bool:
        return self._re.search(encode(tags(text))) is not None

    def find(self, page: Page | str) -> list[Region]:
        """Each match as the region from its first tag's "<" to its last tag's ">"."""
        found = tags(_html_of(page))
        encoded, starts = encode(found), _token_starts(found)
        regions = []
        for match in self._re.finditer(encoded):
            if match.end() == match.start():
                continue
            first = _token_at(starts, match.start())
            last = _token_at(starts, match.end() - 1)
            regions.append(Region(found[first].start, found[last].end, {"tagexp"}, {}))
        return regions


# --- the tag alphabet --------------------------------------------------------
# A page becomes one string, each tag one token `<name attr="value" ...>` or
# `</name>`; values lose the characters the token syntax uses.

def _clean(value: str) -> str:
    return re.sub(r"[\"<>\s]+", " ", value).strip()


def _token(tag: Tag) -> str:
    if tag.closing:
        return f"</{tag.name}>"
    attrs = "".join(f' {k}="{_clean(v)}"' for k, v in tag.attributes.items() if re.fullmatch(r"[\w:.-]+", k))
    return f"<{tag.name}{attrs}>"


def encode(found: list[Tag]) -> str:
    return "".join(_token(tag) for tag in found)


def _token_starts(found: list[Tag]) -> list[int]:
    starts, offset = [], 0
    for tag in found:
        starts.append(offset)
        offset += len(_token(tag))
    return starts


def _token_at(starts: list[int], offset: int) -> int:
    import bisect

    return bisect.bisect_right(starts, offset) - 1


def translate(pattern: str) -> str:
    """A Tagexp pattern as a Python regex over `encode`d tag sequences.

    ValueError for a pattern with stray text (anything but tags, operators
    and white space).
    """
    out, position = [], 0
    for match in _PATTERN_TAG.finditer(pattern):
        out.append(_operators(pattern[position:match.start()], pattern))
        out.append(_tag_regex(match.group(1) == "/", match.group(2).lower(), match.group(3)))
        position = match.end()
    out.append(_operators(pattern[position:], pattern))
    return "".join(out)


def _operators(text: str, pattern: str) -> str:
    text = re.sub(r"\s+", "", text)
    if re.search(r"[^()*+?|{},.\d]", text):
        raise ToolkitError(f"Tagexp {pattern!r}: only tags and * + ? | ( ) {{m,n}} . may appear, "
                         f"not {text!r}")
    return text.replace(".", "(?:<[^>]*>)")


def _tag_regex(closing: bool, name: str, attribute_text: str) -> str:
    if closing:
        return f"(?:</{re.escape(name)}>)"
    checks = []
    for match in _PATTERN_ATTRIBUTE.finditer(attribute_text):
        attr = re.escape(match.group(1).lower())
        value = next((g for g in match.group(2, 3, 4) if g is not None), None)
        if value is None:
            checks.append(f'(?=[^>]* {attr}=")')
        elif attr == "class":
            words = "".join(rf'(?=[^"]*(?<=[" ]){re.escape(w)}(?=[" ]))' for w in value.split())
            checks.append(f'(?=[^>]* class="{words})')
        else:
            checks.append(f'(?=[^>]* {attr}="{re.escape(_clean(value))}")')
    return f"(?:<{re.escape(name)}(?=[ >]){''.join(checks)}[^>]*>)"
