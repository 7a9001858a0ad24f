"""Posting lists written as arrays beside Whoosh's blocks read back as the blocks say; a
block copied by a merge is the block Whoosh would write."""

from __future__ import annotations

import pickle
import random
from array import array
from pathlib import Path

import numpy as np
import pytest
from whoosh.codec import whoosh3

from webcrawler.index import IndexedDocument, open_writer
from webcrawler.index.format import vectors
from webcrawler.index.format.blocks import (
    extent,
    posting_blocks,
    raw_blocks,
    shift_block,
    shift_blocks,
    shift_docnums,
)
from webcrawler.index.format.opening import open_index
from webcrawler.index.format.schema import CONTENT


def test_arrays_agree_with_the_blocks_in_every_segment(tmp_path: Path) -> None:
    with open_writer(tmp_path / "ix") as writer:
        for start in range(0, 600, 200):  # three segments (the merge policy may join them)
            writer.add([
                IndexedDocument(i, f"http://h/{i}", f"title{i % 5}",
                                " ".join(f"w{k}" for k in range(i % 40)) + " common" * (i % 4 + 1), "h")
                for i in range(start + 1, start + 201)
            ])
            writer.commit()
        writer.delete(range(1, 600, 13))
    ix = open_index(tmp_path / "ix", create=False)
    with ix.reader() as top:
        long_lists = 0
        for reader, _offset in top.leaf_readers():
            terms = reader._terms
            for word in {t.decode() for f, t in reader.all_terms() if f == CONTENT}:
                ids, weights = vectors.postings(reader, CONTENT, word)
                raw = terms._tindex[terms._keycoder(CONTENT, word.encode())]
                info = whoosh3.W3TermInfo.from_bytes(raw)
                blocks = list(posting_blocks(terms._postfile.get(*extent(info))))
                want_ids = [d for b in blocks for d in b[0]]
                want_weights = [w for b in blocks for w in b[1]]  # type: ignore[attr-defined]
                assert ids.tolist() == want_ids, word
                assert weights.astype(np.float64).tolist() == want_weights, word
                marked = raw.endswith(vectors.MARK)
                assert marked == (len(want_ids) >= vectors.MIN_POSTINGS), word
                long_lists += marked
        assert long_lists > 10
    ix.close()


def test_a_list_in_python_types_encodes_as_numpy_arrays_do() -> None:
    """The term writer's lists (ints, an array("f") of the weights) give the bytes `encode`
    gives from NumPy arrays of the same postings: short lists none, long ones the same."""
    rng = random.Random(36)
    for count in (0, 1, vectors.MIN_POSTINGS - 1, vectors.MIN_POSTINGS, 40, 128):
        docnums = sorted(rng.sample(range(2_000_000), count))
        weights = [rng.choice([1.0, 3.0, 2.5, 1e-8, 123456.789, rng.random() * 50]) for _ in docnums]
        want = vectors.encode(np.array(docnums, np.int64), np.array(weights, np.float64))
        assert vectors.encode_list(tuple(docnums), array("f", weights)) == want
        assert len(want) == (8 * count if count >= vectors.MIN_POSTINGS else 0)


def test_a_missing_word_has_no_postings(tmp_path: Path) -> None:
    with open_writer(tmp_path / "ix") as writer:
        writer.add([IndexedDocument(1, "http://h/1", "t", "some words", "h")])
    ix = open_index(tmp_path / "ix", create=False)
    with ix.reader() as top:
        for reader, _offset in top.leaf_readers():
            ids, weights = vectors.postings(reader, CONTENT, "absent")
            assert len(ids) == len(weights) == 0
    ix.close()


@pytest.mark.parametrize("protocol", [2, 3])  # Whoosh's blocks; termwriter's (BODY_PROTOCOL)
def test_shifted_block_is_the_block_pickle_would_write(protocol: int) -> None:
    """Every width of pickled integer, before and after the shift, and every tuple size."""
    for first in (0, 5, 255, 256, 65535, 65536, 2**31 - 1):
        for base in (0, 1, 250, 70_000, 2**31):
            for length in (1, 2, 3, 4, 128):
                gaps = (first, *range(1, length))
                for weights, values in ((None, None), (2.0, b"ab" * length),
                                        (tuple([1.5] * length), (b"x", b"yz") * length)):
                    body = pickle.dumps((gaps, weights, values), protocol)
                    want = pickle.dumps(((first + base, *gaps[1:]), weights, values), protocol)
                    assert shift_docnums(body, base) == want, (first, base, length)


