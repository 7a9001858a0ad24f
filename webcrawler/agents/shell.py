"""Does a fetched page look like a script shell, whose text only a browser would write?

`--render auto` renders a page in a browser only when this says so, because a render
costs a hundred times a parse. The heuristic, in docs/rendering.md: the page has a
<script> element, and either it shows fewer than `MIN_WORDS` words, or it holds an empty
mount point of a script framework (`<div id="root"></div>`, `id="app"`, `__next`,
`__nuxt`, `___gatsby`, ..., `<app-root></app-root>`), or a <noscript> that asks for
JavaScript. A page without any script is never a shell: no browser would change it.
Regular expressions over the markup, each linear, so a page that is not a shell costs
microseconds. This module does no I/O.
"""

from __future__ import annotations

import re

MIN_WORDS = 50  # fewer visible words than this, with a script: the script writes the text
# Case-sensitive, each starting with a literal, so that `re` skips to the candidates as fast
# as str.find: frameworks write lower-case markup, `id="root"` without spaces.
_MOUNT_IDS = "root|app|__next|__nuxt|___gatsby|svelte|main-app|application"
_EMPTY_MOUNT = re.compile(r"id=[\"']?(?:" + _MOUNT_IDS + r")(?=[\"'\s>/])[^<>]*>\s*"
                          r"</(?:div|main|section|body)\s*>")
_EMPTY_APP_ROOT = re.compile(r"<app-root\b[^<>]*>\s*</app-root\s*>")  # Angular's
_ASKS_FOR_SCRIPT = re.compile(r"<noscript\b[^<>]*>[^<]{0,400}\b[Jj]ava[Ss]cript\b")


def looks_like_shell(html: str, text: str) -> bool:
    """True when `html` (the markup) with visible text `text` seems to be written by its
    scripts: a script, and little text, an empty mount point or a plea for JavaScript."""
    if "<script" not in html and "<SCRIPT" not in html:
        return False
    if len(text.split(None, MIN_WORDS)) < MIN_WORDS:
        return True
    return any(pattern.search(html) for pattern in (_EMPTY_MOUNT, _EMPTY_APP_ROOT, _ASKS_FOR_SCRIPT))
