"""The query side's word tools - speller and completer - kept in step with the index.

Both are built from one `Vocabulary` of one commit. The first use builds them in the
caller's thread (there is nothing to answer with before); after that, a newer commit
is looked for at most every `CHECK_INTERVAL` seconds and rebuilt in a background
thread while queries go on with the previous build, at most every `REBUILD_INTERVAL`
seconds and never more than `BUILD_SHARE` of the time (the build of a large index
takes seconds of CPU): a crawl commits every few seconds, a vocabulary changes slowly.
The build opens its own reader, so it never holds the searcher's lock, and remembers
what each segment held (`read_vocabulary`): a rebuild after a commit reads the commit's
new segment, not the whole index again. Never writes.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass

from whoosh.index import Index

from webcrawler.index.completion import Completer
from webcrawler.index.spelling import Speller
from webcrawler.index.vocabulary import Vocabulary, read_vocabulary

log = logging.getLogger(__name__)

CHECK_INTERVAL = 1.0
REBUILD_INTERVAL = 30.0
BUILD_SHARE = 0.05  # of the time, at most, spent rebuilding


@dataclass(frozen=True)
class WordTools:
    speller: Speller
    completer: Completer

    @property
    def generation(self) -> int:
        return self.speller.vocabulary.generation


def build(ix: Index, remembered: dict | None = None) -> WordTools:
    vocabulary = read_vocabulary(ix, remembered)
    return WordTools(Speller(vocabulary), Completer(vocabulary))


def empty() -> WordTools:
    """Tools that know no word: nothing corrected, nothing completed."""
    return WordTools(Speller(Vocabulary()), Completer(Vocabulary()))


class Lexicon:
    """The newest `WordTools` of an index; thread-safe."""

    def __init__(self, ix: Index) -> None:
        self._ix = ix
        self._tools: WordTools | None = None
        self._lock = threading.Lock()  # held while the first build runs
        self._checked = self._next_build = time.monotonic()
        self._building: threading.Thread | None = None
        self._closed = False
        self._remembered: dict = {}  # what each segment's words were (read_vocabulary)

    def tools(self) -> WordTools:
        """The speller and completer of the newest build (built now if there is none)."""
        tools = self._tools
        if tools is None:
            with self._lock:
                if self._tools is None:
                    try:
                        self._tools = self._build()
                    except Exception as error:  # a merge removed a segment as we read it
                        log.warning("could not read the index's vocabulary (will retry): %s", error)
                        self._tools = empty()  # queries go on, uncorrected, until the retry
                tools = self._tools
        self._look_for_commits(tools)
        return tools

    def _look_for_commits(self, tools: WordTools) -> None:
        now = time.monotonic()
        if now - self._checked < CHECK_INTERVAL or now < self._next_build:
            return
        with self._lock:
            self._checked = now
            if self._building is not None or self._closed:
                return
            try:
                if self._ix.latest_generation() == tools.generation:
                    return
            except OSError as error:  # the writer replaced the TOC as we listed it
                log.debug("could not check for a new commit: %s", error)
                return
            self._building = threading.Thread(target=self._rebuild, name="lexicon", daemon=True)
            self._building.start()

    def _build(self) -> WordTools:
        """Build from the newest commit; schedule the next build no sooner than allowed."""
        started = time.monotonic()
        try:
            return build(self._ix, self._remembered)
        finally:
            took = time.monotonic() - started
            self._next_build = time.monotonic() + max(REBUILD_INTERVAL, took / BUILD_SHARE)

    def _rebuild(self) -> None:
        try:
            fresh: WordTools | None = self._build()
        except Exception as error:  # a merge removed a segment as we read it: retry later
            log.warning("could not read the index's vocabulary (will retry): %s", error)
            fresh = None
        with self._lock:
            self._building = None
            if fresh is not None:
                self._tools = fresh

    def close(self) -> None:
        with self._lock:
            self._closed = True
            building = self._building
        if building is not None:
            building.join(timeout=60)
