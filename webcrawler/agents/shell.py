"""Does a fetched page look like a script shell, whose text only a browser would write?

`--render auto` renders a page in a browser only when this says so, because a render
costs a hundred times a parse. The heuristic, in docs/rendering.md: the page has a
<script> element, and either it shows fewer than `MIN_WORDS` words, or it holds an empty
mount point of a script framework (`<div id="root"></div>`, `id="app"`, `__next`,
`__nuxt`, `___gatsby`, ..., `<app-root></app-root>`), or a <noscript> that asks for
JavaScript. A page without any script is never a shell: no browser would change it.

Linear in the page, whatever it holds: one pass over its tags (`tags`), each found by a
search for the next "<" or ">" that starts where the last one stopped, so no character is
read more than twice; each tag's attributes, and what follows a tag up to a bounded length,
are matched by patterns without an unbounded repetition that could be tried again from
another start. (A pattern `id=root[^<>]*>` searched over the page tried its `[^<>]*` from
every `id=root` again: 128 KiB of `id=root ` took 7.3 s, a 1 MB page hung its agent.)
This module does no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

MIN_WORDS = 50  # fewer visible words than this, with a script: the script writes the text
NOSCRIPT_REACH = 400  # characters of a <noscript> read for its plea
# Frameworks write lower-case markup, `id="root"` without spaces.
_MOUNT_IDS = "root|app|__next|__nuxt|___gatsby|svelte|main-app|application"
_DELIMITER = re.compile(r"[<>]")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9-]{0,40}")  # a tag's name, bounded
_MOUNT_ID = re.compile(r"(?:^|[\s\"'/])id=[\"']?(?:" + _MOUNT_IDS + r")(?:[\"'\s/]|$)")
_CLOSES_MOUNT = re.compile(r"[ \t\r\n]{0,200}</(?:div|main|section|body)[ \t\r\n]{0,40}>")
_CLOSES_APP_ROOT = re.compile(r"[ \t\r\n]{0,200}</app-root[ \t\r\n]{0,40}>")
_ASKS_FOR_SCRIPT = re.compile(r"\b[Jj]ava[Ss]cript\b")


def looks_like_shell(html: str, text: str) -> bool:
    """True when `html` (the markup) with visible text `text` seems to be written by its
    scripts: a script, and little text, an empty mount point or a plea for JavaScript."""
    if "<script" not in html and "<SCRIPT" not in html:
        return False
    if len(text.split(None, MIN_WORDS)) < MIN_WORDS:
        return True
    return any(_empty_or_pleading(html, name, start, end) for name, start, end in tags(html))


def tags(html: str) -> Iterator[tuple[str, int, int]]:
    """Each start tag's (name, where its attributes begin, where its ">" is), in order: the
    spans never overlap, and each search starts where the last one stopped."""
    position = 0
    while True:
        opening = html.find("<", position)
        if opening < 0:
            return
        delimiter = _DELIMITER.search(html, opening + 1)
        if delimiter is None:
            return
        position = delimiter.start()
        if html[position] == "<":  # a "<" before any ">": this one was no tag
            continue
        name = _NAME.match(html, opening + 1)
        if name is not None:
            yield name.group().lower(), name.end(), position
        position += 1


def _empty_or_pleading(html: str, name: str, start: int, end: int) -> bool:
    """Is this tag an empty mount point, an empty <app-root>, or a <noscript> asking for
    JavaScript? Each test reads the tag and at most a bounded stretch after it."""
    if name == "noscript":
        after = html[end + 1:end + 1 + NOSCRIPT_REACH].split("<", 1)[0]
        return _ASKS_FOR_SCRIPT.search(after) is not None
    if name == "app-root":
        return _CLOSES_APP_ROOT.match(html, end + 1) is not None
    return "id=" in html[start:end] and _MOUNT_ID.search(html, start, end) is not None \
        and _CLOSES_MOUNT.match(html, end + 1) is not None
