"""How a setting is declared: once, as a dataclass field of its program's table (`Settings`
for the crawl, `ServeSettings` for the query server, `WorkbenchSettings` for the Workbench),
with its type (the annotation), its default, its bounds and its help. The flags
(config/options.py), environment variables and config-file keys (config/layers.py,
config/file.py), the bounds check of every layer (config/bounds.py) and docs/configuration.md's
tables (config/docs.py) are all read from these fields, so none of them spells a setting again.

Standard library only: the tables import it, and every agent process imports the crawl's.
"""

from __future__ import annotations

import dataclasses
from dataclasses import Field, dataclass
from typing import Any

NO_FLAG = "-"  # Spec.flag for a setting no flag sets; Spec.env for one no variable sets


@dataclass(frozen=True)
class Spec:
    """What a setting's field says besides its type and default.

    help   the flag's help, one sentence: "{default}" in it is the default as written;
           without it, "(default X)" is added when the default is a number or a word
    doc    the docs table's meaning, when longer than the help ("" = the help)
    low, high, low_open   a number's bounds (None: unbounded; low_open: above low)
    choices               the values a string, or each item of a list, may take
    flag   the flag ("" = --name-with-dashes; NO_FLAG = none)
    off    a boolean's second flag (--no-sitemaps, --all-text); without it the flag is a switch
    split  a list given to its flag as one text, split here (--types html,pdf)
    pattern               each value is a regular expression, which must compile
    metavar               the flag's metavar
    path   a path's flag takes a "file", a "dir", or an "existing file"
    env    the older, shorter variable besides the program's PREFIX + NAME ("" = none), or
           NO_FLAG for a setting no variable sets
    not_in_file           why the config file may not set it ("" = it may)
    """

    help: str
    doc: str = ""
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    choices: tuple[str, ...] = ()
    flag: str = ""
    off: str = ""
    split: str = ""
    pattern: bool = False
    metavar: str | None = None
    path: str = ""
    env: str = ""
    not_in_file: str = ""


def setting(default: Any, help: str, **spec: Any) -> Any:  # noqa: A002 - click's word
    """A dataclass field with its default and its Spec (Spec names the keywords)."""
    if isinstance(default, (list, dict, set)):
        raise TypeError("a setting's default is immutable (a tuple, not a list)")
    return dataclasses.field(default=default, metadata={"spec": Spec(help, **spec)})


def like(table: type, name: str, default: Any, help: str) -> Any:  # noqa: A002
    """A setting that is another table's setting `name` with a program's own default and help
    (the Workbench's --delay is the crawl's delay): its bounds and choices, declared once."""
    spec = dataclasses.replace(spec_of(fields_of(table)[name]), help=help, doc="")
    return dataclasses.field(default=default, metadata={"spec": spec})


def spec_of(field: Field) -> Spec:
    """The field's Spec (every field of a settings table has one)."""
    return field.metadata["spec"]


def flag_of(field: Field) -> str | None:
    """The field's flag as typed; None when no flag sets it."""
    flag = spec_of(field).flag
    if flag == NO_FLAG:
        return None
    return flag or "--" + field.name.replace("_", "-")


def fields_of(table: type) -> dict[str, Field]:
    """The table's fields by name, in the order declared."""
    return {f.name: f for f in dataclasses.fields(table)}
