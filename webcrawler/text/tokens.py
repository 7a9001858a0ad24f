r"""The words of a text as `\w+` finds them in its lower case, each in UTF-8, found with bytes
methods: the one tokenisation of the index's analysis (`index/format/analysis.py`) and of the
shingle sketches (`shingles.py`), which the regex made the largest part of both.

The characters outside ASCII that `\w` does not match (typographic quotes, dashes,
pilcrows: a few distinct ones in most pages; found by deleting the ASCII bytes from the
text's UTF-8, not by a regex over the whole text) are replaced by spaces, then every ASCII
byte that is not a word character, and the bytes are split at the spaces. A text mostly
outside ASCII is left to the regex (classifying its many distinct characters would cost
more); an ASCII text is made lower case by the same byte table, and so is a text whose
characters outside ASCII are none of them in a word, lower case or not, once they are spaces
(no `str.lower()`). The result is the regex's, word for word (tests/test_tokens.py).
"""

from __future__ import annotations

import re
from functools import lru_cache

WORD = re.compile(r"\w+")
_ASCII = bytes(range(0x80))  # deleted from a text's UTF-8 bytes, its other characters are left
# Every ASCII byte that `\w` does not match becomes a space; other bytes stay.
_ASCII_NOT_WORD = bytes(b if b >= 0x80 or chr(b).isalnum() or b == ord("_") else 0x20 for b in range(256))
# The same for an ASCII text, upper case bytes made lower case on the way (no str.lower()).
_ASCII_LOWER_NOT_WORD = bytes(b + 0x20 if 0x41 <= b <= 0x5A else _ASCII_NOT_WORD[b] for b in range(256))
_FEW_NOT_ASCII = 16  # a text with more than one non-ASCII byte in this many is tokenised by WORD


def utf8_words(text: str) -> list[bytes]:
    r"""`[w.encode() for w in WORD.findall(text.lower())]`, cheaper."""
    spaced = _spaced(text)
    return spaced.split() if isinstance(spaced, bytes) else _regex_words(spaced)


def spaced_words(text: str) -> bytes:
    """The words of `utf8_words(text)` in one bytes string, separated by ASCII spaces (one or
    more): for a reader of the whole page at once (word_hashes.py), no bytes object a word."""
    spaced = _spaced(text)
    return spaced if isinstance(spaced, bytes) else b" ".join(_regex_words(spaced))


def _spaced(text: str) -> bytes | str:
    """The text's UTF-8 with every byte that is not part of a word made a space, or, for a text
    mostly outside ASCII, its lower case (str) for the regex."""
    if text.isascii():
        return text.encode().translate(_ASCII_LOWER_NOT_WORD)
    data = text.encode("utf-8", "surrogatepass")
    if (len(data) - len(text)) * _FEW_NOT_ASCII <= len(text):
        others = set(data.translate(None, _ASCII).decode("utf-8", "surrogatepass"))
        if all(map(_never_in_a_word, others)):  # most pages: quotes, dashes, pilcrows
            for char in others:
                text = text.replace(char, " ")
            return text.encode().translate(_ASCII_LOWER_NOT_WORD)
    low = text.lower()
    if not low.isascii():
        data = low.encode("utf-8", "surrogatepass")
        if (len(data) - len(low)) * _FEW_NOT_ASCII > len(low):
            return low
        for char in set(data.translate(None, _ASCII).decode("utf-8", "surrogatepass")):
            if not WORD.fullmatch(char):
                low = low.replace(char, " ")
    return low.encode("utf-8", "surrogatepass").translate(_ASCII_NOT_WORD)


@lru_cache(maxsize=8192)  # bounded: a hostile page may hold thousands of distinct symbols
def _never_in_a_word(char: str) -> bool:
    """Is `char` outside every word, in its lower case too? Then a text whose characters
    outside ASCII are all such is its ASCII words once they are spaces: lowered by the byte
    table, without `str.lower()` of the whole text (a third of a page's words' cost)."""
    return not WORD.fullmatch(char) and not WORD.search(char.lower())


def _regex_words(low: str) -> list[bytes]:
    return [word.encode("utf-8", "surrogatepass") for word in WORD.findall(low)]
