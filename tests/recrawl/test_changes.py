"""Change detection: checksum for identical, shingles for trivial against real edits."""

from __future__ import annotations

import re
from hashlib import blake2b

from webcrawler.recrawl.changes import Change, classify
from webcrawler.text import shingles as shingling
from webcrawler.text import word_hashes as hashing
from webcrawler.text.shingles import SHINGLE_WORDS, SKETCH_SIZE, resemblance, shingles, sketch
from webcrawler.text.word_hashes import WordTable

BODY = ("The committee met on Tuesday to discuss the new library building and its opening "
        "hours for students and visitors alike. ") * 3
PARAGRAPH = ("Members agreed that the reading room should stay open late during examinations, "
             "that the catalogue moves to the new system in spring, and that the old stacks are "
             "cleared before the builders arrive in the summer term.")
OTHER = ("Instead the meeting was cancelled because the roof of the hall leaked after the "
         "storm and nobody could find a dry room large enough for forty people on short notice, "
         "so everything was postponed until the repairs are finished next month.")


def page(stamp: str, paragraph: str = PARAGRAPH) -> str:
    return f"Last updated {stamp}. Visitors: 4711.\n{BODY}\n{paragraph}"


def test_digits_never_differ_in_shingles() -> None:
    assert shingles("updated 2026-11-23 12:00 by 7").tolist() == \
        shingles("updated 1999-01-02 03:04 by 8").tolist()
    assert shingles("a b c d e").tolist() != shingles("a b c e d").tolist()  # order counts


def test_sketch_is_compact_and_deterministic() -> None:
    signature = sketch(page("today"))
    assert len(signature) == 4 * (1 + min(SKETCH_SIZE, shingles(page("today")).size))
    distinct = " ".join(chr(97 + i % 26) + chr(97 + i // 26 % 26) + chr(97 + i // 676)
                        for i in range(2000))
    assert len(sketch(distinct)) == 4 * (SKETCH_SIZE + 1)  # at most k hashes, however long
    assert signature == sketch(page("today"))
    assert resemblance(signature, signature) == 1.0


def test_resemblance_is_the_shared_share_of_the_unions_smallest_hashes() -> None:
    """Broder's estimate, as sets say it: of the SKETCH_SIZE smallest hashes of the union of
    the two sketches, the share both hold; on pages that share some, all or none of their
    text, and on sketches cut at SKETCH_SIZE."""
    words = [f"w{i}x{i * 7 % 13}" for i in range(900)]
    texts = [" ".join(words[a:b]) for a, b in ((0, 900), (0, 450), (300, 900), (600, 900),
                                                (0, 20), (10, 30), (0, 0))]
    for left in texts:
        for right in texts:
            a, b = sketch(left), sketch(right)
            kept_a, kept_b = set(shingling._parts(a)[1].tolist()), set(shingling._parts(b)[1].tolist())
            if not kept_a and not kept_b:
                assert resemblance(a, b) == 1.0
                continue
            union = sorted(kept_a | kept_b)[:SKETCH_SIZE]
            expected = sum(h in kept_a and h in kept_b for h in union) / len(union)
            assert resemblance(a, b) == expected


def test_identical_checksum_is_unmodified() -> None:
    s = sketch(page("x"))
    assert classify("abc", s, "abc", s) is Change.UNMODIFIED


def test_timestamp_only_change_is_trivial() -> None:
    old, new = page("2026-11-23 10:00"), page("2026-11-24 17:45")
    assert classify("a", sketch(old), "b", sketch(new)) is Change.TRIVIAL


def test_edited_paragraph_is_a_change() -> None:
    old, new = page("2026-11-23 10:00"), page("2026-11-23 10:00", OTHER)
    assert classify("a", sketch(old), "b", sketch(new)) is Change.CHANGED


def test_without_a_stored_sketch_a_different_body_is_a_change() -> None:
    assert classify("a", None, "b", sketch(page("x"))) is Change.CHANGED


def reference_shingles(text: str) -> list[int]:
    """The shingles as the module's docstring defines them, one at a time in plain Python: the
    sketches stored by earlier crawls must still compare with new ones."""
    multiplier, mask = 0x9E3779B97F4A7C15, (1 << 64) - 1
    words = [int.from_bytes(blake2b(re.sub(r"\d+", "#", w).encode(), digest_size=8).digest(), "little")
             for w in re.findall(r"\w+", text.lower())]
    if not words:
        return []
    found = set()
    for start in range(max(1, len(words) - SHINGLE_WORDS + 1)):
        value = words[start]
        for offset in range(1, min(SHINGLE_WORDS, len(words))):
            value = (value * multiplier + words[start + offset]) & mask
        value ^= value >> 31
        found.add(((value * multiplier) & mask) >> 32)
    return sorted(found)


def test_shingles_match_their_definition_whatever_the_word_cache_holds(monkeypatch) -> None:
    texts = [page("today"), page("2026-11-26", OTHER), "Één café, 42 naïve words", "one", ""]
    for text in texts:
        assert shingles(text).tolist() == reference_shingles(text)
    small = WordTable(slots=16)  # holds 8 words: the cache is cleared on most pages
    monkeypatch.setattr(hashing, "_KNOWN", small)
    for text in texts:
        assert shingles(text).tolist() == reference_shingles(text)
    assert small.count <= 8  # emptied whenever full, within a page too
