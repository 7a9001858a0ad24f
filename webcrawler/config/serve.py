"""The query server's own settings (`webcrawler serve`), as Settings is the crawl's.

Each field's default equals `webcrawler.query_server.OPTIONS` (tests/test_configuration.py
checks it) and its metadata holds the command-line help; flags are the field names with
dashes (`allowed_hosts` is the repeatable `--allowed-host`). Variables are
``WEBCRAWLER_SERVE_<NAME>``; the file's section is ``[serve]``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


def _help(text: str) -> Any:
    return {"help": text}


@dataclass(frozen=True)
class ServeSettings:
    """Everything the query server can be told (the app's options, plus where to listen)."""

    host: str = field(default="127.0.0.1", metadata=_help("Address to listen on."))
    port: int = field(default=5000, metadata=_help("Port to listen on (0: any free port)."))
    threads: int = field(default=8, metadata=_help("Request threads."))
    allowed_hosts: tuple[str, ...] = field(default=(), metadata=_help(
        "A host name the server answers to besides localhost and --host (repeatable); "
        "requests naming any other host get 421."))
    allow_from_url: bool = field(default=False, metadata=_help(
        "Let the real-time search form start from any URL, not only indexed documents."))
    allow_private_fetch: bool = field(default=False, metadata=_help(
        "Let real-time searches reach loopback and private addresses that the crawl's "
        "seeds do not name (refused by default)."))
    per_page: int = field(default=10, metadata=_help(
        "Results on a page of /search, and the JSON API's default n."))
    max_per_page: int = field(default=100, metadata=_help("The JSON API's largest n."))
    max_page: int = field(default=1000, metadata=_help("Deepest result page anyone may ask for."))
    max_query_length: int = field(default=1000, metadata=_help(
        "Characters; longer queries are refused with a message."))
    stats_ttl: float = field(default=5.0, metadata=_help("Seconds /stats figures are cached."))
    realtime_max_jobs: int = field(default=2, metadata=_help(
        "Real-time searches running at once (more: 429)."))
    realtime_seconds: float = field(default=30.0, metadata=_help(
        "The longest a real-time search may run, and its default."))
    realtime_max_fetches: int = field(default=100, metadata=_help(
        "Documents one real-time search may retrieve."))
    realtime_want: int = field(default=10, metadata=_help(
        "New documents a real-time search looks for by default."))
    realtime_agents: int = field(default=3, metadata=_help("Agent processes per real-time search."))
    realtime_delay: float | None = field(default=None, metadata=_help(
        "Seconds between two requests to one server in a real-time search (default: the "
        "crawl's delay)."))
    realtime_grace: float = field(default=30.0, metadata=_help(
        "Seconds past its limit before a real-time search's processes are killed."))

    def app_options(self) -> dict[str, Any]:
        """The options `webcrawler.query_server.create_app` takes (all but where to listen)."""
        listen = ("host", "port", "threads")
        return {k: v for k, v in asdict(self).items() if k not in listen}
