"""Who may talk to the agent roles: where they listen, and mutual TLS on Dask's own support.

A Dask worker runs any function sent to its port, and the scheduler forwards
any task a client submits: whoever reaches a role runs Python as its user. So
every role listens on loopback unless told otherwise, and beyond loopback it
needs mutual TLS (`--tls-ca`, `--tls-cert`, `--tls-key`: both ends of every
connection show a certificate signed by the cluster's CA, through
`distributed.security.Security` with encryption required) or the operator's
`--insecure`, and then it says what has become reachable. Importing this
module imports no Dask.
"""

from __future__ import annotations

import getpass
import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from webcrawler.errors import UsageError

EVERYWHERE = ("", "0.0.0.0", "::", "*")  # the spellings of "every interface"


class UnsafeRole(UsageError):
    """A role cannot start as asked: beyond loopback without TLS or --insecure, or TLS
    options that do not go together. The message is one line for the user."""


@dataclass(frozen=True)
class Tls:
    """The cluster's CA and this role's certificate and key (PEM files); all empty: no TLS."""

    ca: str = ""
    cert: str = ""
    key: str = ""

    @property
    def on(self) -> bool:
        return bool(self.ca or self.cert or self.key)

    def check(self, address: str = "") -> None:
        """All three files or none, each there; and a tls:// `address` exactly when TLS is on."""
        given = {"--tls-ca": self.ca, "--tls-cert": self.cert, "--tls-key": self.key}
        if self.on:
            missing = [flag for flag, value in given.items() if not value]
            if missing:
                raise UnsafeRole(f"mutual TLS needs --tls-ca, --tls-cert and --tls-key: "
                                 f"{', '.join(missing)} missing")
            absent = [f"{flag} {value}" for flag, value in given.items() if not Path(value).is_file()]
            if absent:
                raise UnsafeRole(f"no such file: {', '.join(absent)}")
        if address and address.startswith("tls://") != self.on:
            raise UnsafeRole(f"{address}: a tls:// address needs --tls-ca, --tls-cert and --tls-key, "
                             "and those need a tls:// address")

    def security(self) -> Any:
        """Dask's Security for every role (scheduler, worker, client) with this certificate,
        encryption required: a peer without a certificate of the CA is refused. None without TLS."""
        if not self.on:
            return None
        from distributed.security import Security

        pair = {"cert": self.cert, "key": self.key}
        return Security(tls_ca_file=self.ca, require_encryption=True,
                        **{f"tls_{role}_{part}": path for role in ("client", "scheduler", "worker")
                           for part, path in pair.items()})


def is_loopback(host: str) -> bool:
    """Does `host` name this machine only? Names other than localhost are not resolved:
    they may name any interface."""
    name = host.strip("[]")
    if name.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def exposure(role: str, host: str, tls: Tls, insecure: bool) -> str | None:
    """The warning for a `role` listening on `host`, None on loopback; UnsafeRole when it would
    listen beyond loopback without TLS and the operator did not pass --insecure."""
    if is_loopback(host):
        return None
    where = "every network interface" if host.strip("[]") in EVERYWHERE else host
    if tls.on:
        return (f"warning: the {role} listens on {where}, beyond this machine: only holders of a "
                f"certificate signed by {tls.ca} can connect")
    if not insecure:
        raise UnsafeRole(f"the {role} would listen on {where} without TLS, where anyone who reaches "
                         "it can run any code as this user: give --tls-ca, --tls-cert and --tls-key "
                         "(docs/scale-out.md), or --insecure on a network you trust")
    return (f"warning: the {role} listens on {where} without TLS (--insecure): anyone who can reach "
            f"{where} can run any Python code on this machine as {getpass.getuser()}")
