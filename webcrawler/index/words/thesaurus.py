"""Query expansion: synonyms from a thesaurus, used only when the user asks (expand=True).

The source is WordNet 3.0 as Debian's `wordnet-base` package installs it
(/usr/share/wordnet: offline, no download at run time; `apt-get install
wordnet-base`). For each word, the synonyms of its most common senses come
first. Without those files the small bundled list below is the thesaurus, so
the hook always works. Multi-word synonyms ("motor vehicle") are left out: a
keyword engine would match their words one by one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

log = logging.getLogger(__name__)

WORDNET_DIR = Path("/usr/share/wordnet")
POS = ("noun", "verb", "adj", "adv")
SENSES = 2  # senses per word whose synonyms are used, most common first

_BUNDLED = """
car: automobile, auto
automobile: car, auto
picture: image, photo
image: picture, photo
photo: picture, image
film: movie
movie: film
error: mistake, fault
bug: defect, fault
fast: quick, rapid
quick: fast, rapid
big: large
large: big
small: little, tiny
begin: start
start: begin
end: finish
delete: remove, erase
remove: delete
search: find, seek
find: search
help: aid, assist
buy: purchase
purchase: buy
doctor: physician
disease: illness
illness: disease
"""

Thesaurus = Callable[[str], list[str]]


def _single(words: list[str]) -> list[str]:
    return [
        w.replace("(a)", "").replace("(p)", "").replace("(ip)", "").lower()
        for w in words
        if "_" not in w and "-" not in w
    ]


def load_wordnet(root: Path = WORDNET_DIR) -> dict[str, list[str]]:
    """word -> synonyms, from WordNet's data.* and index.* files; {} when absent."""
    table: dict[str, list[str]] = {}
    for pos in POS:
        data, idx = root / f"data.{pos}", root / f"index.{pos}"
        if not data.is_file() or not idx.is_file():
            return {}
        synsets: dict[str, list[str]] = {}
        with data.open(encoding="latin-1") as lines:
            for line in lines:
                if line.startswith(" "):
                    continue
                parts = line.split(" ", 4 + 2 * 64)
                count = int(parts[3], 16)
                synsets[parts[0]] = _single(parts[4 : 4 + 2 * count : 2])
        with idx.open(encoding="latin-1") as lines:
            for line in lines:
                if line.startswith(" "):
                    continue
                parts = line.split()
                lemma, n_senses = parts[0], int(parts[2])
                if "_" in lemma:
                    continue
                synonyms = table.setdefault(lemma, [])
                for offset in parts[len(parts) - n_senses :][:SENSES]:
                    for word in synsets.get(offset, []):
                        if word != lemma and word not in synonyms:
                            synonyms.append(word)
    return {word: syns for word, syns in table.items() if syns}


def load_bundled() -> dict[str, list[str]]:
    table: dict[str, list[str]] = {}
    for line in _BUNDLED.strip().splitlines():
        word, _, rest = line.partition(":")
        table[word.strip()] = [w.strip() for w in rest.split(",") if w.strip()]
    return table


@lru_cache(maxsize=1)
def default_table() -> dict[str, list[str]]:
    table = load_wordnet()
    if not table:
        log.info("WordNet not found in %s; using the bundled synonym list", WORDNET_DIR)
        return load_bundled()
    return table


def default_thesaurus(word: str) -> list[str]:
    """Synonyms of `word`, most common sense first (WordNet, else the bundled list)."""
    return default_table().get(word, [])
