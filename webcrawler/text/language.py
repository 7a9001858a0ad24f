"""Which natural language a document is written in, for the index's analysis and facets.

py3langid (langid.py's naive Bayes over byte n-grams; the model ships inside its wheel,
nothing is fetched) reads the start of the text: a page's language shows in its first
paragraphs, and reading more costs time on every page. A text too short to tell, or a
guess the model is not sure of, gives "" (unknown): a wrong language would send the
document to the wrong stemmer and the wrong facet, an unknown one only to neither.
Agents call this in their own processes; the index's writer calls it for documents that
arrive without a language. Never touches the network, the database or the index.

The model ships packed (xz): unpacking it is most of the cost of loading it, paid by every
process that detects, which is every crawl's index writer. So it is unpacked once (a copy per
model, named by the packed file's contents) into the user's cache (`$XDG_CACHE_HOME/webcrawler`,
else `~/.cache/webcrawler`) and read from there afterwards; where that cannot be written or
read, the packed model is read as before. A model whose walk is vectorised (`WALK_DEPTHS`) is
kept with its weights already as float32 (what `_walked` casts them to), and its two large
tables (the weights, 57 MB, and the automaton's moves, 39 MB) are mapped from the copy, not
read: a writer that detects a few hundred pages touches a fraction of their pages, and the
cast, a copy of each table and the reading were most of its start (about 0.15 s of CPU). Their
zip checksums are checked as reading them checked them.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import logging
import lzma
import os
import re
import shutil
import struct
import tempfile
import threading
import time
import zipfile
import zlib
from array import array
from functools import cache
from pathlib import Path
from typing import Any

SAMPLE_CHARS = 600  # of the text, after the title: enough for a confident guess
# An unsure guess looks again at this much: a reference page's first 600 characters are
# often a table of identifiers (errno's EPERM ENOENT ..., an index's "A (in module re)"),
# which left 21 of 848 English pages of the test web `unknown`; 8,000 characters reach
# its prose (1 of 848 left, a page of 219 characters). BENCHMARKS.md, "Language detection".
LONG_SAMPLE_CHARS = 8000
MIN_LETTERS = 20  # fewer letters than this: too short to tell
MIN_PROBABILITY = 0.5
# Matches when the text holds MIN_LETTERS letters: stops at the last one needed, where
# counting them all made a list of every character of the sample.
_ENOUGH_LETTERS = re.compile(rf"(?:[\W\d_]*[^\W\d_]){{{MIN_LETTERS}}}")
_UNPACKED_PREFIX = "py3langid-model-"
# The depth of the automaton of each packed model known (by the file's size: py3langid
# 0.3-0.4's model.npz.xz), which `_walked` needs; tests/test_language_model.py measures it.
WALK_DEPTHS = {4586720: 6}
_ABANDONED_SECONDS = 600.0  # a half-unpacked copy this old was left by a killed process
_UNUSABLE = (OSError, RuntimeError, ValueError, KeyError, EOFError, lzma.LZMAError, zipfile.BadZipFile)

log = logging.getLogger(__name__)


@cache
def _identifier() -> Any:
    """The model, loaded once per process with probabilities normalised: from its unpacked
    copy in the cache when there is one or one can be made, else from the packed file."""
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    unpacked = None
    packed = Path(MODEL_DIR, MODEL_FILE)
    depth = WALK_DEPTHS.get(packed.stat().st_size)
    walked = _walked(LanguageIdentifier, depth)
    try:
        unpacked = _unpacked(packed, widened=depth is not None)
        return _from_unpacked(walked, unpacked, mapped=depth is not None)
    except _UNUSABLE as exc:
        log.debug("the unpacked language model is not usable (%s): reading the packed one", exc)
        if unpacked is not None:  # damaged: the next process unpacks it again
            with contextlib.suppress(OSError):
                unpacked.unlink(missing_ok=True)
        return walked.from_model_file(MODEL_FILE, norm_probs=True)


def _walked(identifier: Any, depth: int | None) -> Any:
    """py3langid's identifier whose walk of the model's automaton over a sample's bytes is
    done by NumPy, all bytes at once, when the automaton's `depth` is known (else its own
    walk, a Python loop over the bytes, most of a detection's time).

    The automaton is Aho-Corasick's over the model's byte n-grams: its state after a byte
    is the longest suffix of the bytes read so far that is a prefix of an n-gram, which
    `depth` bytes decide. So every byte's state is the state reached from the start state
    by the `depth` bytes ending at it: `depth` vectorised steps, the same states, and the
    same features counted in the same order (first occurrence, as py3langid's `Counter`),
    hence the same scores."""
    if depth is None:
        return identifier

    import numpy as np

    steps = depth

    class Walked(identifier):
        __slots__ = ("_moves", "_rows", "_features", "_scratch", "_firsts", "_pairs")

        def __init__(self, nb_ptc: Any, *args: Any, **kwargs: Any) -> None:
            # The model's feature weights ship as float16, which the score's product casts
            # to float32, row by row, on every call (NumPy converts halves in software):
            # cast once here. The same float32 values enter the same product, so the scores
            # are the same to the bit; the table takes twice the memory (28 -> 57 MB).
            super().__init__(np.asarray(nb_ptc, dtype=np.float32), *args, **kwargs)
            self._moves = np.frombuffer(self.tk_nextmove, dtype=np.dtype(self.tk_nextmove.typecode)) \
                if isinstance(self.tk_nextmove, array) else np.asarray(self.tk_nextmove)
            self._rows = np.asarray(self._rowbase, dtype=np.intp)
            self._features = np.asarray(self.tk_output, dtype=np.int64)
            self._scratch = threading.local()
            # the state after one byte from the start, and after two (indexed by the pair,
            # first byte high): the walk's first two steps in one look-up of a 512 KB table
            self._firsts = self._moves[self._rows[0] + np.arange(256)].astype(np.intp)
            self._pairs = self._moves[(self._rows[self._firsts][:, None] + np.arange(256)).ravel()] \
                .astype(np.intp)

        def _tables(self) -> tuple[Any, Any]:
            """This thread's two tables indexed by feature (where a feature first occurs,
            its count), made once: a table made a call (800 KB each) was a fresh mapping of
            memory, and each of its pages the sample's features touched a page fault, about
            half of a short sample's detection. A call reads only the entries it set first."""
            tables = getattr(self._scratch, "tables", None)
            if tables is None:
                size = len(self.nb_ptc)
                tables = self._scratch.tables = (np.empty(size, np.intp), np.empty(size, np.intp))
            return tables

        def _raw_score(self, text: bytes) -> Any:
            data = np.frombuffer(text, np.uint8)
            n = len(data)
            states = np.zeros(n, np.intp)
            deepest = min(steps, n) - 1  # each byte's state: from the start, this many before
            if deepest == steps - 1 > 1:  # the first two of those bytes by their pair
                pair = data[: n - deepest].astype(np.intp)
                pair <<= 8
                pair |= data[1 : n - deepest + 1]
                states[deepest:] = self._pairs[pair]
                states[deepest - 1] = self._firsts[data[0]]
                deepest -= 2
            for back in range(deepest, -1, -1):  # the byte `back` before each
                moves = self._rows[states[back:]]
                moves += data[: n - back]
                states[back:] = self._moves[moves]
            features = self._features[states]
            features = features[features >= 0]
            if not len(features):
                return super()._raw_score(b"")
            # py3langid's _sparse_score of Counter(features): each feature's count, the
            # features in the order they first occur (a Counter's), counted by NumPy in
            # tables indexed by feature, where np.unique sorted the features (4x the time):
            # only the entries of the sample's features are set, so none is made whole
            n = len(features)
            at = np.arange(n)
            first, counts = self._tables()
            first[features] = n
            np.minimum.at(first, features, at)  # where each feature first occurs
            found = features[first[features] == at]  # each feature once, in that order
            counts[found] = 0
            np.add.at(counts, features, 1)
            return np.log1p(counts[found].astype(np.float32)) @ self.nb_ptc[found] + self.nb_pc

    return Walked


