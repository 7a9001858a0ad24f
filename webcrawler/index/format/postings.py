"""How the content field is turned into postings and written: the index's hot path.

Whoosh's generic path makes a `Token` per word, pickles each posting's positions
and reads each posting's document length back from disk while writing: most of
the indexing time (docs/measurements.md), so here:

- `ContentField` analyses a document in one pass (`analysis.index_words`: the
  lower-cased text's words as UTF-8 bytes, the terms' own form, a frozenset stop
  list) and builds the postings directly, with no Token objects. Title words weigh
  `TITLE_WEIGHT` each in the word's weight (a field-level boost would weigh the
  whole field; the weight of a word must count its title occurrences only), and
  count once in the document length.
- `WordPositions` stores a posting's positions as deltas in a byte string (one
  byte per position when the gaps are small) instead of a pickle.
- `ContentCodec` writes uncompressed posting blocks (no zlib on the query path)
  with `termwriter.TermWriter`: a term's whole list at a time, merged segments'
  blocks copied, long lists of the content field also as flat arrays.

Both classes are pickled into the index's table of contents: renaming or moving
them makes existing indexes unreadable. Indexes written with Whoosh's stock
`Positions` format stay readable (the schema is read from the index).
"""

from __future__ import annotations

import io
import struct
from array import array
from collections.abc import Iterable, Iterator
from itertools import accumulate
from operator import itemgetter, sub
from typing import Any

from whoosh import writing
from whoosh.codec import whoosh3
from whoosh.codec.base import Segment
from whoosh.fields import TEXT
from whoosh.filedb.filestore import Storage
from whoosh.filedb.structfile import StructFile
from whoosh.formats import Positions
from whoosh.util import random_name

from webcrawler.index.format import runs, termsfile
from webcrawler.index.format.analysis import TITLE_GAP, analyzer, index_words, parts
from webcrawler.index.format.commitwords import CommitWords, WordPostings
from webcrawler.index.format.merging import Posting
from webcrawler.index.format.runs import TermPostings
from webcrawler.index.format.termwriter import BLOCK, TermWriter

_ONE_BYTE = [b"B" + bytes((n,)) for n in range(256)]
_SHARED = {value: value for value in _ONE_BYTE}  # each value shared by its postings
_ONE_SHORT = struct.Struct("=H")
_EXACT = 2**20  # a part's weight below this, if whole, sums exactly in any order
# The pool's estimate of a document's words: what `CommitWords` held a word when it kept each
# word's bytes object (33 bytes and the word, in 16-byte steps: 48 for a word of up to 14
# bytes) and its slot in the commit's list (8). It now keeps a number a word (8 bytes) and
# each distinct word once with its number: 12 bytes a word of the million benchmark's pages,
# 119 when every word is distinct (then the commit's peak, 324-332 bytes a word, is what it
# was). Left as it was, so pools spill where they did (docs/measurements.md, branch
# s4-writer). The count of the document's words is known already; the previous estimate by
# its distinct words built a set of them a document.
WORD_BYTES = 56


def encode_positions(positions: list[int]) -> bytes:
    """Ascending positions -> a type byte and the gaps ("B": bytes, "H"/"I": arrays)."""
    if len(positions) == 1:  # most postings: a word once in the document
        first = positions[0]
        if first < 256:
            return _ONE_BYTE[first]
        if first < 65536:
            return b"H" + _ONE_SHORT.pack(first)
        return b"I" + array("I", positions).tobytes()
    gaps = [positions[0]]
    gaps += map(sub, positions[1:], positions)
    top = max(gaps)
    if top < 256:
        return b"B" + bytes(gaps)
    code = "H" if top < 65536 else "I"
    return code.encode() + array(code, gaps).tobytes()


def decode_positions(value: bytes) -> list[int]:
    code = value[:1]
    if code == b"B":
        return list(accumulate(value[1:]))
    gaps = array(code.decode())
    gaps.frombytes(value[1:])
    return list(accumulate(gaps))


_ITEM_SIZE = {b"B": 1, b"H": 2, b"I": 4}


class WordPositions(Positions):
    """Whoosh's Positions format with the compact encoding above."""

    def encode(self, poslist: Iterable[int]) -> bytes:
        return encode_positions(list(poslist))

    def decode_positions(self, valuestring: bytes) -> list[int]:
        return decode_positions(valuestring)

    def decode_frequency(self, valuestring: bytes) -> int:
        return (len(valuestring) - 1) // _ITEM_SIZE[valuestring[:1]]

    def decode_weight(self, valuestring: bytes) -> float:
        return self.decode_frequency(valuestring) * self.field_boost


