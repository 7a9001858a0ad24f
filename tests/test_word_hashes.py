"""A page's word hashes, found for all its words at once (`webcrawler/text/word_hashes.py`), are
each word's own `word_hash`, as the sketches stored by earlier crawls were made: whatever the
table held before, however full it is, and for words too long for it."""

from __future__ import annotations

import random
import re
from hashlib import blake2b

from webcrawler.text.tokens import spaced_words, utf8_words
from webcrawler.text.word_hashes import WIDE, WordTable, word_hash, word_hashes

TEXTS = [
    "",
    "one",
    "Plain ASCII text, with punctuation; and_underscores (x-1) 2024-11-26.",
    "Typographic ‘quotes’ — dashes – and a pilcrow¶ end… “here”",
    "东京は日本の首都です。中文文本，没有空格。" * 20,  # the regex's words, joined
    "exactly sixteen! sixteenletters16 seventeen_letters longer_than_sixteen_bytes_by_far "
    "ééééééééé ééééééé a 12345678 123456789",
    "the same words the same words the same words",
]
ALPHABET = list("abcXYZ019_ .,;:-\t\n") + ["é", "ß", "\u0301", "’", "日本", "٣", "\U0001f600"]


def _expected(text: str) -> list[int]:
    return [int.from_bytes(blake2b(re.sub(r"\d+", "#", w).encode("utf-8", "surrogatepass"),
                                   digest_size=8).digest(), "little")
            for w in re.findall(r"\w+", text.lower())]


def _random_texts(count: int) -> list[str]:
    rng = random.Random(36)
    words = ["".join(rng.choice(ALPHABET) for _ in range(rng.randint(1, 2 * WIDE)))
             for _ in range(300)]
    return [" ".join(rng.choice(words) for _ in range(rng.randint(0, 200))) for _ in range(count)]


def test_the_spaced_words_are_the_words() -> None:
    for text in TEXTS + _random_texts(200):
        assert spaced_words(text).split() == utf8_words(text), text


def test_each_word_hash_is_its_definition() -> None:
    digits_made_one = int.from_bytes(blake2b(b"#x#", digest_size=8).digest(), "little")
    assert word_hash(b"2026x11") == word_hash(b"7x3") == digits_made_one
    for text in TEXTS:
        assert word_hashes(spaced_words(text)).tolist() == _expected(text), text


def test_a_small_table_emptied_on_most_pages_gives_the_same_hashes() -> None:
    small, roomy = WordTable(slots=16), WordTable(slots=1 << 12)
    for text in _random_texts(300):
        spaced = spaced_words(text)
        expected = _expected(text)
        assert word_hashes(spaced, small).tolist() == expected
        assert word_hashes(spaced, roomy).tolist() == expected  # the second time: from the table
        assert small.count <= 8 and roomy.count <= 1 << 11
    assert roomy.count > 200  # the words of at most WIDE bytes were kept


def test_threads_sharing_a_table_get_each_words_own_hash() -> None:
    from concurrent.futures import ThreadPoolExecutor

    shared = WordTable(slots=64)  # emptied often: rows written while others read
    texts = _random_texts(200)
    with ThreadPoolExecutor(max_workers=4) as pool:
        found = list(pool.map(lambda text: word_hashes(spaced_words(text), shared).tolist(), texts))
    assert found == [_expected(text) for text in texts]