def test_a_shifted_block_is_its_header_and_body_pickled_again_with_docnums_shifted() -> None:
    """`shift_block` (a merge's one-block lists, not decoded) gives what decoding the block,
    shifting its header's last docnum and its first gap, and pickling both again gives, for
    every width of count and last docnum; a header it does not know (compressed, a weight
    that is not a float) is left to the caller (None)."""
    for count in (1, 200, 70_000):
        for last in (0, 255, 256, 65535, 65536, 2**31 - 1):
            for base in (0, 1, 70_000, 2**31):
                for top, low, high in ((1.0, 0, 0), (3.5, 17, 255)):
                    header = (count, last, top, 0, low, high)
                    body = pickle.dumps(((last, 1, 2), (top, 1.0, 1.0), (b"a", b"b", b"c")), 3)
                    block = pickle.dumps(header, 2) + body
                    size = (-len(block)).to_bytes(4, "big", signed=True)
                    [(_header, read_body)] = list(raw_blocks(whoosh3.WHOOSH3_HEADER_MAGIC + size + block))
                    want = pickle.dumps((count, last + base, top, 0, low, high), 2)
                    want += shift_docnums(read_body, base)
                    assert shift_block(block, base) == want, (count, last, base)
    body = pickle.dumps(((5,), None, None), 3)
    assert shift_block(pickle.dumps((1, 5, 1.0, 1, 0, 0), 2) + body, 3) is None  # compressed
    assert shift_block(pickle.dumps((1, 5, 1, 0, 0, 0), 2) + body, 3) is None  # an int weight
    assert shift_block(pickle.dumps((1, 5, 1.0, 0, 0, 0), 3) + body, 3) is None  # protocol 3


def test_new_blocks_keep_positions_as_bytes_and_whoosh_reads_them(tmp_path: Path) -> None:
    """termwriter pickles a block's body as protocol 3 (positions as bytes, not as calls of
    codecs.encode), and Whoosh's own matchers read them."""
    with open_writer(tmp_path / "ix") as writer:
        writer.add([IndexedDocument(n, f"http://h/{n}", "t", "alpha beta " * n, "h")
                    for n in range(1, 300)])
        writer.commit()
    ix = open_index(tmp_path / "ix", create=False)
    try:
        with ix.reader() as top:
            for reader, _offset in top.leaf_readers():
                info = reader._terms.term_info(CONTENT, b"alpha")
                start, length = extent(info)
                data = reader._terms._postfile.get(start, length)
                assert b"c_codecs" not in data and b"\x80\x03" in data
                matcher = reader.postings(CONTENT, b"alpha")
                assert isinstance(matcher, whoosh3.W3LeafMatcher)
                found = dict(matcher.items_as("positions"))
                assert [len(found[d]) for d in sorted(found)] == list(range(1, 300))
    finally:
        ix.close()


def test_a_list_copied_undecoded_is_the_list_decoded_and_pickled_again() -> None:
    """A merge's part (`merging._shifted`): the blocks of a many-block list copied without
    decoding (`shift_blocks`) are the blocks raw_blocks' decoding gives, with the same bodies
    kept for its arrays; a list with a block `shift_block` does not know (an int weight)
    takes the decoding way, with the same result as decoding by hand."""
    from webcrawler.index.format.merging import _shifted

    def framed(blocks: list[bytes]) -> bytes:
        sizes = [len(b) if i < len(blocks) - 1 else -len(b) for i, b in enumerate(blocks)]
        return whoosh3.WHOOSH3_HEADER_MAGIC + b"".join(
            size.to_bytes(4, "big", signed=True) + block for size, block in zip(sizes, blocks, strict=True))

    def block(first: int, top: object) -> bytes:
        body = pickle.dumps(((first, 1, 2), (1.0, 2.0, 1.0), None), 2)
        return pickle.dumps((3, first + 3, top, 0, 1, 9), 2) + body

    for top in (2.0, 2):  # a float top weight: copied; an int one: decoded
        data = framed([block(4, top), block(300, top), block(70_000, top)])
        want_blocks, want_bodies = [], []
        for (count, last, weight, _comp, low, high), body in raw_blocks(data):
            want_blocks.append(pickle.dumps((count, last + 1000, weight, 0, low, high), 2)
                               + shift_docnums(body, 1000))
            want_bodies.append(body)
        assert (shift_blocks(data, 1000) is None) == isinstance(top, int)
        assert _shifted(data, 1000, keep=True) == (want_blocks, want_bodies), top
        assert _shifted(data, 1000, keep=False) == (want_blocks, []), top