def word_positions(value: str) -> tuple[dict[bytes, list[int]], dict[bytes, float]]:
    """(word -> positions, word -> weight beyond one per occurrence: the title's and the
    other weighted parts') for a str or a `TitledText`; words in UTF-8, as terms are."""
    positions: dict[bytes, list[int]] = {}
    get = positions.get
    boost: dict[bytes, float] = {}
    *weighted, (body, _one) = parts(value)
    start = 0
    for text, weight in weighted:
        found_words = index_words(text)
        for pos, word in enumerate(found_words, start):
            found = get(word)
            if found is None:
                positions[word] = [pos]
            else:
                found.append(pos)
            boost[word] = boost.get(word, 0.0) + weight - 1.0
        start += len(found_words) + TITLE_GAP
    for pos, word in enumerate(index_words(str(body)), start):
        found = get(word)
        if found is None:
            positions[word] = [pos]
        else:
            found.append(pos)
    return positions, boost


class ContentField(TEXT):
    """A TEXT field (positions, scorable) with the fast analysis and postings above."""

    def __init__(self) -> None:
        super().__init__(analyzer=analyzer(), phrase=True)
        self.format = WordPositions()

    def index(self, value: str, **kwargs: object) -> Iterator[tuple[bytes, int, float, bytes]]:
        positions, boost = word_positions(value)
        for word, poslist in positions.items():
            weight = len(poslist) + boost.get(word, 0.0)
            yield word, len(poslist), weight, encode_positions(poslist)

    def pool_postings(self, value: str, fieldname: str, docnum: int, pool: PostingPool) -> int:
        """Add one document's postings of this field to `pool`: its words, part by part
        (`PostingPool.add_words`), or, when a part's weight is not a whole number (whose
        sums would depend on their order), its postings (`PostingPool.add_terms`); returns
        the field's length in the document."""
        *weighted, (body, _one) = parts(value)
        if not all(float(weight).is_integer() and abs(weight) < _EXACT for _text, weight in weighted):
            positions, boost = word_positions(value)
            length = sum(map(len, positions.values()))
            pool.add_terms(fieldname, docnum, positions, boost, length)
            return length
        found: list[tuple[list[bytes], int, float]] = []
        start = 0
        for text, weight in weighted:
            words = index_words(text)
            found.append((words, start, weight - 1.0))
            start += len(words) + TITLE_GAP
        words = index_words(str(body))
        found.append((words, start, 0.0))
        length = sum(len(words) for words, _start, _extra in found)
        pool.add_words(fieldname, docnum, found, length)
        return length