def cache_dir() -> Path:
    """Where the unpacked model is kept: the user's cache, shared by every crawl and checkout."""
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "webcrawler"


def _unpacked(packed: Path, widened: bool = False) -> Path:
    """The unpacked copy of the model file `packed` in the cache, made if missing (written
    whole under another name, then renamed: a reader never sees half of it); `widened`: its
    weights stored as float32 (another copy's name). Copies of other model files (an upgraded
    py3langid) are removed, and half copies left long ago; the same model's other form stays."""
    folder = cache_dir()
    model = f"{_UNPACKED_PREFIX}{packed.stat().st_size}-{_digest(packed)}"
    path = folder / f"{model}{'-float32' if widened else ''}.npz"
    if path.exists():
        return path
    folder.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".unpacking-", delete=False) as part:
        try:
            with lzma.open(packed) as source:
                if widened:
                    _widen(source, part)
                else:
                    shutil.copyfileobj(source, part, 1 << 20)
            part.close()
            os.replace(part.name, path)
        except BaseException:
            os.unlink(part.name)
            raise
    for old in folder.glob(f"{_UNPACKED_PREFIX}*.npz"):
        # the same model's other form stays: an older webcrawler beside this one reads it, and
        # removing each other's would have each unpack its own again in every crawl
        if old.name not in (f"{model}.npz", f"{model}-float32.npz"):
            old.unlink(missing_ok=True)
    for part_left in folder.glob(".unpacking-*"):  # of a process killed while unpacking
        with contextlib.suppress(OSError):
            if time.time() - part_left.stat().st_mtime > _ABANDONED_SECONDS:
                part_left.unlink()
    return path


