"""Every default in the command line's help written once, one way: "(default X)" in the
option's own sentence. click's `show_default=True` writes `[default: X]` after the help,
which most options (whose defaults come from the settings, given as None here) cannot
use, so help read both ways; `defaults_in_help` turns the first into the second."""

from __future__ import annotations

import click

from webcrawler.config.helptext import with_default


def defaults_in_help(command: click.Command) -> None:
    """Each option of `command` (and of its subcommands) shown with `show_default=True` says
    its default in its help instead, once."""
    for param in command.params:
        if not isinstance(param, click.Option) or param.show_default is not True:
            continue
        param.show_default = False
        if param.default is not None and not param.is_flag and "default" not in (param.help or ""):
            param.help = with_default(param.help or "", param.default)
    if isinstance(command, click.Group):
        for sub in command.commands.values():
            defaults_in_help(sub)
