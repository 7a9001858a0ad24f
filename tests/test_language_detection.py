"""Language detection of reference pages: a page whose first hundreds of characters are a
table of identifiers, and whose prose comes after, is detected from the prose (issue 38:
plainly English pages came out `unknown` and split the language facet); a page too short
to tell stays unknown, and other languages are not moved to English."""

from __future__ import annotations

import pytest

from webcrawler.text.language import SAMPLE_CHARS, detect

IDENTIFIERS = ("errorcode EPERM ENOENT ESRCH EINTR EIO ENXIO E2BIG ENOEXEC EBADF ECHILD EAGAIN "
               "ENOMEM EACCES EFAULT ENOTBLK EBUSY EEXIST EXDEV ENODEV ENOTDIR EISDIR EINVAL "
               "ENFILE EMFILE ENOTTY ETXTBSY EFBIG ENOSPC ESPIPE EROFS EMLINK EPIPE EDOM ERANGE ") * 3
PROSE = {
    "en": "This module makes available standard system symbols. The value of each symbol is the "
          "corresponding integer value, and the names and descriptions are borrowed from the "
          "header files. To translate a numeric error code to an error message, use the function "
          "that is provided for it; the mapping is available as a dictionary as well. ",
    "de": "Dieses Modul stellt die Standardsymbole des Systems bereit. Der Wert jedes Symbols ist "
          "der entsprechende ganzzahlige Wert, und die Namen und Beschreibungen stammen aus den "
          "Kopfdateien. Um einen Fehlercode in eine Meldung zu übersetzen, verwenden Sie die "
          "Funktion, die dafür bereitsteht; die Zuordnung gibt es auch als Wörterbuch. ",
    "fr": "Ce module met à disposition les symboles standard du système. La valeur de chaque "
          "symbole est la valeur entière correspondante, et les noms et les descriptions sont "
          "empruntés aux fichiers d'en-tête. Pour traduire un code d'erreur en message, utilisez "
          "la fonction prévue à cet effet ; la table existe aussi sous forme de dictionnaire. ",
}


@pytest.mark.parametrize("language", sorted(PROSE))
def test_a_page_that_opens_with_identifiers_is_detected_from_its_prose(language: str) -> None:
    text = IDENTIFIERS + PROSE[language] * 4
    assert len(IDENTIFIERS) > SAMPLE_CHARS  # the first sample holds no prose
    assert detect("errno - Standard errno system symbols", text) == language


def test_plain_pages_keep_their_language_and_short_ones_stay_unknown() -> None:
    for language, prose in PROSE.items():
        assert detect("", prose) == language
    assert detect("errno", IDENTIFIERS) == ""  # identifiers alone do not tell
    assert detect("Index", "A B C (in module re) 42") == ""
