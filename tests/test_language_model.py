"""The language model is unpacked once into the user's cache and read from there after; a
cache that cannot be written, or a damaged copy in it (then removed), falls back to the packed
model. Each case runs in a fresh process (the model is loaded once per process)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

TEXTS = ["The harbour master keeps the ships in order before the sun rises over the town.",
         "Der Hafenmeister sorgt dafür, dass die Schiffe in Ordnung sind, jeden Morgen.",
         "Le maître du port veille à ce que les navires soient en ordre chaque matin.",
         "El capitán del puerto mantiene los barcos en orden cada mañana temprano."]

# Every text's (language, probability) from the cache's model and from py3langid's own loading.
PROBE = f'''
from py3langid.langid import MODEL_FILE, LanguageIdentifier
from webcrawler.text.language import _identifier
ours, theirs = _identifier(), LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
for text in {TEXTS!r}:
    assert ours.classify(text) == theirs.classify(text), text
    print(ours.classify(text)[0])
'''


def _probe(cache: Path) -> list[str]:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    return subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True,
                          timeout=120, check=True).stdout.split()


def test_the_model_is_unpacked_once_and_detects_as_the_packed_one(tmp_path: Path) -> None:
    assert _probe(tmp_path) == ["en", "de", "fr", "es"]
    [copy] = (tmp_path / "webcrawler").iterdir()
    made = copy.stat().st_mtime_ns
    assert _probe(tmp_path) == ["en", "de", "fr", "es"]  # read from the copy, not made again
    assert [p.stat().st_mtime_ns for p in (tmp_path / "webcrawler").iterdir()] == [made]


def test_a_damaged_copy_falls_back_to_the_packed_model(tmp_path: Path) -> None:
    _probe(tmp_path)
    [copy] = (tmp_path / "webcrawler").iterdir()
    copy.write_bytes(copy.read_bytes()[: 1 << 20])  # cut short
    assert _probe(tmp_path) == ["en", "de", "fr", "es"]
    assert not copy.exists()  # removed, so that the next process unpacks the model again
    _probe(tmp_path)
    assert copy.stat().st_size > 1 << 20


def test_a_cache_that_cannot_be_written_falls_back_to_the_packed_model(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert _probe(blocked) == ["en", "de", "fr", "es"]


def test_a_copy_of_another_model_file_and_an_old_half_copy_are_removed(tmp_path: Path) -> None:
    folder = tmp_path / "webcrawler"
    folder.mkdir()
    old = folder / "py3langid-model-1-2.npz"
    old.write_bytes(b"an older model's copy")
    abandoned, unpacking = folder / ".unpacking-abandoned", folder / ".unpacking-now"
    abandoned.write_bytes(b"half a model, its process killed an hour ago")
    os.utime(abandoned, (time.time() - 3600, time.time() - 3600))
    unpacking.write_bytes(b"half a model, another process is unpacking it now")
    _probe(tmp_path)
    assert not old.exists() and not abandoned.exists()
    assert unpacking.exists()
    assert len(list(folder.glob("py3langid-model-*.npz"))) == 1


def test_the_vectorised_walk_knows_the_model_and_scores_as_py3langid() -> None:
    """`WALK_DEPTHS` holds the installed model's automaton depth (every state within that many
    bytes of the start, breadth first), and the walked identifier's scores are py3langid's own."""
    import numpy as np
    from py3langid.langid import MODEL_DIR, MODEL_FILE, LanguageIdentifier

    from webcrawler.text.language import WALK_DEPTHS, _identifier

    ours, theirs = _identifier(), LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    moves = np.frombuffer(theirs.tk_nextmove, dtype=np.dtype(theirs.tk_nextmove.typecode)) \
        if not isinstance(theirs.tk_nextmove, np.ndarray) else theirs.tk_nextmove
    rows = np.asarray(theirs.tk_row, dtype=np.intp)
    seen = np.zeros(len(rows), bool)
    seen[0], frontier, depth = True, np.array([0]), 0
    while True:
        reached = np.unique(moves[(rows[frontier] << 8)[:, None] + np.arange(256)])
        frontier = reached[~seen[reached]]
        if not len(frontier):
            break
        seen[frontier] = True
        depth += 1
    assert WALK_DEPTHS[Path(MODEL_DIR, MODEL_FILE).stat().st_size] == depth
    samples = [*TEXTS, " ".join(TEXTS) * 40, "Grüße aus München, schöne Straße", "日本語のテキストです",
               "Привет мир, это текст", "a", "ab", "", "!!!", "x" * 7]
    assert [ours.classify(s) for s in samples] == [theirs.classify(s) for s in samples]


def test_a_copy_damaged_inside_falls_back_and_the_other_form_stays(tmp_path: Path) -> None:
    """The mapped tables are checked as reading them checked them (their zip checksums); the
    same model's copy in the form an older webcrawler reads is left to it."""
    _probe(tmp_path)
    [copy] = (tmp_path / "webcrawler").iterdir()
    older = copy.with_name(copy.name.replace("-float32", ""))
    older.write_bytes(b"an older webcrawler's copy of the same model")
    data = bytearray(copy.read_bytes())
    data[len(data) // 2] ^= 0xFF  # inside the weights or the moves
    copy.write_bytes(bytes(data))
    assert _probe(tmp_path) == ["en", "de", "fr", "es"]
    assert not copy.exists()
    assert _probe(tmp_path) == ["en", "de", "fr", "es"]
    assert copy.exists() and older.exists()


def test_the_walk_scores_as_py3langid_at_every_short_length() -> None:
    """Samples shorter than, as long as and just past the automaton's depth (the walk's
    first two bytes are taken as a pair only where a byte has that many before it) score
    as py3langid's own walk, byte for byte."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    from webcrawler.text.language import _identifier

    ours, theirs = _identifier(), LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)
    text = "Grüße, the harbour master: 日本語 ok"
    samples = [text[start : start + size] for size in range(14) for start in (0, 5, 20)]
    assert [ours._decide(s).tobytes() for s in samples] == [theirs._decide(s).tobytes() for s in samples]


def test_threads_detecting_at_once_score_as_one_thread_does() -> None:
    """Each thread counts a sample's features in tables of its own (kept between calls):
    texts detected by four threads at once get the scores one thread gives them (threads
    switched as often as the interpreter can: one table shared by all mixed their counts)."""
    from concurrent.futures import ThreadPoolExecutor

    from webcrawler.text.language import _identifier

    ours = _identifier()
    samples = [f"{text} {number}" * (1 + number % 7) for number in range(200) for text in TEXTS]
    alone = [ours._decide(s).tobytes() for s in samples]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        with ThreadPoolExecutor(4) as pool:
            together = list(pool.map(lambda s: ours._decide(s).tobytes(), samples))
    finally:
        sys.setswitchinterval(interval)
    assert together == alone