def _widen(source: Any, target: Any) -> None:
    """The model's arrays from `source` (an .npz) written to `target` uncompressed, its
    weights as float32: the same values `_walked` casts them to, stored once."""
    import numpy as np

    with np.load(io.BytesIO(source.read()), allow_pickle=False) as data:
        arrays = {name: data[name] for name in data.files}
    arrays["ptc"] = arrays["ptc"].astype(np.float32)
    np.savez(target, **arrays)


def _digest(packed: Path) -> str:
    """What names a model file's copy: its contents' digest (4 ms), not its modification time,
    so that every installation of the same model (each virtual environment has its own file,
    made at its own time) shares one copy, where each removed the others' and unpacked its
    own again (0.4-0.6 s of an index writer's start, in every crawl of a machine with two)."""
    with packed.open("rb") as source:
        return hashlib.file_digest(source, "sha256").hexdigest()[:16]


def _from_unpacked(identifier: Any, path: Path, mapped: bool = False) -> Any:
    """The identifier py3langid's `from_model_file` builds, from the unpacked arrays (the
    same conversions as its `modelio.load_model`, without the unpacking); `mapped`: the
    weights and the moves mapped from the copy (the walked identifier reads them as NumPy
    arrays), not read."""
    import numpy as np

    with np.load(path, allow_pickle=False) as data:
        if mapped:
            ptc, moves = _mapped(path, "ptc"), _mapped(path, "nextmove")
            moves = moves.view(f"u{moves.dtype.itemsize}")
        else:
            ptc, moves = np.asarray(data["ptc"]), _unsigned(data["nextmove"])
        return identifier(ptc, np.asarray(data["pc"]), data["classes"].tolist(), moves,
                          data["out_feat"].tolist(), norm_probs=True,
                          tk_row=_unsigned(data["nextmove_row"]))


def _mapped(path: Path, name: str) -> Any:
    """The array `name` of the uncompressed .npz at `path`, mapped read-only from the file
    (np.load maps a lone .npy only): where its member's data starts, behind the zip's local
    header and the array's own, after its checksum is found right. ValueError otherwise."""
    import numpy as np

    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(f"{name}.npy")
    if info.compress_type != zipfile.ZIP_STORED:
        raise ValueError(f"{name} is compressed")
    with path.open("rb") as file:
        file.seek(info.header_offset)
        local = file.read(30)
        if local[:4] != b"PK\x03\x04":
            raise ValueError(f"{name}: no local header")
        start = info.header_offset + 30 + sum(struct.unpack("<HH", local[26:30]))
        whole = np.memmap(path, dtype=np.uint8, mode="r", offset=start, shape=(info.file_size,))
        if zlib.crc32(whole.data) != info.CRC:
            raise ValueError(f"{name}: bad checksum")
        file.seek(start)
        version = np.lib.format.read_magic(file)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) \
            else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read_header(file)
        offset = file.tell()
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape,
                     order="F" if fortran else "C")


def _unsigned(values: Any) -> array:
    """A NumPy array of unsigned integers as a stdlib array (the model's walk indexes it one
    item at a time, which a stdlib array does faster)."""
    out = array({2: "H", 4: "I", 8: "L"}[values.dtype.itemsize])
    out.frombytes(values.tobytes())
    return out


def detect(title: str, text: str) -> str:
    """The ISO 639-1 code of the language of `title` and `text` ("en", "de", ...), or "".
    The start of the text first; when the model is not sure of it, a longer sample (only
    unsure pages pay for it), held to the same bar."""
    for size in (SAMPLE_CHARS, LONG_SAMPLE_CHARS):
        sample = f"{title}\n{text[:size]}"
        if not _ENOUGH_LETTERS.match(sample):
            return ""
        language, probability = _identifier().classify(sample)
        if probability >= MIN_PROBABILITY:
            return str(language)
        if len(text) <= size:
            break
    return ""
