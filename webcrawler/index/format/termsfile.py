"""Opening a segment's terms file as Whoosh does, its directory of hash tables read at once.

A query server opens every segment's readers again at each commit it sees (Whoosh has no
reader of a segment that outlives its commit), and Whoosh's `HashReader` reads the
directory at the end of a terms file one entry at a time: 256 reads a segment, most of a
commit's open at twenty segments (docs/measurements.md). `terms_reader` makes the same
`W3TermsReader` (the same type: the fast paths check it) with the same state, the
directory read in one piece.

A term's place in the file is also remembered, per segment and across its commits
(`_RememberingHashReader`): a word query looks each of its words up in every segment
two or three times (its collection statistics, its posting list, proximity's blocks),
and at twenty segments these lookups, 5 us each in Whoosh's hash tables, were a tenth of
a rare word's query (docs/measurements.md). A segment's terms file never changes.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterator

from whoosh.codec import whoosh3
from whoosh.codec.base import Segment
from whoosh.filedb import filetables
from whoosh.filedb.filestore import Storage
from whoosh.filedb.structfile import StructFile
from whoosh.system import _INT_SIZE

MAGIC = b"HSH3"
_HEADER = len(MAGIC) + 1 + 2 * _INT_SIZE  # magic, hash type, two unused ints
REMEMBERED_TERMS = 2048  # terms remembered per segment (then forgotten all at once): at most
# about 300 bytes each, some 20 MB at most over `REMEMBERED_SEGMENTS`
REMEMBERED_SEGMENTS = 32  # segments whose terms are remembered, the least recent forgotten

_remembered: OrderedDict[str, dict[bytes, tuple]] = OrderedDict()
_remembering = threading.Lock()


class _RememberingHashReader(filetables.OrderedHashReader):
    """Whoosh's reader of a terms file, each key's (position, length) of its value
    remembered once found (or its absence): what every lookup of the reader and of the
    terms reader above it (`term_info`, `frequency`, `__contains__`) goes through."""

    __slots__ = ("remembered",)  # not in vars(): the reader's state stays Whoosh's

    def ranges_for_key(self, key: bytes) -> Iterator[tuple[int, int]]:
        found = self.remembered.get(key)
        if found is None:
            found = tuple(super().ranges_for_key(key))
            if len(self.remembered) >= REMEMBERED_TERMS:
                self.remembered.clear()
            self.remembered[key] = found
        return iter(found)


def _terms_of(segment: Segment) -> dict[bytes, tuple]:
    """The remembered places of `segment`'s terms, shared by every commit's reader of it."""
    key = segment.segment_id()
    with _remembering:
        found = _remembered.get(key)
        if found is None:
            found = _remembered[key] = {}
            while len(_remembered) > REMEMBERED_SEGMENTS:
                _remembered.popitem(last=False)
        else:
            _remembered.move_to_end(key)
        return found


def terms_reader(codec: whoosh3.W3Codec, storage: Storage, segment: Segment) -> whoosh3.W3TermsReader:
    """What `W3Codec.terms_reader` returns for `segment`."""
    name = segment.make_filename(codec.TERMS_EXT)
    length = storage.file_length(name)
    dbfile = storage.open_file(name)
    postfile = segment.open_file(storage, codec.POSTS_EXT)
    terms = whoosh3.W3TermsReader.__new__(whoosh3.W3TermsReader)
    terms._codec = codec
    terms._dbfile = dbfile
    terms._tindex = ordered_hash_reader(dbfile, length, _RememberingHashReader)
    terms._tindex.remembered = _terms_of(segment)
    terms._fieldmap = terms._tindex.extras["fieldmap"]
    terms._postfile = postfile
    terms._fieldunmap = [None] * len(terms._fieldmap)
    for fieldname, num in terms._fieldmap.items():
        terms._fieldunmap[num] = fieldname
    return terms


def ordered_hash_reader(dbfile: StructFile, length: int,
                        kind: type[filetables.OrderedHashReader] = filetables.OrderedHashReader,
                        ) -> filetables.OrderedHashReader:
    """`filetables.OrderedHashReader(dbfile, length)`, as its constructor leaves it (an
    instance of `kind`, Whoosh's class or ours)."""
    reader = object.__new__(kind)
    reader.dbfile, reader.startoffset, reader.is_closed = dbfile, 0, False
    if dbfile.get(0, len(MAGIC)) != MAGIC:
        raise filetables.FileFormatError(f"Unknown file header {dbfile.get(0, len(MAGIC))!r}")
    reader.hashtype = dbfile.get_byte(len(MAGIC))
    reader.hashfn = filetables._hash_functions[reader.hashtype]
    reader.startofdata = _HEADER
    extras_end = length - _INT_SIZE
    extras = extras_end - dbfile.get_int(extras_end)
    dbfile.seek(extras)
    reader._read_extras()  # the ordered reader's: its key index too
    directory = dbfile.get(extras - filetables._directory_size, filetables._directory_size)
    reader.tables = list(filetables._dir_entry.iter_unpack(directory))
    reader.endofdata = reader.tables[0][0]
    return reader
