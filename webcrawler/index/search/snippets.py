"""Result snippets: a short window of a document's text around the query's words.

The output is HTML-safe: every character of the document is escaped, and the
only markup is <b>..</b> around words of the query. The query's words are found
with str.find on the lower-cased text, a C-level scan per word (most queries are new,
and compiling a regex for each costs more than the scans); a text whose lower-casing
changes its length, or a word that is not all letters and digits, takes one
case-insensitive regex per query (cached) instead.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache

WINDOW = 200  # characters of text in a snippet
_WORD = re.compile(r"\w+")


@lru_cache(maxsize=256)
def _pattern(wanted: frozenset[str]) -> re.Pattern[str]:
    """Whole words of `wanted` (lower-case), in any case."""
    alternatives = "|".join(re.escape(w) for w in sorted(wanted, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def _is_word_char(char: str) -> bool:
    return char.isalnum() or char == "_"  # what \w matches in a str pattern


def _occurrences(text: str, wanted: frozenset[str]) -> list[tuple[int, str, int]]:
    """(start, word, end) of each whole-word occurrence of a wanted word, in order: str.find
    on the lower-cased text (a C scan per word; lower-casing must keep the offsets)."""
    lowered = text.lower()
    hits = []
    for word in wanted:
        at = lowered.find(word)
        while at >= 0:
            end = at + len(word)
            if (at == 0 or not _is_word_char(lowered[at - 1])) and (
                end == len(lowered) or not _is_word_char(lowered[end])
            ):
                hits.append((at, word, end))
            at = lowered.find(word, at + 1)
    hits.sort()
    return hits


def _best_start(text: str, hits: list[tuple[int, str, int]]) -> int:
    """Start of the window holding the most distinct query words (the first such window)."""
    best, best_count, left = 0, 0, 0
    for right in range(len(hits)):
        while hits[right][0] - hits[left][0] > WINDOW * 3 // 4:
            left += 1
        count = len({word for _, word, _end in hits[left : right + 1]})
        if count > best_count:
            best, best_count = hits[left][0], count
    if best <= WINDOW // 4:
        return 0
    space = text.find(" ", best - WINDOW // 4)
    return space + 1 if 0 <= space < best else best


def snippet(text: str, wanted: set[str], window: int = WINDOW) -> str:
    """An escaped window of `text` with the `wanted` words (lower-case) in <b>..</b>."""
    words = frozenset(wanted)
    if not words:
        hits: list[tuple[int, str, int]] = []
    elif len(text.lower()) == len(text) and all(_WORD.fullmatch(w) for w in words):
        hits = _occurrences(text, words)  # no regex to compile for a query seen once
    else:
        hits = [(m.start(), m.group().lower(), m.end()) for m in _pattern(words).finditer(text)]
    start = _best_start(text, hits)
    end = min(len(text), start + window)
    if end < len(text):
        space = text.rfind(" ", start, end)
        end = space if space > start + window // 2 else end
    out, last = [], start
    for at, _word, stop in hits:
        if at < last or stop > end:
            continue
        out.append(html.escape(text[last:at]))
        out.append(f"<b>{html.escape(text[at:stop])}</b>")
        last = stop
    out.append(html.escape(text[last:end]))
    prefix = "..." if start > 0 else ""
    suffix = "..." if end < len(text) else ""
    return prefix + "".join(out).strip() + suffix
