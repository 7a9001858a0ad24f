"""A crawl definition: the Workbench's form as plain JSON, checked strictly.

SPHINX's Crawler Workbench (Miller and Bharat 1998, section 3, Figure 1) lets a
person describe a crawl without programming: starting URLs, gross limits and
scope ("same server", "same subtree", anywhere), which links to follow (a URL
pattern, anchor text, a classifier's label), a page predicate that picks which
visited pages the action processes, the traversal order, and a visit action.
The same JSON is posted to `POST /api/crawls`, saved and shared, and run by
`webcrawler crawl definition.json`. It is data, never code: that is what lets a
workbench run a definition it was sent (section 5, relocation).

    {"roots": ["http://127.0.0.1:8000/docs/"],
     "limits": {"pages": 50, "depth": 3, "seconds": 60, "bytes": 5000000},
     "scope": "subtree",                       # "server" | "subtree" | "anywhere"
     "follow": {"url": "*/docs/*", "anchor": "", "label": "child"},
     "process": {"title": "Chapter*", "url": "", "content": "", "label": ""},
     "order": "bfs",                           # "bfs" | "dfs" | "priority"
     "action": {"type": "concatenate"}}        # save | concatenate | extract | images | links | index

A pattern is a string (a shell wildcard, as `Wildcard`: `*` and `?`) or
``{"regexp": "..."}`` (Python's `re` syntax, run by the `regex` library under a time
bound, searched); either ignores case unless written ``{"wildcard": "...", "case": true}``
or ``{"regexp": "...", "case": true}`` (timed.py). `parse` refuses anything else
with a `DefinitionError` whose message names the field: the API turns it into
a 400, the CLI into one line. This module builds nothing and does no I/O.
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field
from typing import Any
from urllib.parse import urlsplit

import regex

from webcrawler.errors import UsageError
from webcrawler.protocol.urls import try_normalize

ORDERS = ("bfs", "dfs", "priority")
SCOPES = ("server", "subtree", "anywhere")
ACTIONS = ("save", "concatenate", "extract", "images", "links", "index")
LIMITS = ("pages", "depth", "seconds", "bytes")
FOLLOW = ("url", "anchor", "label")
PROCESS = ("title", "url", "content", "label")
MAX_ROOTS = 20
MAX_TEXT = 2000  # characters in one pattern or URL
TOP = ("name", "roots", "limits", "scope", "follow", "process", "order", "action")


class DefinitionError(UsageError, ValueError):
    """A definition that cannot run; str() is one line naming the field."""


@dataclass(frozen=True)
class Match:
    """A pattern as the definition gave it: a wildcard, or a regular expression."""

    text: str
    regexp: bool = False
    case: bool = False  # match case? (by default a pattern ignores it)

    def as_json(self) -> Any:
        if self.regexp:
            return {"regexp": self.text, **({"case": True} if self.case else {})}
        return {"wildcard": self.text, "case": True} if self.case else self.text


@dataclass(frozen=True)
class Definition:
    """A checked crawl definition; `as_json()` gives back the canonical JSON."""

    roots: tuple[str, ...]
    limits: dict[str, float | int | None]
    scope: str = "server"
    follow: dict[str, Match | str] = field(default_factory=dict)
    process: dict[str, Match | str] = field(default_factory=dict)
    order: str = "bfs"
    action: dict[str, Any] = field(default_factory=lambda: {"type": "concatenate"})
    name: str = ""

    def as_json(self) -> dict[str, Any]:
        def rules(given: dict[str, Match | str]) -> dict[str, Any]:
            return {k: v.as_json() if isinstance(v, Match) else v for k, v in given.items()}

        out = asdict(self)
        out.update(roots=list(self.roots), follow=rules(self.follow), process=rules(self.process),
                   action=dict(self.action))
        return out


def parse(data: Any, caps: dict[str, float | int] | None = None) -> Definition:
    """A `Definition` from decoded JSON, or DefinitionError. `caps` are the operator's
    per-crawl limits: a missing limit takes the cap, a larger one is refused."""
    if not isinstance(data, dict):
        raise DefinitionError("a crawl definition is a JSON object")
    unknown = sorted(set(data) - set(TOP))
    if unknown:
        raise DefinitionError(f"unknown field {unknown[0]!r}: the fields are {', '.join(TOP)}")
    return Definition(
        roots=_roots(data.get("roots")),
        limits=_limits(data.get("limits"), caps or {}),
        scope=_choice(data, "scope", SCOPES, "server"),
        follow=_rules(data.get("follow"), "follow", FOLLOW),
        process=_rules(data.get("process"), "process", PROCESS),
        order=_choice(data, "order", ORDERS, "bfs"),
        action=_action(data.get("action")),
        name=_text(data.get("name", ""), "name", 200),
    )


def _text(value: Any, where: str, longest: int = MAX_TEXT) -> str:
    if not isinstance(value, str):
        raise DefinitionError(f"{where} must be a string")
    if "\x00" in value or len(value) > longest:
        raise DefinitionError(f"{where} must be at most {longest} characters, without NUL")
    return value.strip()


def _roots(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise DefinitionError("roots must be a non-empty list of http(s) URLs")
    if len(value) > MAX_ROOTS:
        raise DefinitionError(f"roots: at most {MAX_ROOTS} starting URLs")
    roots = []
    for i, item in enumerate(value):
        url = _text(item, f"roots[{i}]")
        try:
            parts = urlsplit(url)
            scheme, host = parts.scheme, parts.hostname
        except ValueError:
            scheme, host = "", None
        if scheme not in ("http", "https") or not host or try_normalize(url) is None:
            raise DefinitionError(f"roots[{i}] is not an http(s) URL: {url[:100]!r}")
        roots.append(url)
    return tuple(roots)


def _limits(value: Any, caps: dict[str, float | int]) -> dict[str, float | int | None]:
    value = {} if value is None else value
    if not isinstance(value, dict):
        raise DefinitionError("limits must be an object: pages, depth, seconds, bytes")
    unknown = sorted(set(value) - set(LIMITS))
    if unknown:
        raise DefinitionError(f"limits: unknown limit {unknown[0]!r} (pages, depth, seconds, bytes)")
    limits: dict[str, float | int | None] = {}
    for name in LIMITS:
        given, cap = value.get(name), caps.get(name)
        if given is None:
            limits[name] = cap if name != "seconds" or cap is not None else 3600
            continue
        low = 0 if name == "depth" else 1
        if isinstance(given, bool) or not isinstance(given, int | float) or \
                (isinstance(given, float) and not math.isfinite(given)) or given < low:
            raise DefinitionError(f"limits.{name} must be a number of at least {low}")
        if name != "seconds" and given != int(given):
            raise DefinitionError(f"limits.{name} must be a whole number")
        if cap is not None and given > cap:
            raise DefinitionError(f"limits.{name} must be at most {cap:g} on this workbench")
        limits[name] = float(given) if name == "seconds" else int(given)
    return limits


def _choice(data: dict[str, Any], name: str, choices: tuple[str, ...], default: str) -> str:
    value = data.get(name, default)
    if value not in choices:
        raise DefinitionError(f"{name} must be one of {', '.join(choices)}")
    return str(value)


def _rules(value: Any, where: str, names: tuple[str, ...]) -> dict[str, Match | str]:
    value = {} if value is None else value
    if not isinstance(value, dict):
        raise DefinitionError(f"{where} must be an object with {', '.join(names)}")
    unknown = sorted(set(value) - set(names))
    if unknown:
        raise DefinitionError(f"{where}: unknown rule {unknown[0]!r} ({', '.join(names)})")
    rules: dict[str, Match | str] = {}
    for name in names:
        given = value.get(name)
        if given in (None, "", {}):
            continue
        if name == "label":
            rules[name] = _text(given, f"{where}.label", 100)
        else:
            rules[name] = pattern(given, f"{where}.{name}")
    return rules


MAX_REPEATS = 10_000  # the product of a pattern's {m,n} counts (see `repeats`)
_COUNTED = re.compile(r"\{(\d*)(?:,(\d*))?\}")


def repeats(text: str) -> int:
    """The product of every counted repeat's largest count: an upper bound on how far the
    `regex` library unrolls them when it compiles (`(a{1000}){1000}` took 1.2 s and 280 MB,
    deeper nestings run out of memory), taken before it compiles anything."""
    product = 1
    for low, high in _COUNTED.findall(text):
        product *= max(1, int(high or low or 1))
        if product > MAX_REPEATS:
            break
    return product


PATTERN_FORMS = ({"regexp"}, {"regexp", "case"}, {"wildcard"}, {"wildcard", "case"})


def pattern(value: Any, where: str) -> Match:
    """A wildcard string, or {"regexp": "..."} / {"wildcard": "..."} with an optional
    "case": true; a regular expression must compile."""
    if not isinstance(value, dict):
        return _wildcard(_text(value, where), False, where)
    if set(value) not in PATTERN_FORMS:
        raise DefinitionError(f'{where} must be a wildcard string or {{"regexp": "..."}} '
                              '(optionally with "case": true)')
    case = value.get("case", False)
    if not isinstance(case, bool):
        raise DefinitionError(f"{where}.case must be true or false")
    if "wildcard" in value:
        return _wildcard(_text(value["wildcard"], f"{where}.wildcard"), case, where)
    text = _text(value["regexp"], f"{where}.regexp")
    if repeats(text) > MAX_REPEATS:
        raise DefinitionError(f"{where}.regexp repeats too much: its counted repeats ({{m,n}}) "
                              f"multiply to more than {MAX_REPEATS}")
    try:
        regex.compile(text)
    except (regex.error, RecursionError, OverflowError, ValueError) as error:
        raise DefinitionError(f"{where}.regexp is not a regular expression: {error}") from None
    return Match(text, regexp=True, case=case)


def _wildcard(text: str, case: bool, where: str) -> Match:
    """A wildcard whose character classes make sense (`[z-a]` does not)."""
    from webcrawler.toolkit.patterns import wildcard_regex

    try:
        regex.compile(wildcard_regex(text))
    except (regex.error, RecursionError, OverflowError, ValueError) as error:
        raise DefinitionError(f"{where} is not a wildcard that can match: {error}") from None
    return Match(text, case=case)


def _action(value: Any) -> dict[str, Any]:
    value = {"type": "concatenate"} if value is None else value
    if not isinstance(value, dict) or value.get("type") not in ACTIONS:
        raise DefinitionError(f"action.type must be one of {', '.join(ACTIONS)}")
    kind = value["type"]
    allowed = {"type", "pattern", "format"} if kind == "extract" else {"type"}
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise DefinitionError(f"action {kind!r} takes no {unknown[0]!r}")
    if kind != "extract":
        return {"type": kind}
    if "pattern" not in value:
        raise DefinitionError("action extract needs a pattern (a wildcard or {\"regexp\": ...})")
    fmt = value.get("format", "csv")
    if fmt not in ("csv", "jsonl"):
        raise DefinitionError("action.format must be csv or jsonl")
    return {"type": kind, "pattern": pattern(value["pattern"], "action.pattern").as_json(), "format": fmt}
