"""Does a fetched page look like a script shell, whose text only a browser would write?

`--render auto` renders a page in a browser only when this says so, because a render
costs a hundred times a parse. The heuristic, in docs/rendering.md: the page has a
<script> element, and either it shows fewer than `MIN_WORDS` words, or it holds an empty
mount point of a script framework (`<div id="root"></div>`, `id="app"`, `__next`,
`__nuxt`, `___gatsby`, ..., `<app-root></app-root>`), or a <noscript> that asks for
JavaScript. A page without any script is never a shell: no browser would change it.

Linear in the page, whatever it holds. Each pattern starts with a literal, so that `re`
skips to the candidates as fast as str.find, and reads a bounded stretch, or one that
ends at the next "<" (where the next candidate of `<app-root` or `<noscript` begins). A
mount point's id is the exception: the end of its tag is searched from the id, and many
ids may share one tag, so `mount_points` takes each tag's first id only and goes on after
that tag's end (a pattern `id=root[^<>]*>` searched over the page tried its `[^<>]*` again
from every `id=root`: 128 KiB of `id=root ` took 7.3 s, a 1 MB page hung its agent).
This module does no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

MIN_WORDS = 50  # fewer visible words than this, with a script: the script writes the text
# Case-sensitive, each starting with a literal: frameworks write lower-case markup,
# `id="root"` without spaces.
_MOUNT_IDS = "root|app|__next|__nuxt|___gatsby|svelte|main-app|application"
_MOUNT_ID = re.compile(r"id=[\"']?(?:" + _MOUNT_IDS + r")(?=[\"'\s>/])")
_DELIMITER = re.compile(r"[<>]")
_CLOSES_MOUNT = re.compile(r"\s*</(?:div|main|section|body)\s*>")
_EMPTY_APP_ROOT = re.compile(r"<app-root\b[^<>]*>\s*</app-root\s*>")  # Angular's
_ASKS_FOR_SCRIPT = re.compile(r"<noscript\b[^<>]*>[^<]{0,400}\b[Jj]ava[Ss]cript\b")


def looks_like_shell(html: str, text: str) -> bool:
    """True when `html` (the markup) with visible text `text` seems to be written by its
    scripts: a script, and little text, an empty mount point or a plea for JavaScript."""
    if "<script" not in html and "<SCRIPT" not in html:
        return False
    if len(text.split(None, MIN_WORDS)) < MIN_WORDS:
        return True
    if any(_CLOSES_MOUNT.match(html, end + 1) for _, end in mount_points(html)):
        return True
    return any(pattern.search(html) for pattern in (_EMPTY_APP_ROOT, _ASKS_FOR_SCRIPT))


def mount_points(html: str) -> Iterator[tuple[int, int]]:
    """Each tag holding a mount point's id: (where the id starts, where the tag's ">" is).
    Every search starts where the last one stopped, so the spans never overlap: a tag's
    other ids are never searched again."""
    position = 0
    while True:
        found = _MOUNT_ID.search(html, position)
        if found is None:
            return
        delimiter = _DELIMITER.search(html, found.end())
        if delimiter is None:
            return
        position = delimiter.start()
        if html[position] == ">":
            yield found.start(), position
            position += 1
