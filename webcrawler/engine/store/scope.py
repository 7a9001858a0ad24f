"""The crawl's scope, stored with the crawl, so every later command on the data directory keeps it.

`webcrawler index` writes the scope in force (include and exclude patterns,
maximum depth, per-server cap, robots.txt product token, and the seeds'
hosts) to the database's `meta` table; a resumed `index`, `webcrawler search`
and the query server's real-time jobs read it back. Without this, a real-time
job started from the web would run with no include rule at all and fetch
whatever a page links to.

Precedence: defaults <- ``DATA/webcrawler.toml`` <- ``WEBCRAWLER_*`` environment <-
the stored scope <- flags given on the command line. A flag replaces the stored value whole: one
``--include`` replaces the stored include list (give ``--include ''`` to lift
it; ``--exclude ''`` excludes nothing). The seeds' hosts only grow: a resumed
`index` with new seeds adds theirs; `search --from` never adds any (those URLs
come from visitors).

    resolve(engine, settings, explicit, save) -> (Settings, description)
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Collection
from typing import Any

from sqlalchemy import delete, insert, select
from sqlalchemy.engine import Engine

from webcrawler.database.schema import meta
from webcrawler.protocol.urls import host_of, try_normalize
from webcrawler.settings import Settings

log = logging.getLogger(__name__)

KEY = "scope"
FIELDS = ("include", "exclude", "max_depth", "max_docs_per_server", "robots_token")


def resolve(engine: Engine, settings: Settings, explicit: Collection[str] | None = None,
            save: bool = False) -> tuple[Settings, str]:
    """The settings with the stored scope applied under the `explicit` flags, and a line
    saying which scope is in force. `explicit` None: the fields that differ from the
    defaults count as given. `save`: store the result (what `webcrawler index` does)."""
    if explicit is None:
        explicit = {f for f in FIELDS if getattr(settings, f) != getattr(Settings(), f)}
    stored = load(engine)
    if not stored and not save:
        log.warning("no scope is stored with this crawl (it predates stored scopes): run "
                    "`webcrawler index` once on this data directory to store it")
    changes: dict[str, Any] = {f: stored[f] for f in FIELDS if f in stored and f not in explicit}
    for name in ("include", "exclude"):
        if name in changes:
            changes[name] = tuple(changes[name])
    hosts = {*stored.get("hosts", ()), *settings.scope_hosts, *_hosts(settings.seeds if save else ())}
    resolved = dataclasses.replace(settings, scope_hosts=tuple(sorted(hosts)), **changes)
    if save:
        _store(engine, resolved)
    return resolved, describe(resolved, bool(stored), [f for f in FIELDS if f in explicit])


def load(engine: Engine) -> dict[str, Any]:
    """The stored scope ({} when none was stored, or it cannot be read)."""
    with engine.connect() as conn:
        text = conn.execute(select(meta.c.value).where(meta.c.key == KEY)).scalar()
    try:
        stored = json.loads(text) if text else {}
    except ValueError:
        log.warning("the stored crawl scope is unreadable: using the command line's")
        return {}
    return stored if isinstance(stored, dict) else {}


def describe(settings: Settings, stored: bool, overridden: list[str]) -> str:
    """One line: where the scope comes from, then the scope."""
    source = "stored with the crawl" if stored else "from the command line"
    if stored and overridden:
        source += "; given on the command line: " + ", ".join(overridden)
    return (f"scope ({source}): include {list(settings.include) or 'any'}, "
            f"exclude {list(settings.exclude) or 'none'}, max depth {settings.max_depth}, "
            f"per server {settings.max_docs_per_server or 'no cap'}, "
            f"token {settings.robots_token}, hosts {list(settings.scope_hosts) or 'none'}"
            + (", private addresses refused" if settings.deny_private else ""))


def _store(engine: Engine, settings: Settings) -> None:
    value = {f: getattr(settings, f) for f in FIELDS} | {"hosts": list(settings.scope_hosts)}
    with engine.begin() as conn:
        conn.execute(delete(meta).where(meta.c.key == KEY))
        conn.execute(insert(meta).values(key=KEY, value=json.dumps(value)))


def _hosts(seeds: Collection[str]) -> set[str]:
    """The canonical hosts of the seeds (as `urls.normalize` writes them)."""
    normal = (try_normalize(seed) for seed in seeds)
    return {_bracketed(host_of(url)) for url in normal if url}


def _bracketed(host: str) -> str:
    return f"[{host}]" if ":" in host else host
