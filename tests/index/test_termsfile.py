"""A segment's terms file opened with its hash directory read at once (termsfile.py): the
reader is Whoosh's, in the state Whoosh's constructor leaves it, and finds every term."""

from __future__ import annotations

from pathlib import Path

import pytest
from whoosh.codec import whoosh3
from whoosh.filedb import filetables
from whoosh.filedb.structfile import BufferFile

from webcrawler.index import IndexedDocument, open_writer
from webcrawler.index.format import termsfile
from webcrawler.index.format.opening import open_index
from webcrawler.index.format.postings import ContentCodec


def _index(path: Path) -> None:
    with open_writer(path) as writer:
        for first in (1, 40):  # two commits: two segments
            writer.add([IndexedDocument(n, f"http://t.test/{n}", f"Page {n}", f"word{n} shared text {n % 7}",
                                        "t.test") for n in range(first, first + 39)])
            writer.commit()


def test_the_reader_is_whoosh_s_in_whoosh_s_state(tmp_path: Path) -> None:
    _index(tmp_path / "ix")
    ix = open_index(tmp_path / "ix", create=False)
    segments = ix._segments()
    assert len(segments) == 2
    for segment in segments:
        assert isinstance(segment.codec(), ContentCodec)  # whose terms_reader is termsfile's
        storage = segment.open_compound_file(ix.storage) if segment.is_compound() else ix.storage
        name = segment.make_filename(whoosh3.W3Codec.TERMS_EXT)
        length = storage.file_length(name)
        dbfile = storage.open_file(name)
        ours = termsfile.ordered_hash_reader(dbfile, length)
        whooshs = filetables.OrderedHashReader(dbfile, length)
        assert type(ours) is type(whooshs) and vars(ours) == vars(whooshs)
        dbfile.close()
    with ix.reader() as reader:
        for sub, _offset in reader.leaf_readers():
            ours = sub._terms
            assert type(ours) is whoosh3.W3TermsReader  # the fast paths check the type
            segment = sub.segment()
            storage = segment.open_compound_file(ix.storage) if segment.is_compound() else ix.storage
            whooshs = whoosh3.W3Codec.terms_reader(segment.codec(), storage, segment)
            assert vars(ours).keys() == vars(whooshs).keys()
            for name in ("_codec", "_fieldmap", "_fieldunmap"):
                assert getattr(ours, name) == getattr(whooshs, name)
            assert vars(ours._tindex).keys() == vars(whooshs._tindex).keys()
            assert ours._tindex.tables == whooshs._tindex.tables
            whooshs.close()
        assert reader.doc_frequency("content", "shared") == 78
        assert sorted(reader.lexicon("content"))[:2] == [b"0", b"1"]


def test_a_file_that_is_not_a_terms_file_is_refused() -> None:
    junk = BufferFile(b"JUNK" + bytes(4096))
    with pytest.raises(filetables.FileFormatError, match="JUNK"):
        termsfile.ordered_hash_reader(junk, 4100)


def test_the_term_writer_s_terms_file_is_the_one_whoosh_writes() -> None:
    """termwriter's `_TermIndex` (records written a few thousand at a time, their positions'
    array typed at once) writes the bytes Whoosh's OrderedHashWriter writes, with positions
    past 65,535 (Whoosh's growable array retyped from "H") and across several flushes."""
    import io

    from whoosh.filedb.structfile import StructFile

    from webcrawler.index.format.termwriter import _TermIndex

    records = [(b"\x00\x01term%06d" % n, b"info" * (n % 9)) for n in range(9000)]

    def written(ours: bool) -> bytes:
        out = io.BytesIO()
        tindex = filetables.OrderedHashWriter(StructFile(out))
        add, _add_many, finish = _TermIndex.adders(tindex) if ours else (tindex.add, None, lambda: None)
        for key, value in records:
            add(key, value)
        finish()
        tindex._write_hashes()  # close's steps, without closing the BytesIO
        tindex._write_directory()
        tindex._write_extras()
        return out.getvalue()

    whooshs = written(False)
    assert len(whooshs) > 65_536
    assert written(True) == whooshs


def test_terms_added_many_at_a_time_write_the_file_whoosh_writes() -> None:
    """`_TermIndex.add_many` (the term writer's columns path: a few thousand terms a call,
    mixed with single adds) writes what Whoosh's OrderedHashWriter writes, and refuses keys
    that do not increase as Whoosh's `add` does."""
    import io

    from whoosh.filedb.structfile import StructFile

    from webcrawler.index.format.termwriter import _TermIndex

    records = [(b"\x00\x01term%06d" % n, b"info" * (n % 9)) for n in range(9000)]

    def written(ours: bool) -> bytes:
        out = io.BytesIO()
        tindex = filetables.OrderedHashWriter(StructFile(out))
        if ours:
            add, add_many, finish = _TermIndex.adders(tindex)
            add(*records[0])
            for first in range(1, len(records), 3000):
                chunk = records[first : first + 3000]
                add_many([key for key, _value in chunk], [value for _key, value in chunk])
            finish()
            with pytest.raises(ValueError, match="Keys must increase"):
                add_many([b"\x00\x01term000001"], [b""])
        else:
            for key, value in records:
                tindex.add(key, value)
        tindex._write_hashes()  # close's steps, without closing the BytesIO
        tindex._write_directory()
        tindex._write_extras()
        return out.getvalue()

    assert written(True) == written(False)


def test_remembered_places_of_terms_are_whoosh_s_and_shared_between_commits(tmp_path: Path) -> None:
    """A term's place in the terms file is remembered per segment once looked up (and a
    missing term's absence): the same answers as Whoosh's own reader, for every term, a
    second time too, and a later commit's reader of the same segment finds them remembered."""
    _index(tmp_path / "ix")
    ix = open_index(tmp_path / "ix", create=False)
    with ix.reader() as reader:
        sub = reader.leaf_readers()[0][0]
        segment = sub.segment()
        storage = segment.open_compound_file(ix.storage) if segment.is_compound() else ix.storage
        whooshs = whoosh3.W3Codec.terms_reader(segment.codec(), storage, segment)
        terms = [key for key, _value in whooshs._tindex.items()]
        assert len(terms) > 40
        for _round in range(2):
            for key in [*terms, b"\x00\x00no such term", b"\x00\x01word999"]:
                ours = sub._terms._tindex
                assert list(ours.ranges_for_key(key)) == list(whooshs._tindex.ranges_for_key(key))
                assert (key in sub._terms._tindex) == (key in whooshs._tindex)
        assert sub._terms.frequency("content", b"shared") == whooshs.frequency("content", b"shared")
        whooshs.close()
        remembered = sub._terms._tindex.remembered
        assert set(terms) <= remembered.keys() and remembered[b"\x00\x00no such term"] == ()
    with ix.reader() as again:  # a new reader of the same segment, as a new commit opens
        same = next(s for s, _offset in again.leaf_readers()
                    if s.segment().segment_id() == segment.segment_id())
        assert same._terms._tindex.remembered is remembered
    ix.close()
