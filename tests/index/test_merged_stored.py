"""A merged segment stores each document's fields in the order a new document's are stored
(by name), whatever the process's string hash seed: the same documents give the same bytes."""

from __future__ import annotations

from pathlib import Path

from webcrawler.index import IndexedDocument, open_writer
from webcrawler.index.format.opening import open_index


def test_merged_documents_keep_their_stored_fields_in_name_order(tmp_path: Path) -> None:
    index_dir = tmp_path / "ix"
    with open_writer(index_dir) as writer:
        for start in (1, 11, 21):
            writer.add([IndexedDocument(i, f"http://h.test/{i}", f"page {i}", f"words of page {i}", "h.test")
                        for i in range(start, start + 10)])
            writer.commit()
        writer.delete([5])  # a segment with a deletion is merged too
        writer.optimize()
    ix = open_index(index_dir, create=False)
    try:
        with ix.reader() as reader:
            assert len(list(reader.leaf_readers())) == 1 and reader.doc_count() == 29
            stored = [reader.stored_fields(n) for n in reader.all_doc_ids()]
    finally:
        ix.close()
    assert {field.get("doc_id") for field in stored} == {str(i) for i in range(1, 31) if i != 5}
    for fields in stored:
        assert list(fields) == sorted(fields) and {"doc_id", "url", "title", "text"} <= set(fields)