class PostingPool(writing.PostingPool):
    """Whoosh's posting pool without its per-posting checks; sizes are estimated in bytes of
    Python objects, a content field's by its count of words (`WORD_BYTES`), so runs spill to
    disk at about the memory `limitmb` says.

    A `ContentField`'s postings are kept grouped by word as they are added (`add_terms`),
    each already as the term writer writes it, with its document's length (known here:
    Whoosh reads it back from the segment's length column, one posting at a time), instead
    of one tuple per posting sorted or grouped at commit time. Other fields' items (a few a
    document) are Whoosh's. A pool that spills writes what it holds grouped by term
    (`runs.py`), not Whoosh's run of one pickle a posting."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.current: list[tuple] = []  # Whoosh's items: other fields' postings
        self.runs: list[str] = []  # the runs spilled to `tempstore` (runs.py), oldest first
        self.words: dict[str, dict[bytes, list[Posting]]] = {}  # field -> word -> postings
        self.commit_words: dict[str, CommitWords] = {}  # field -> words not made postings yet
        self._merging: list[str] = []  # runs being merged into the segment (deleted as read)

    def add_words(self, fieldname: str, docnum: int, found: list[tuple[list[bytes], int, float]],
                  length: int) -> None:
        """Add one document's words of `fieldname`, part by part: (words, position of the
        first, each word's weight beyond one); `CommitWords` makes them postings."""
        words = self.commit_words.get(fieldname)
        if words is None:
            words = self.commit_words[fieldname] = CommitWords()
        words.add(docnum, found, length)
        self.currentsize += WORD_BYTES * length
        if self.currentsize > self.limit:
            self.save()

    def _grouped(self, fieldname: str | None = None) -> None:
        """The words added with `add_words` (of `fieldname`, or of every field) made into
        postings in `words`, after the postings there (added before them)."""
        for name in [fieldname] if fieldname is not None else list(self.commit_words):
            pending = self.commit_words.get(name)
            if not pending:
                continue
            made = pending.take(_ONE_BYTE)
            words = self.words.get(name)
            if not words:
                self.words[name] = made
                continue
            for word, postings in made.items():
                found = words.get(word)
                if found is None:
                    words[word] = postings
                else:
                    found += postings

    def add(self, item: tuple) -> None:
        self.current.append(item)
        self.currentsize += 160 + 2 * len(item[1]) + len(item[4] or b"")
        if self.currentsize > self.limit:
            self.save()

    def add_terms(self, fieldname: str, docnum: int, positions: dict[bytes, list[int]],
                  boost: dict[bytes, float], length: int) -> None:
        """Add one document's postings of `fieldname`: word -> positions, word -> extra weight."""
        self._grouped(fieldname)
        words = self.words.get(fieldname)
        if words is None:
            words = self.words[fieldname] = {}
        get, extra, encode = words.get, boost.get, encode_positions
        one_byte, one_short = _ONE_BYTE, _ONE_SHORT.pack
        for word, poslist in positions.items():
            if len(poslist) == 1:  # encode_positions' commonest cases, without the call
                first = poslist[0]
                value = one_byte[first] if first < 256 else (
                    b"H" + one_short(first) if first < 65536 else encode(poslist))
            else:
                value = encode(poslist)
            posting = (docnum, len(poslist) + extra(word, 0.0), value, length)
            found = get(word)
            if found is None:
                words[word] = [posting]
            else:
                found.append(posting)
        self.currentsize += WORD_BYTES * length  # as `add_words`: spills at the same size
        if self.currentsize > self.limit:
            self.save()

    def save(self) -> None:
        """Spill what the pool holds to a run on disk, grouped by term (`runs.py`)."""
        columns = self._columns()
        self._grouped()
        if not self.current and not self.words and not columns:
            return
        name = f"{random_name()}.run"
        runs.write_fields(self.tempstore, name, GroupedPostings(self.current, self.words, columns).fields())
        self.runs.append(name)
        self.current, self.words, self.currentsize = [], {}, 0

    def iter_postings(self) -> GroupedPostings | runs.MergedRuns:
        """The pool's postings for the term writer, grouped by term: in memory
        (`GroupedPostings`), or merged from the runs it spilled and what it still holds."""
        columns = self._columns()
        self._grouped()
        rest = GroupedPostings(self.current, self.words, columns)
        self.current, self.words = [], {}
        if not self.runs:
            return rest
        names, self.runs = self.runs, []
        self._merging = names
        return runs.MergedRuns(self.tempstore, names, rest.fields(), _SHARED, _ONE_BYTE)

    def _columns(self) -> dict[str, WordPostings]:
        """The postings of each field whose words are all `add_words`' (none `add_terms`'
        since the pool last gave or spilled its postings), as columns."""
        return {name: pending.take_columns(_ONE_BYTE) for name, pending in self.commit_words.items()
                if pending and not self.words.get(name)}

    def cleanup(self) -> None:
        """Delete the runs not merged (a commit given up); merged ones deleted themselves."""
        for name in self.runs + self._merging:
            if self.tempstore.file_exists(name):
                self.tempstore.delete_file(name)
        self.runs = []


class GroupedPostings:
    """A commit's postings grouped by term with a dict instead of sorted one by one (a
    segment has far fewer terms than postings). Each term's postings stay in the order
    they were added, which is docnum order: documents are numbered as they are added,
    and a merged segment's documents after them. `words`: the postings the pool grouped
    already (`PostingPool.add_terms`), each with its document's length; the others' lengths
    are the term writer's to find (None). `columns`: a field's postings made at once from
    its words (`commitwords.WordPostings`), for a field with no others in the commit."""

    def __init__(self, items: list[tuple], words: dict[str, dict[bytes, list[Posting]]],
                 columns: dict[str, WordPostings] | None = None) -> None:
        self._items = items
        self._grouped_words = words
        self._columns = columns or {}

    def terms(self) -> Iterator[TermPostings]:
        """((fieldname, btext), postings, whether each posting has its length) by term, sorted."""
        return runs.terms_of(self.fields())

    def fields(self) -> Iterator[tuple[str, WordPostings | Iterator[TermPostings]]]:
        """(fieldname, its terms as `terms` yields them, or its `WordPostings`) by field, sorted."""
        groups: dict[tuple[str, bytes], list[tuple[int, float, bytes | None]]] = {}
        get = groups.get
        for fieldname, btext, docnum, weight, value in self._items:
            if docnum == -1:  # a spelling word, not a posting (never written by Whoosh 2.7)
                continue
            found = get((fieldname, btext))
            if found is None:
                groups[(fieldname, btext)] = [(docnum, weight, value)]
            else:
                found.append((docnum, weight, value))
        self._items = []
        by_field: dict[str, set[bytes]] = {}  # sorted by field, then by word: the terms' order
        for fieldname, btext in groups:
            by_field.setdefault(fieldname, set()).add(btext)
        columns = {name: made for name, made in self._columns.items() if name not in by_field}
        words = self._grouped_words
        for name, made in self._columns.items():
            if name in by_field:  # beside postings the pool did not group: made tuples among them
                words[name] = made.postings()
        self._grouped_words, self._columns = {}, {}
        for fieldname, grouped_words in words.items():
            by_field.setdefault(fieldname, set()).update(grouped_words)
        for fieldname in sorted(by_field.keys() | columns.keys()):
            if fieldname in columns:
                yield fieldname, columns.pop(fieldname)
            else:
                yield fieldname, self._field_terms(fieldname, by_field.pop(fieldname), groups,
                                                   words.get(fieldname, {}))

    @staticmethod
    def _field_terms(fieldname: str, btexts: set[bytes], groups: dict[tuple[str, bytes], list],
                     grouped_words: dict[bytes, list[Posting]]) -> Iterator[TermPostings]:
        pop = grouped_words.pop
        for btext in sorted(btexts):
            term = (fieldname, btext)
            found = groups.pop(term, None) if groups else None
            grouped = pop(btext, None)
            if found is None:
                yield term, grouped or [], True
            elif grouped is None:
                yield term, found, False
            else:  # a merged segment's postings decoded into the pool, beside new documents'
                both = found + [posting[:3] for posting in grouped]
                yield term, sorted(both, key=itemgetter(0)), False


