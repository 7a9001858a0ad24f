"""The Workbench's settings table (`webcrawler workbench`), as `Settings` is the crawl's.

Each field is one setting, declared once (settings/declare.py): `webcrawler workbench`'s
flags, the app factory's options (`webcrawler.workbench.app.OPTIONS`) and
docs/configuration.md's table are read from it. The Workbench reads no config-file section
and, but for its token, no variable: its crawls take the data directory's `[crawl]` settings
(webcrawler/workbench/app.py), and these are the operator's bounds on them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from webcrawler.settings import Settings
from webcrawler.settings.declare import like, setting

# Where and how to listen: waitress's and the command's, not the app's.
LISTEN = ("data_dir", "host", "port", "threads", "tls_cert", "tls_key", "insecure")


@dataclass(frozen=True)
class WorkbenchSettings:
    """Everything the Workbench can be told: where it listens, and its crawls' bounds."""

    data_dir: Path | None = setting(
        None, "The data directory (default ./webcrawler-data, or $WEBCRAWLER_DATA): crawls and "
        "their results are kept in its workbench/ folder.", path="dir")
    host: str = setting("127.0.0.1", "Address to listen on.")
    port: int = setting(5001, "Port to listen on (0: any free port).", low=0, high=65535)
    threads: int = setting(
        16, "Request threads (each open page holds one for its event stream).", low=2, high=64)
    max_crawls: int = setting(2, "Crawls running at once.", low=1, high=64)
    max_pages: int = setting(1000, "Most pages one crawl may visit.", low=1)
    max_seconds: float = setting(600.0, "Longest a crawl may run.", low=1)
    max_depth: int | None = setting(None, "Deepest a crawl may go.", low=0)
    max_bytes: int = setting(100_000_000, "Most bytes one crawl may retrieve.", low=1)
    agents: int | None = like(
        Settings, "agents", None, "Agent processes per crawl (default: the data directory's "
        "crawl settings, else 4).")
    delay: float | None = like(
        Settings, "delay", None, "Seconds between two requests to one server (default: the "
        "crawl settings', 1).")
    allow_private_fetch: bool = setting(
        False, "Let crawls reach any loopback or private address (refused by default).")
    private_hosts: tuple[str, ...] = setting(
        (), "A host crawls may reach although it is loopback or private (repeatable; any port).",
        flag="--allow-private-host", metavar="HOST")
    token: str | None = setting(
        None, "Every request must carry this token (default: none on loopback; one is generated "
        "and printed when --host is not loopback).", env="WEBCRAWLER_WORKBENCH_TOKEN",
        doc="every request must carry it (`Authorization: Bearer TOKEN`, the scheme in any case, "
            "or the cookie the printed address sets); a token given is never printed, only its "
            "fingerprint (`sha256:...`); default: none on loopback, generated and printed when "
            "`--host` is not loopback")
    keep_events: int = setting(
        20_000, "Events one crawl keeps (in its folder); the rest are counted.", low=100)
    keep_crawls: int = setting(
        200, "Crawl folders kept; the oldest finished ones are removed.", low=1)
    policy_hosts: tuple[str, ...] = setting(
        (), "RequestPolicy: a host crawls may reach (repeatable; wildcards; default any).",
        flag="--policy-host")
    policy_rate: float | None = setting(None, "RequestPolicy: requests per second per crawl.",
                                        low=0.01)
    policy_bytes: int | None = setting(None, "RequestPolicy: byte budget per crawl.", low=1)
    audit_log: Path | None = setting(
        None, "RequestPolicy: append every request's decision here (JSON lines).", path="file")
    allowed_hosts: tuple[str, ...] = setting(
        (), "A host name to answer to besides localhost and --host (repeatable).",
        flag="--allowed-host")
    tls_cert: Path | None = setting(
        None, "Serve HTTPS with this PEM certificate (with --tls-key).", path="existing file",
        doc="serve HTTPS with this PEM certificate and `--tls-key`'s key (both or neither)")
    tls_key: Path | None = setting(None, "The certificate's private key (PEM).",
                                   path="existing file")
    use_credentials: bool = setting(
        False, "Crawls send the data directory's [[credentials]] to their servers (not sent "
        "without it: anyone who may use the workbench reads what they open).",
        doc="the workbench's crawls send the data directory's `[[credentials]]` (below); without "
            "it they send none, so a visitor cannot read what they open")
    insecure: bool = setting(
        False, "Listen beyond loopback over plain HTTP (the token and every page cross the "
        "network in clear); refused without it.",
        doc="let `--host` beyond loopback serve plain HTTP; without it (or `--tls-cert`) such a "
            "`--host` is refused with one line")

    def app_options(self) -> dict[str, Any]:
        """The options `webcrawler.workbench.app.create_app` takes (all but where to listen)."""
        return {k: v for k, v in asdict(self).items() if k not in LISTEN}
