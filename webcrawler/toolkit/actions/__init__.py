"""Visit actions: the SPHINX Workbench's built-in visit operations, as reusable building blocks.

Miller and Bharat (1998), section 3: "A number of commonly-used shouldVisit and
visit operations are built into the Workbench ... The built-in visit operations
include" saving, concatenating, extracting, collecting images and links, "each
parameterized by a page predicate". Each action here is one module:

    SaveMirror(folder)              mirror.py       a browsable copy, links rewritten
    Concatenate("book.html")        concatenate.py  one printable document, crawl order
    ExtractMatches(pattern, "x.csv")  extract.py    Regexp/Tagexp/Wildcard matches, CSV or JSONL
    CollectImages(folder)           images.py       a photo album of the pages' images
    LinkReport("broken.csv")        links.py        links and their targets' fate
    AddToIndex(data_dir)            index.py        into our own search engine's index

Use one from `visit` (``self.book(page)``) and close it after `run()` (or use
it as a context manager), or `attach(crawler)` it: it then sees every visited
page and closes when the crawl finishes. Every action takes ``when=``, the
paper's page predicate. Actions never do HTTP and never write outside the
file or folder they were given (`files`); saved HTML is cleaned (`sanitize`).
"""

from webcrawler.toolkit.actions.base import VisitAction
from webcrawler.toolkit.actions.concatenate import Concatenate
from webcrawler.toolkit.actions.extract import ExtractMatches
from webcrawler.toolkit.actions.images import CollectImages
from webcrawler.toolkit.actions.index import AddToIndex
from webcrawler.toolkit.actions.links import LinkReport
from webcrawler.toolkit.actions.mirror import SaveMirror

# The built-in visit operations by name, for the Workbench to list and build.
ACTIONS: dict[str, type[VisitAction]] = {
    "save": SaveMirror, "concatenate": Concatenate, "extract": ExtractMatches,
    "images": CollectImages, "links": LinkReport, "index": AddToIndex,
}

__all__ = ["ACTIONS", "AddToIndex", "CollectImages", "Concatenate", "ExtractMatches", "LinkReport",
           "SaveMirror", "VisitAction"]
