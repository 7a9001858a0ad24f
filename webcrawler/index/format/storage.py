"""Where the index's files are read from: segments memory-mapped, never copied.

Whoosh memory-maps a compound segment file (`.seg`) and then wraps each file
inside it in a `BytesIO`, which copies it: opening a searcher copied the whole
index into memory, and so did every segment read for a merge. Reading with plain file
reads instead keeps a file handle open per segment until its reader is closed,
and costs a system call per lookup. `IndexStorage` maps each segment file once
and hands Whoosh file objects that read straight from the map: opening is cheap,
nothing is copied, and closing the segment's last reader unmaps it.

A query server opens every segment's reader again at each commit (Whoosh has no reader
that outlives its commit), while most segments stay the same: a segment's map is
shared by all the readers open on it (`_SharedMap`), so that a new commit maps only
its new segments, and closing the commit it replaces unmaps only the segments that
went away. Unmapping a segment whose pages queries have touched takes milliseconds of
CPU, and the new map's pages would be faulted in again (docs/measurements.md).

`MemoryStorage` is the other place an index lives: in memory, for the real-time search's
small anchor-text index (`search/anchors.py`).
"""

from __future__ import annotations

import mmap
import os
import threading
from array import array

from whoosh.filedb.filestore import FileStorage, RamStorage
from whoosh.filedb.structfile import BufferFile, StructFile

from webcrawler.index.format.fastpaths import note

SEGMENT_SUFFIX = ".seg"  # Whoosh's compound segment files


class IndexStorage(FileStorage):
    """A FileStorage whose segment files are read from a memory map, without copies."""

    def __init__(self, path: str) -> None:
        # False keeps Whoosh's CompoundStorage from mapping (and copying) by itself: it
        # asks the file for `subset`s instead, which MappedFile answers from its map.
        super().__init__(path, supports_mmap=False)
        self._maps: dict[str, _SharedMap] = {}  # segment file name -> its map, while open
        self._maps_lock = threading.Lock()

    def open_file(self, name: str, **kwargs: object) -> StructFile:
        if not name.endswith(SEGMENT_SUFFIX):
            return super().open_file(name, **kwargs)
        with open(self._fpath(name), "rb") as raw:
            identity = os.fstat(raw.fileno())
            with self._maps_lock:
                shared = self._maps.get(name)
                if shared is not None and shared.same_file(identity):
                    shared.users += 1
                    note("storage.shared")
                    return MappedFile(shared.mapped, 0, len(shared.mapped), name, owner=shared)
            try:
                mapped = mmap.mmap(raw.fileno(), 0, access=mmap.ACCESS_READ)
            except ValueError:  # an empty file cannot be mapped
                return super().open_file(name, **kwargs)
        shared = _SharedMap(self, name, mapped, identity)
        with self._maps_lock:
            self._maps.setdefault(name, shared)  # another thread's, if it mapped it meanwhile
        return MappedFile(mapped, 0, len(mapped), name, owner=shared)

    def _unmapped(self, shared: _SharedMap) -> None:
        """`shared` has no reader left: forget it (lock held)."""
        if self._maps.get(shared.name) is shared:
            del self._maps[shared.name]


class _SharedMap:
    """One segment file's map and how many open files read it; unmapped with the last."""

    def __init__(self, storage: IndexStorage, name: str, mapped: mmap.mmap,
                 identity: os.stat_result) -> None:
        self.storage, self.name, self.mapped = storage, name, mapped
        self._identity = _identity(identity)
        self.users = 1

    def same_file(self, identity: os.stat_result) -> bool:
        """Whether `identity` is the file this maps (not another written under its name)."""
        return self._identity == _identity(identity)

    def release(self) -> None:
        with self.storage._maps_lock:
            self.users -= 1
            if self.users:
                return
            self.storage._unmapped(self)
        try:
            self.mapped.close()
        except BufferError:  # a view still reads it: unmapped when the last one goes
            note("storage.close_deferred")


def _identity(stat: os.stat_result) -> tuple[int, int, int, int]:
    return stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns


class MappedFile(BufferFile):
    """Bytes [base, base + length) of a memory map, as a Whoosh file: reads copy only what
    they return; `subset` makes another view of the same map."""

    def __init__(
        self, mapped: mmap.mmap, base: int, length: int, name: str | None = None,
        owner: _SharedMap | None = None,
    ) -> None:
        self._mapped, self._base, self._length = mapped, base, length
        self._owner = owner  # the whole file, as opened: closing it lets go of the map
        self._name = name
        self.file = _MapReader(mapped, base, length)
        self.onclose = None
        self.is_real = False
        self.is_closed = False

    def subset(self, position: int, length: int, name: str | None = None) -> MappedFile:
        note("storage.subset")
        return MappedFile(self._mapped, self._base + position, length, name or self._name)

    def get(self, position: int, length: int) -> bytes:
        start = self._base + position
        return self._mapped[start : min(start + length, self._base + self._length)]

    def view(self, position: int, length: int) -> memoryview:
        """Bytes [position, position + length) without a copy: numpy arrays over a posting
        list read the page cache directly. While a view lives, the map stays mapped
        (`close` leaves the unmapping to the last view's release)."""
        start = self._base + position
        return memoryview(self._mapped)[start : min(start + length, self._base + self._length)]

    def get_array(self, position: int, typecode: str, length: int) -> array:
        return BufferFile.get_array(self, position, typecode, length)

    def close(self) -> None:
        """Closing the whole file (Whoosh does when the segment's reader closes) lets go of
        its map, which the last reader's close unmaps, releasing its file descriptor;
        closing a subset only marks the subset closed."""
        if self._owner is not None and not self.is_closed:
            self._owner.release()
        self.is_closed = True


class _MapReader:
    """read/readline/readinto/seek/tell over part of a map (what StructFile and pickle use)."""

    def __init__(self, mapped: mmap.mmap, base: int, length: int) -> None:
        self._mapped, self._base, self._end = mapped, base, base + length
        self._pos = base

    def read(self, size: int | None = -1) -> bytes:
        end = self._end if size is None or size < 0 else min(self._end, self._pos + size)
        data = self._mapped[self._pos : end]
        self._pos = max(self._pos, end)
        return data

    def readline(self, size: int | None = -1) -> bytes:
        newline = self._mapped.find(b"\n", self._pos, self._end)
        end = self._end if newline < 0 else newline + 1
        if size is not None and size >= 0:
            end = min(end, self._pos + size)
        return self.read(end - self._pos)

    def readinto(self, buffer: bytearray | memoryview) -> int:
        data = self.read(len(buffer))
        buffer[: len(data)] = data
        return len(data)

    def seek(self, offset: int, whence: int = 0) -> int:
        origin = (self._base, self._pos, self._end)[whence]
        self._pos = max(self._base, origin + offset)
        return self._pos - self._base

    def tell(self) -> int:
        return self._pos - self._base

    def close(self) -> None:
        pass


class MemoryStorage(RamStorage):
    """RamStorage whose writers keep their scratch files in memory too: stock RamStorage puts
    them in one shared /tmp/MAIN.tmp, a race between two anchor indexes built at once."""

    def temp_storage(self, name: str | None = None) -> RamStorage:
        return RamStorage()
