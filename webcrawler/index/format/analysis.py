"""The lexical analyzer: text -> stream of indexable words.

The paper's recipe: break the title and the body into one stream of words, and
run it through a stop list so that common words are not indexed. Here a word
is a run of letters, digits or underscores (Unicode-aware), lower-cased, at
most `MAX_WORD` characters; no stemming (it costs index throughput, and the
documentation queries name exact identifiers).

Title words count `TITLE_WEIGHT` times in the document's word frequencies: a
title is the author's own summary of the page, and the paper indexes it with
the body. Other people's summaries of the page count too: the words of its URL's
path, and the anchor texts of links to it (`schema.fields_of`: from other servers
`ANCHOR_WEIGHT`, from the page's own server `SITE_ANCHOR_WEIGHT`: navigation says
less). Each part's positions come after the previous part's and a gap, so a
phrase never spans two parts; the body comes last.

One analysis serves documents, queries and anchor texts, so the index, the query
parser and the real-time anchor index always agree: `index_words()` gives a text's
words in UTF-8, the form the index's terms take (`postings.ContentField` builds its
postings from them directly), and `words()` is the same words as str; `WordTokenizer`
is the same analysis as a Whoosh analyzer, for Whoosh's own uses.
"""

from __future__ import annotations

from collections.abc import Iterator

from whoosh.analysis import Token, Tokenizer

from webcrawler.text.tokens import WORD as WORD  # re-exported: a word of a query or a title
from webcrawler.text.tokens import utf8_words

MAX_WORD = 40
TITLE_WEIGHT = 3.0
TITLE_GAP = 8  # positions between the last title word and the first body word

# Function words only: a documentation search must still find "if", "with", "not", "all", ...
# which are Python keywords, so those are deliberately kept out of the list.
STOP_WORDS = frozenset(
    """a about an and are as at be been but by can could did do does for from had has have he
    her hers him his how i into is it its me my of on or our she so than that the their them
    then there these they this those to was we were what when where which who whom why will
    would you your""".split()
)


def words(text: str) -> list[str]:
    """The indexable words of `text`, in order, stop words removed."""
    return [word.decode() for word in index_words(text)]


_STOP_BYTES = frozenset(word.encode() for word in STOP_WORDS)


def index_words(text: str) -> list[bytes]:
    """`words(text)`, each in UTF-8 as the index's terms hold it (`text/tokens.py`: found with
    bytes methods, cheaper than a regex on a page's text)."""
    stop = _STOP_BYTES
    return [w for w in utf8_words(text) if w not in stop
            and (len(w) <= MAX_WORD or len(w.decode("utf-8", "surrogatepass")) <= MAX_WORD)]


class TitledText(str):
    """A document's body text that carries its title along, and other weighted parts
    (URL words, anchor texts) as (text, weight) pairs (Whoosh hands a plain `str` field
    value to the analyzer, but treats a tuple as already tokenized)."""

    heading: str
    extras: tuple[tuple[str, float], ...]

    def __new__(cls, title: str, body: str, extras: tuple[tuple[str, float], ...] = ()) -> TitledText:
        text = super().__new__(cls, body)
        text.heading = title
        text.extras = extras
        return text


def parts(value: str) -> list[tuple[str, float]]:
    """The parts of a field value with their weights: (title, TITLE_WEIGHT), the extras,
    then (body, 1)."""
    heading = getattr(value, "heading", None)
    if heading is not None:
        return [(heading, TITLE_WEIGHT), *value.extras, (str(value), 1.0)]  # type: ignore[attr-defined]
    return [(value, 1.0)]


class WordTokenizer(Tokenizer):
    """Whoosh tokenizer, lower-caser and stop filter in one pass (one regex, no filter chain).

    Accepts a string or a `TitledText`; title tokens carry `TITLE_WEIGHT` as their
    boost, which Whoosh's posting formats add up into the word's weight in the document.
    """

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WordTokenizer)

    def __hash__(self) -> int:
        return hash(WordTokenizer)

    def __call__(
        self,
        value: str,
        positions: bool = False,
        chars: bool = False,
        keeporiginal: bool = False,
        removestops: bool = True,
        start_pos: int = 0,
        start_char: int = 0,
        tokenize: bool = True,
        mode: str = "",
        **kwargs: object,
    ) -> Iterator[Token]:
        token = Token(positions, chars, removestops=removestops, mode=mode, **kwargs)
        pos = start_pos
        for text, boost in parts(value):
            for word in words(text):
                token.text = word
                token.boost = boost
                token.stopped = False
                if positions:
                    token.pos = pos
                pos += 1
                yield token
            pos += TITLE_GAP


def analyzer() -> WordTokenizer:
    """The analyzer every text field of the index uses."""
    return WordTokenizer()
