"""Opening a segment's terms file as Whoosh does, its directory of hash tables read at once.

A query server opens every segment's readers again at each commit it sees (Whoosh has no
reader of a segment that outlives its commit), and Whoosh's `HashReader` reads the
directory at the end of a terms file one entry at a time: 256 reads a segment, most of a
commit's open at twenty segments (docs/measurements.md). `terms_reader` makes the same
`W3TermsReader` (the same type: the fast paths check it) with the same state, the
directory read in one piece.
"""

from __future__ import annotations

from whoosh.codec import whoosh3
from whoosh.codec.base import Segment
from whoosh.filedb import filetables
from whoosh.filedb.filestore import Storage
from whoosh.filedb.structfile import StructFile
from whoosh.system import _INT_SIZE

MAGIC = b"HSH3"
_HEADER = len(MAGIC) + 1 + 2 * _INT_SIZE  # magic, hash type, two unused ints


def terms_reader(codec: whoosh3.W3Codec, storage: Storage, segment: Segment) -> whoosh3.W3TermsReader:
    """What `W3Codec.terms_reader` returns for `segment`."""
    name = segment.make_filename(codec.TERMS_EXT)
    length = storage.file_length(name)
    dbfile = storage.open_file(name)
    postfile = segment.open_file(storage, codec.POSTS_EXT)
    terms = whoosh3.W3TermsReader.__new__(whoosh3.W3TermsReader)
    terms._codec = codec
    terms._dbfile = dbfile
    terms._tindex = ordered_hash_reader(dbfile, length)
    terms._fieldmap = terms._tindex.extras["fieldmap"]
    terms._postfile = postfile
    terms._fieldunmap = [None] * len(terms._fieldmap)
    for fieldname, num in terms._fieldmap.items():
        terms._fieldunmap[num] = fieldname
    return terms


def ordered_hash_reader(dbfile: StructFile, length: int) -> filetables.OrderedHashReader:
    """`filetables.OrderedHashReader(dbfile, length)`, as its constructor leaves it."""
    reader = filetables.OrderedHashReader.__new__(filetables.OrderedHashReader)
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
