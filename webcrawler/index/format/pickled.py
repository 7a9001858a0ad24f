"""The classes a table of contents pickles, found under the names older indexes gave them.

Whoosh pickles the schema (`ContentField`, `WordPositions`, `WordTokenizer`) and the
segments (with their codec, `ContentCodec`) into every table of contents, by module and
class name. An index written before the index had rooms (issue 34: when `postings` and
`analysis` were modules of the flat index package) names them there; `know_old_names`
lets pickle find them where they live now, so that such an index opens as it did (its
next commit writes the new names). Whoosh reads tables of contents with plain `pickle`,
so the old names are entries of `sys.modules` pointing at today's modules, made only
when an index is opened (`opening.py`).
"""

from __future__ import annotations

import sys
from types import ModuleType

from webcrawler.index.format import analysis, postings

# module name in an older table of contents -> the module that holds its classes now
OLD_NAMES: dict[str, ModuleType] = {
    "webcrawler.index.postings": postings,
    "webcrawler.index.analysis": analysis,
}


def know_old_names() -> None:
    """Make the older module names findable by pickle (idempotent)."""
    for name, module in OLD_NAMES.items():
        sys.modules.setdefault(name, module)
