"""Change detection: checksum for identical, shingles for trivial against real edits."""

from __future__ import annotations

from webcrawler.recrawl.changes import Change, classify
from webcrawler.shingles import SKETCH_SIZE, resemblance, shingles, sketch

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
