"""The words of the index's analysis and of shingle sketches are what `\\w+` finds in the
lower-cased text, as sketches stored by earlier crawls and indexes built before were made
(`webcrawler/text/tokens.py` finds them with bytes methods instead of the regex): the same words,
whatever the text holds."""

from __future__ import annotations

import random
import re

import pytest

from webcrawler.index.format.analysis import MAX_WORD, index_words, words
from webcrawler.text.shingles import resemblance, sketch
from webcrawler.text.tokens import utf8_words

WORD = re.compile(r"\w+")

TRICKY = [
    "",
    "   \t\n ",
    "Plain ASCII text, with punctuation; and_underscores (x-1) 2024-11-26.",
    "Typographic ‘quotes’ — dashes – and a pilcrow¶ end… “here”",
    "İstanbul ǅemal ﬁne ß Σίσυφος: case folding that changes length",
    "e\u0301 combining marks, a\u00a0no-break space, a zero\u200bwidth space",
    "digits ٣٤٥ and Ⅻ and x² + y²",
    "東京は日本の首都です。中文文本，没有空格。" * 20,
    "Русский текст с пунктуацией — и цифрами 123.",
    "mixed 東京 ascii ½ \ud800 lone surrogate",
    "UPPER CASE ASCII @AZ[`az{ _Zz_ 0-9",
    "the Kelvin sign \u212a lowers to ASCII",
]
ALPHABET = list("abcXYZ019_ .,;:'\"-\t\n/") + ["é", "İ", "ß", "\u0301", "\u00a0", "’", "—", "¶", "日本",
                                               "٣", "Ⅻ", "ﬁ", "\u200b", "²", "ǅ", "Σ", "\U0001f600"]


def _expected(text: str) -> list[bytes]:
    return [word.encode("utf-8", "surrogatepass") for word in WORD.findall(text.lower())]


@pytest.mark.parametrize("text", TRICKY)
def test_the_words_are_the_regex_words(text: str) -> None:
    assert utf8_words(text) == _expected(text)


def test_random_texts_give_the_regex_words() -> None:
    rng = random.Random(25)
    for _ in range(2000):
        text = "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 300)))
        assert utf8_words(text) == _expected(text), text
        assert index_words(text) == [word.encode() for word in words(text)], text


def test_the_index_keeps_words_of_at_most_max_word_characters_however_many_bytes() -> None:
    long_ascii, long_accented = "x" * (MAX_WORD + 1), "é" * MAX_WORD  # 41 bytes, 80 bytes
    text = f"the {long_ascii} {long_accented} {'é' * (MAX_WORD + 1)} kept"
    assert index_words(text) == [long_accented.encode(), b"kept"]
    assert index_words(text) == [word.encode() for word in words(text)]


def test_a_page_and_its_copy_with_other_punctuation_resemble_each_other() -> None:
    found = [f"{word}{n % 7}" for n in range(300) for word in ("alpha", "beta", "gamma")]
    text, dashed = " ".join(found), " — ".join(f"‘{word}’" for word in found)
    assert resemblance(sketch(text), sketch(dashed)) == 1.0  # quotes, dashes: not words
    assert resemblance(sketch(text), sketch(text.upper())) == 1.0


def test_mostly_ascii_texts_with_a_few_other_characters_give_the_regex_words() -> None:
    """The byte path (few characters outside ASCII, each lowered on its own): its cases are
    the characters whose lower case is longer, ASCII, or not a word (İ, the Kelvin sign, ¶)."""
    rng = random.Random(36)
    ascii_part = list("abcXYZ019_ .,;:'\"-\t\n/") * 8
    for _ in range(2000):
        text = "".join(rng.choice(ascii_part + ALPHABET[-17:]) for _ in range(rng.randint(0, 300)))
        assert utf8_words(text) == _expected(text), text