def add_document(writer: writing.SegmentWriter, fields: dict[str, Any]) -> None:
    """Whoosh's `SegmentWriter.add_document` for this index's fields (no boosts, no
    spelling or vector fields): a `ContentField`'s postings go to the pool as one list
    (`ContentField.pool_postings`, `PostingPool.add_terms`) instead of one call per posting."""
    writer._check_state()
    perdoc = writer.perdocwriter
    schema = writer.schema
    docnum = writer.docnum
    pool = writer.pool
    perdoc.start_doc(docnum)
    try:
        for fieldname in sorted(fields):
            value = fields[fieldname]
            if value is None:
                continue
            field = schema[fieldname]
            length = 0
            if isinstance(field, ContentField):
                length = field.pool_postings(value, fieldname, docnum, pool)
            elif field.indexed:
                scorable = field.scorable
                for tbytes, freq, weight, vbytes in field.index(value):
                    if scorable:
                        length += freq
                    pool.add((fieldname, tbytes, docnum, weight, vbytes))
            perdoc.add_field(fieldname, field, value if field.stored else None, length)
            if field.column_type:
                perdoc.add_column_value(fieldname, field.column_type, field.to_column_value(value))
    except Exception:
        perdoc.cancel_doc()
        raise
    perdoc.finish_doc()
    writer._added = True
    writer.docnum += 1


def close_files(writer: writing.SegmentWriter, failure: BaseException) -> None:
    """Close the files `writer`'s segment holds open (its terms and postings files, its columns'
    temporary file, its vectors) and those Whoosh was writing when `failure` came (held only
    by its traceback's frames), writing nothing more: what is left of a writer whose cancel
    failed on a full disk, whose files would otherwise stay open until collected. A file
    whose buffer cannot be flushed is closed all the same (io closes the descriptor)."""
    fields, perdoc = writer.fieldwriter, writer.perdocwriter
    files = [getattr(fields, "_postfile", None), getattr(getattr(fields, "_tindex", None), "dbfile", None),
             getattr(getattr(perdoc, "_cols", None), "_temp", None), getattr(perdoc, "_vpostfile", None)]
    frame = failure.__traceback__
    while frame is not None:
        files += [v for v in frame.tb_frame.f_locals.values() if isinstance(v, (io.IOBase, StructFile))]
        frame = frame.tb_next
    for file in files:
        if file is not None and not getattr(file, "is_closed", False):  # a StructFile closes once
            try:
                file.close()
            except OSError:
                pass


def fast_pool(writer: writing.SegmentWriter) -> writing.SegmentWriter:
    """`writer` with the pool above (call before adding anything)."""
    old = writer.pool
    writer.pool = PostingPool(old.tempstore, old.segment, limitmb=old.limit // (1024 * 1024))
    writer.pool.fieldnames = old.fieldnames
    return writer


class ContentCodec(whoosh3.W3Codec):
    """Whoosh's W3 codec, uncompressed, with the length lookups above."""

    def __init__(self) -> None:
        super().__init__(blocklimit=BLOCK, compression=0)

    def field_writer(self, storage: Storage, segment: Segment) -> TermWriter:
        return TermWriter(self, storage, segment)

    def terms_reader(self, storage: Storage, segment: Segment) -> whoosh3.W3TermsReader:
        return termsfile.terms_reader(self, storage, segment)  # the same reader, opened faster
