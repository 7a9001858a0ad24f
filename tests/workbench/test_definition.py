"""Crawl definitions: what is accepted, what is refused with a message naming the field."""

from __future__ import annotations

from typing import Any

import pytest

from webcrawler.workbench.definition import Definition, DefinitionError, Match, parse

ROOT = "http://127.0.8.1:8000/docs/"


def test_a_full_definition_is_read_and_given_back_unchanged() -> None:
    given = {"name": "manual", "roots": [ROOT], "limits": {"pages": 5, "depth": 2, "seconds": 9.5,
                                                          "bytes": 1000},
             "scope": "subtree", "follow": {"url": "*/docs/*", "anchor": {"regexp": "^Chapter"},
                                            "label": "child"},
             "process": {"title": "Chapter*", "content": {"regexp": "marker-[0-9]"}, "label": "local"},
             "order": "dfs", "action": {"type": "extract", "pattern": {"regexp": "marker-\\d"},
                                        "format": "jsonl"}}
    definition = parse(given)
    assert definition.follow["anchor"] == Match("^Chapter", regexp=True)
    assert definition.limits == {"pages": 5, "depth": 2, "seconds": 9.5, "bytes": 1000}
    assert definition.as_json() == {**given, "process": given["process"]}
    assert parse(definition.as_json()) == definition


def test_missing_fields_take_defaults_and_the_operators_caps() -> None:
    definition = parse({"roots": [ROOT]}, caps={"pages": 100, "seconds": 60})
    assert isinstance(definition, Definition)
    assert definition.limits == {"pages": 100, "depth": None, "seconds": 60, "bytes": None}
    assert (definition.scope, definition.order, definition.action) == ("server", "bfs",
                                                                       {"type": "concatenate"})


BAD: list[tuple[Any, str]] = [
    ([ROOT], "a JSON object"),
    ({}, "roots must be a non-empty list"),
    ({"roots": []}, "roots must be a non-empty list"),
    ({"roots": ["ftp://example.org/"]}, "roots[0] is not an http(s) URL"),
    ({"roots": ["http://"]}, "roots[0] is not an http(s) URL"),
    ({"roots": ["http://[::1"]}, "roots[0] is not an http(s) URL"),
    ({"roots": [7]}, "roots[0] must be a string"),
    ({"roots": [ROOT] * 21}, "at most 20"),
    ({"roots": [ROOT], "python": "import os"}, "unknown field 'python'"),
    ({"roots": [ROOT], "limits": {"pages": 0}}, "limits.pages must be a number of at least 1"),
    ({"roots": [ROOT], "limits": {"pages": True}}, "limits.pages must be a number"),
    ({"roots": [ROOT], "limits": {"pages": 2.5}}, "limits.pages must be a whole number"),
    ({"roots": [ROOT], "limits": {"seconds": float("nan")}}, "limits.seconds must be a number"),
    ({"roots": [ROOT], "limits": {"depth": -1}}, "limits.depth must be a number of at least 0"),
    ({"roots": [ROOT], "limits": {"hours": 1}}, "unknown limit 'hours'"),
    ({"roots": [ROOT], "limits": [1]}, "limits must be an object"),
    ({"roots": [ROOT], "scope": "planet"}, "scope must be one of server, subtree, anywhere"),
    ({"roots": [ROOT], "order": "random"}, "order must be one of bfs, dfs, priority"),
    ({"roots": [ROOT], "follow": {"url": {"regexp": "("}}}, "follow.url.regexp is not a regular"),
    ({"roots": [ROOT], "follow": {"url": {"glob": "*"}}}, "follow.url must be a wildcard"),
    ({"roots": [ROOT], "follow": {"url": {"regexp": "x", "case": "yes"}}},
     "follow.url.case must be true or false"),
    ({"roots": [ROOT], "follow": {"url": {"wildcard": 5}}}, "follow.url.wildcard must be a string"),
    ({"roots": [ROOT], "process": {"title": "[z-a]x"}}, "process.title is not a wildcard that"),
    # compiling these would unroll them: seconds and gigabytes in the server, before any crawl
    ({"roots": [ROOT], "process": {"content": {"regexp": "(?:(?:a{65535}){65535}){65535}"}}},
     "process.content.regexp repeats too much"),
    ({"roots": [ROOT], "action": {"type": "extract", "pattern": {"regexp": "(a{1000}){1000}"}}},
     "action.pattern.regexp repeats too much"),
    ({"roots": [ROOT], "follow": {"title": "x"}}, "follow: unknown rule 'title'"),
    ({"roots": [ROOT], "process": {"url": ["x"]}}, "process.url must be a string"),
    ({"roots": [ROOT], "process": {"content": "a\x00"}}, "without NUL"),
    ({"roots": [ROOT], "action": {"type": "python"}}, "action.type must be one of"),
    ({"roots": [ROOT], "action": {"type": "extract"}}, "action extract needs a pattern"),
    ({"roots": [ROOT], "action": {"type": "save", "code": "x"}}, "action 'save' takes no 'code'"),
    ({"roots": [ROOT], "action": {"type": "extract", "pattern": "x", "format": "xml"}},
     "action.format must be csv or jsonl"),
]


@pytest.mark.parametrize(("data", "message"), BAD)
def test_a_bad_definition_is_refused_with_the_field_named(data: Any, message: str) -> None:
    with pytest.raises(DefinitionError) as raised:
        parse(data)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_a_limit_above_the_operators_cap_is_refused() -> None:
    with pytest.raises(DefinitionError, match="limits.pages must be at most 50 on this workbench"):
        parse({"roots": [ROOT], "limits": {"pages": 51}}, caps={"pages": 50})
    assert parse({"roots": [ROOT], "limits": {"pages": 50}}, caps={"pages": 50}).limits["pages"] == 50
