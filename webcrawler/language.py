"""Which natural language a document is written in, for the index's analysis and facets.

py3langid (langid.py's naive Bayes over byte n-grams; the model ships inside its wheel,
nothing is fetched) reads the start of the text: a page's language shows in its first
paragraphs, and reading more costs time on every page. A text too short to tell, or a
guess the model is not sure of, gives "" (unknown): a wrong language would send the
document to the wrong stemmer and the wrong facet, an unknown one only to neither.
Agents call this in their own processes; the index's writer calls it for documents that
arrive without a language. Never touches the network, the database or the index.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

SAMPLE_CHARS = 600  # of the text, after the title: enough for a confident guess
MIN_LETTERS = 20  # fewer letters than this: too short to tell
MIN_PROBABILITY = 0.5
# Matches when the text holds MIN_LETTERS letters: stops at the last one needed, where
# counting them all made a list of every character of the sample.
_ENOUGH_LETTERS = re.compile(rf"(?:[\W\d_]*[^\W\d_]){{{MIN_LETTERS}}}")


@cache
def _identifier() -> Any:
    """The model, loaded once per process (0.1 s) with probabilities normalised."""
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def detect(title: str, text: str) -> str:
    """The ISO 639-1 code of the language of `title` and `text` ("en", "de", ...), or ""."""
    sample = f"{title}\n{text[:SAMPLE_CHARS]}"
    if not _ENOUGH_LETTERS.match(sample):
        return ""
    language, probability = _identifier().classify(sample)
    return str(language) if probability >= MIN_PROBABILITY else ""
