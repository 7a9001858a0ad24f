"""A merge that copies posting blocks gives the merged lists what new lists get: arrays
exactly when the merged list is long enough (each part short or not), the same postings,
and every document's field lengths as its old segment had them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from whoosh.codec import whoosh3

from webcrawler.index import IndexedDocument, open_writer
from webcrawler.index.format import vectors
from webcrawler.index.format.blocks import extent, posting_blocks
from webcrawler.index.format.opening import open_index
from webcrawler.index.format.schema import CONTENT


def _doc(i: int) -> IndexedDocument:
    words = ["spread"] if i % 2 else []  # ten a segment: 30 merged (arrays), none before
    words += ["some"] if i % 5 == 0 else []  # four a segment: 12 merged, still too short
    words += [f"own{i}"] * (i % 3 + 1)  # one document's word, weights above 1
    words += ["long"] * (1 + i % 5) if i <= 30 else []  # 20 + 10: arrays, then in the merged list
    return IndexedDocument(i, f"http://h.test/{i}", f"page {i}", " ".join(words), "h.test")


def _lists(index_dir: Path) -> tuple[int, dict[str, tuple[list[int], list[float], bool]], dict[str, int]]:
    """(segments, each content word's (doc_ids, weights, has arrays), each doc_id's length)."""
    ix = open_index(index_dir, create=False)
    lists: dict[str, tuple[list[int], list[float], bool]] = {}
    lengths: dict[str, int] = {}
    try:
        with ix.reader() as top:
            leaves = list(top.leaf_readers())
            for reader, _offset in leaves:
                terms = reader._terms
                doc_id = {n: reader.stored_fields(n)["doc_id"] for n in reader.all_doc_ids()}
                for n, key in doc_id.items():
                    lengths[key] = reader.doc_field_length(n, CONTENT)
                for word in {t.decode() for f, t in reader.all_terms() if f == CONTENT}:
                    raw = terms._tindex[terms._keycoder(CONTENT, word.encode())]
                    info = whoosh3.W3TermInfo.from_bytes(raw)
                    blocks = list(posting_blocks(terms._postfile.get(*extent(info))))
                    ids = [d for b in blocks for d in b[0]]
                    weights = [float(w) for b in blocks for w in b[1]]  # type: ignore[attr-defined]
                    arrays = vectors.has_arrays(raw)
                    if arrays:
                        got_ids, got_weights = vectors.postings(reader, CONTENT, word)
                        assert got_ids.tolist() == ids, word
                        assert got_weights.astype(np.float64).tolist() == weights, word
                    live = [k for k, d in enumerate(ids) if d in doc_id]
                    old = lists.get(word, ([], [], False))
                    lists[word] = (old[0] + [doc_id[ids[k]] for k in live],
                                   old[1] + [weights[k] for k in live], old[2] or arrays)
    finally:
        ix.close()
    return len(leaves), lists, lengths


@pytest.mark.parametrize("deleted", [[], [7]])  # a segment with a deletion is renumbered
def test_merged_lists_are_the_lists_a_merge_copies(tmp_path: Path, deleted: list[int]) -> None:
    index_dir = tmp_path / "ix"
    with open_writer(index_dir) as writer:
        for start in (1, 21, 41):
            writer.add([_doc(i) for i in range(start, start + 20)])
            writer.commit()
        writer.delete(deleted)
        writer.commit()
        segments, before, lengths_before = _lists(index_dir)
        writer.optimize()
    merged_segments, after, lengths_after = _lists(index_dir)
    assert segments == 3 and merged_segments == 1
    assert not before["spread"][2] and not before["some"][2] and before["long"][2]
    assert after["spread"][2] and not after["some"][2] and after["long"][2]
    assert {word: sorted(zip(*lists[:2], strict=True)) for word, lists in after.items()} == \
        {word: sorted(zip(*lists[:2], strict=True)) for word, lists in before.items() if lists[0]}
    assert lengths_after == lengths_before and len(lengths_after) == 60 - len(deleted)
