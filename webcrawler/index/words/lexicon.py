"""The query side's word tools - speller and completer - kept in step with the index.

Both are built from one `Vocabulary` of one commit. The first use reads it in the
caller's thread (there is nothing to answer with before); the speller's lookup table,
which takes seconds of CPU on a large index, is built only when a query first needs it,
so a server with spelling off never builds one. A query server starts that first build
as it starts (`warm`): at a million documents it takes seconds, which its first visitor
would otherwise wait for. The searcher tells the lexicon of each
commit it opens (`notice`: the lexicon does not look at the index's directory itself);
a newer vocabulary is then read in a background thread while queries go on with the
previous one, at most every `REBUILD_INTERVAL` seconds and never more than
`BUILD_SHARE` of the time: a crawl commits every few seconds, a vocabulary changes
slowly. The build opens its own reader, so it never holds the searcher's lock, and
remembers what each segment held (`read_vocabulary`): a rebuild after a commit reads the
commit's new segment, not the whole index again. Never writes.
"""

from __future__ import annotations

import gc
import logging
import threading
import time

from whoosh.index import Index

from webcrawler.index import background
from webcrawler.index.words.completion import Completer
from webcrawler.index.words.spelling import Speller
from webcrawler.index.words.vocabulary import Vocabulary, read_vocabulary

log = logging.getLogger(__name__)

REBUILD_INTERVAL = 30.0
BUILD_SHARE = 0.05  # of the time, at most, spent rebuilding
COLLECT_EVERY = 600.0  # seconds between two collections of what settle froze

_last_collect = time.monotonic()


class WordTools:
    """One commit's vocabulary, its completer, and its speller once something asks for it."""

    def __init__(self, vocabulary: Vocabulary) -> None:
        self.vocabulary = vocabulary
        self.completer = Completer(vocabulary)
        self._speller: Speller | None = None
        self._lock = threading.Lock()

    @property
    def generation(self) -> int:
        return self.vocabulary.generation

    @property
    def speller(self) -> Speller:
        """The speller, built at the first call (one build, whichever thread asks first)."""
        if self._speller is None:
            with self._lock:
                if self._speller is None:
                    self._speller = Speller(self.vocabulary)
                    settle()
        return self._speller

    @property
    def has_speller(self) -> bool:
        return self._speller is not None


def build(ix: Index, remembered: dict | None = None) -> WordTools:
    tools = WordTools(read_vocabulary(ix, remembered))
    settle()
    return tools


def settle() -> None:
    """Put what is alive now out of the cyclic garbage collector's reach (`gc.freeze`),
    after, at most every `COLLECT_EVERY` seconds, one full collection of what earlier
    settles froze.

    The vocabulary, the speller's table and the completer are dictionaries of hundreds of
    thousands of words, which each full collection walks entry by entry: a pause of a
    hundred milliseconds and more in whichever query happens to trigger it. Frozen objects
    are never collected, though, so what was frozen and has become a cycle of garbage
    since (a replaced searcher's readers, say) is unfrozen and collected now and then:
    garbage lives `COLLECT_EVERY` seconds and a build at most. Not at every build: a full
    collection of a large process costs about as much as a build of a small index."""
    global _last_collect
    now = time.monotonic()
    if now - _last_collect >= COLLECT_EVERY:
        _last_collect = now
        gc.unfreeze()
        gc.collect()
    gc.freeze()


def empty() -> WordTools:
    """Tools that know no word: nothing corrected, nothing completed."""
    return WordTools(Vocabulary())


class Lexicon:
    """The newest `WordTools` of an index; thread-safe."""

    def __init__(self, ix: Index) -> None:
        self._ix = ix
        self._tools: WordTools | None = None
        self._first = threading.Lock()  # held while the first build runs: queries wait on it
        self._lock = threading.Lock()  # guards the rebuild thread and closing
        self._next_build = time.monotonic()
        self._newest = -1  # the newest commit the searcher has opened (`notice`)
        self._building: threading.Thread | None = None
        self._closed = False
        self._remembered: dict = {}  # what each segment's words were (read_vocabulary)

    def warm(self, with_speller: bool) -> threading.Thread:
        """Start the first build (with the speller: `with_speller`) in a thread now, and
        return it. A query that comes sooner waits for this build, as it would for its own:
        so the build runs as a query does (`background.foreground`), never standing aside."""
        thread = threading.Thread(target=self._warm, args=(with_speller,), name="lexicon warm-up",
                                  daemon=True)
        thread.start()
        return thread

    def _warm(self, with_speller: bool) -> None:
        with background.foreground():
            if not self._closed:
                self._first_build(with_speller)

    def notice(self, generation: int) -> None:
        """The searcher opened commit `generation`: the tools follow it when allowed."""
        self._newest = max(self._newest, generation)

    def tools(self) -> WordTools:
        """The speller and completer of the newest build (built now if there is none)."""
        tools = self._tools
        if tools is None:
            tools = self._first_build(with_speller=False)
        self._look_for_commits(tools)
        return tools

    def _first_build(self, with_speller: bool) -> WordTools:
        """The first tools, built by whichever thread comes first; a failed build leaves
        tools that know no word (queries go on, uncorrected, until the next build)."""
        with self._first:
            if self._tools is None:
                self._tools = self._try_build(with_speller) or empty()
            return self._tools

    def _look_for_commits(self, tools: WordTools) -> None:
        if self._newest <= tools.generation or time.monotonic() < self._next_build:
            return
        with self._lock:
            if self._building is not None or self._closed:
                return
            self._building = threading.Thread(target=self._rebuild, args=(tools.has_speller,),
                                              name="lexicon", daemon=True)
            self._building.start()

    def _build(self, with_speller: bool = False) -> WordTools:
        """Build from the newest commit (with its speller: `with_speller`); schedule the next
        build no sooner than allowed."""
        started = time.monotonic()
        try:
            tools = build(self._ix, self._remembered)
            if with_speller:
                tools.speller  # noqa: B018 - built here, off the query threads
            return tools
        finally:
            took = time.monotonic() - started
            self._next_build = time.monotonic() + max(REBUILD_INTERVAL, took / BUILD_SHARE)

    def _try_build(self, with_speller: bool) -> WordTools | None:
        """`_build`, or None when it failed (logged; the next build retries)."""
        try:
            return self._build(with_speller)
        except Exception as error:  # a merge removed a segment as we read it
            log.warning("could not read the index's vocabulary (will retry): %s", error)
            return None

    def _rebuild(self, with_speller: bool) -> None:
        """A newer build, with its speller too when the one it replaces had one (queries that
        correct must not wait for it)."""
        fresh = self._try_build(with_speller)
        with self._lock:
            self._building = None
            if fresh is not None:
                self._tools = fresh

    def close(self) -> None:
        with self._lock:  # never held for long: the first build holds `_first`
            self._closed = True
            building = self._building
        if building is not None:
            building.join(timeout=60)
