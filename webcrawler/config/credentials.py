"""Credentials per server, from `[[credentials]]` tables of the data directory's webcrawler.toml:

    [[credentials]]
    host = "intranet.example:8443"   # host, or host:port
    username = "crawler"             # HTTP Basic
    password = "..."
    # or: header = "Authorization: Bearer ..."
    # scheme = "http"                # only to say so: a credential goes over https only

They are read here, not as crawl settings, so that no settings object, `webcrawler config`
output, stored scope or log line ever holds them; the agents get them in their AgentConfig and
send each only to its own host and scheme (agents/credentials.py). Problems are one ConfigError line
naming the table, never its secret.
"""

from __future__ import annotations

import base64
from pathlib import Path

from webcrawler.config.kinds import ConfigError
from webcrawler.config.toml_file import read_toml
from webcrawler.protocol.messages import Credential

FILE_NAME = "webcrawler.toml"  # as config/file.py, which checks the tables through `parse`
KEYS = {"host", "username", "password", "header", "scheme"}
SCHEMES = ("https", "http")


def read_credentials(data_dir: Path) -> tuple[Credential, ...]:
    """The credentials of `data_dir`'s webcrawler.toml (none without a file or tables)."""
    path = Path(data_dir) / FILE_NAME
    try:
        document = read_toml(path)
    except FileNotFoundError:
        return ()
    return parse(path, document.get("credentials", []))


def parse(path: Path, tables: object) -> tuple[Credential, ...]:
    """`[[credentials]]` tables as Credentials; ConfigError naming the table otherwise."""
    if not isinstance(tables, list):
        raise ConfigError(f"{path}: credentials must be [[credentials]] tables")
    return tuple(_one(f"{path}: [[credentials]] #{n}", table)
                 for n, table in enumerate(tables, 1))


def _one(where: str, table: object) -> Credential:
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = sorted(set(table) - KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key {unknown[0]} (keys: {', '.join(sorted(KEYS))})")
    if not all(isinstance(v, str) for v in table.values()):
        raise ConfigError(f"{where}: every value must be a string")
    host = table.get("host", "").strip().lower()
    if not host or "/" in host:
        raise ConfigError(f"{where}: host must be a host name, or host:port")
    scheme = table.get("scheme", "https").strip().lower()
    if scheme not in SCHEMES:
        raise ConfigError(f"{where}: scheme must be https (the default) or http")
    if "header" in table:
        if "username" in table or "password" in table:
            raise ConfigError(f"{where}: give header, or username and password, not both")
        name, colon, value = table["header"].partition(":")
        if not colon or not name.strip() or not value.strip():
            raise ConfigError(f"{where}: header must read 'Name: value'")
        return Credential(host, name.strip(), value.strip(), scheme)
    if "username" not in table or "password" not in table:
        raise ConfigError(f"{where}: give username and password (HTTP Basic), or header")
    token = base64.b64encode(f"{table['username']}:{table['password']}".encode()).decode()
    return Credential(host, "Authorization", f"Basic {token}", scheme)
