"""The one tree of the project's errors: what the user is told, and with which exit status.

Every error of the house derives from `WebcrawlerError`; its message is one line for
the user (it names the file, the setting or the address, and says what to do; no
library's raw message), and `exit_code` is the status the command line exits with. The
command line turns them into that line and that status once, at its edge (cli/main.py), so
a command needs no try/except of its own to print and exit. The kinds, and where each
error lives (beside the code that raises it):

    WebcrawlerError                      exit 1
    ├── UsageError                       exit 2: what the user typed or configured cannot be used
    │   ├── ConfigError                  config/kinds.py: a setting (file, variable, flag)
    │   ├── QueryError                   index/models.py: a query the index cannot run
    │   ├── BadQuery                     web/payload.py: a request value to retype
    │   ├── InvalidURL                   protocol/urls.py
    │   ├── InvalidUserAgent             protocol/robots.py
    │   ├── ImportanceError              importance/metrics.py: an importance metric
    │   ├── DefinitionError              workbench/definition.py: a crawl definition
    │   ├── UnsafePath                   toolkit/actions/files.py: a path outside its folder
    │   └── SettingError                 engine/, recrawl/: a setting the Python API was given
    │       └── UnknownOption            an option a factory does not know (create_app(per_pgae=5))
    ├── ExtraMissing                     an optional part of the install is missing
    │   └── PlotsUnavailable             plots.py: webcrawler-search[plots]
    ├── DataDamaged                      a file of the data directory cannot be used as it is
    │   ├── DatabaseDamaged              database/schema.py
    │   ├── DatabaseUnavailable          database/schema.py: the database server does not answer
    │   └── IndexDamaged                 index/models.py
    ├── StorageError                     the data directory could not be written
    │   ├── StorageFull                  database/storage_errors.py: the disk is full
    │   └── IndexFailed                  engine/pipeline/index_sink.py: the index writer died
    ├── NothingToDo                      the data directory holds nothing for the command
    │   ├── NothingToCrawl               commands/index.py
    │   ├── NothingToReindex             engine/pipeline/reindex.py
    │   └── NoHistory                    recrawl/history.py: no crawl history to plan from
    ├── ServiceError                     a server or a peer could not be started or reached
    │   ├── ServeError                   web/server.py: cannot listen
    │   │   └── PortInUseError
    │   ├── NoAgentHosts                 agenthosts/errors.py
    │   ├── RemoteError                  workbench/remote.py: another workbench refused
    │   └── DemoError                    cli/demo.py
    ├── FetchError                       one retrieval failed: the agent answers a Failure
    │   ├── BodyError                    agents/body.py (BodyTooLarge, DeadlineExceeded, ...)
    │   └── PrivateAddress               agents/peer_check.py
    ├── SolveFailed                      recrawl/solve.py: the recrawl model has no solution
    ├── ToolkitError                     toolkit/: a crawler, pattern or action that cannot run as written
    └── OrderingError                    evaluate/: an ordering evaluation that cannot run as asked

Builtin bases stay beside the tree's where callers catch them (`ConfigError` is a
ValueError too, `PrivateAddress` an OSError, as the HTTP library expects). Nothing here
imports anything.
"""


class WebcrawlerError(Exception):
    """An error the user is told about in one line; `exit_code` is the command's status."""

    exit_code = 1


class UsageError(WebcrawlerError):
    """What the user typed or configured cannot be used: retype it (exit status 2, as click
    does for a bad option)."""

    exit_code = 2


class ToolkitError(WebcrawlerError, ValueError):
    """A personal crawler, pattern or action (webcrawler/toolkit/) that cannot run as written:
    no roots, an unknown order or event, a malformed pattern. A ValueError too, as the
    toolkit's callers have always caught; exit status 1, as `webcrawler crawl` always gave."""


class OrderingError(WebcrawlerError, ValueError):
    """An ordering evaluation (webcrawler/evaluate/) that cannot run as asked: an unknown
    order, a threshold no page reaches, start pages the crawl never fetched (exit status 1,
    as `evaluate-ordering` always gave)."""


class SettingError(UsageError, ValueError):
    """A setting the engine or the recrawl cannot run with, given through the Python API (the
    command line's and the config files' own checks come first: `ConfigError`)."""


class UnknownOption(SettingError, TypeError):
    """An option an app factory (`query_server.create_app`, `workbench.create_app`) does not
    know: a misspelt name would otherwise be dropped without a word. A TypeError too, as
    Python's own for an unexpected keyword argument."""


def refuse_unknown(what: str, given: dict[str, object], known: dict[str, object]) -> None:
    """UnknownOption naming every option of `given` that `known` does not hold."""
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise UnknownOption(f"unknown {what} option(s): {', '.join(unknown)}")


class ExtraMissing(WebcrawlerError):
    """A command needs an optional part of the install; the message names the extra
    (`pip install 'webcrawler-search[plots]'`)."""


class DataDamaged(WebcrawlerError):
    """A file of the data directory cannot be used as it is. The message names the file
    and says what to do; it is for the user: no library's raw message."""


class StorageError(WebcrawlerError):
    """The data directory could not be written; what was committed before is kept."""


class NothingToDo(WebcrawlerError):
    """The data directory holds nothing for the command to work on."""


class ServiceError(WebcrawlerError):
    """A server or a peer (the query server's port, an agent scheduler, another workbench)
    could not be started or reached."""


class FetchError(WebcrawlerError):
    """One retrieval failed. Never shown to the user as such: the agent reports it as a
    `Failure` message with its reason, and the crawl goes on."""


# The distribution's name, on PyPI and for pip (the import name stays `webcrawler`): PyPI's
# `webcrawler` is an unrelated package of 2013, so `pip install webcrawler` installs that.
DISTRIBUTION = "webcrawler-search"


def install_command(extra: str) -> str:
    """The pip command that adds an optional extra (`[plots]`, ...) to this distribution."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def needs_extra(extra: str, what: str, error: ImportError) -> ExtraMissing:
    """The one line a command prints when an optional dependency is not installed."""
    return ExtraMissing(f"{what} needs {error.name or 'an optional package'}, which is not "
                        f"installed: {install_command(extra)}")
