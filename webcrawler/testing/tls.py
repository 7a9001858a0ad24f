"""A certificate authority and certificates signed by it, made with `openssl`, for tests.

The same commands as docs/scale-out.md's worked example ("Mutual TLS"), so the
tests check what the documentation tells an operator to run.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

DAYS = "2"  # certificates for a test run


@dataclass(frozen=True)
class Certificate:
    """A PEM certificate and its key, and the CA certificate that signed it."""

    ca: Path
    cert: Path
    key: Path

    def flags(self) -> list[str]:
        """The roles' options for this certificate."""
        return ["--tls-ca", str(self.ca), "--tls-cert", str(self.cert), "--tls-key", str(self.key)]


def make_ca(directory: Path, name: str = "ca") -> tuple[Path, Path]:
    """A new CA in `directory`: (its certificate, its key)."""
    directory.mkdir(parents=True, exist_ok=True)
    cert, key = directory / f"{name}.pem", directory / f"{name}.key"
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
             "-days", DAYS, "-subj", f"/CN=webcrawler agents {name}")
    return cert, key


def sign(ca: tuple[Path, Path], directory: Path, name: str) -> Certificate:
    """A certificate for one role (`name`), signed by `ca`."""
    ca_cert, ca_key = ca
    cert, key, request = directory / f"{name}.pem", directory / f"{name}.key", directory / f"{name}.csr"
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", request,
             "-subj", f"/CN={name}")
    _openssl("x509", "-req", "-in", request, "-CA", ca_cert, "-CAkey", ca_key, "-CAcreateserial",
             "-out", cert, "-days", DAYS)
    return Certificate(ca_cert, cert, key)


def _openssl(*args: object) -> None:
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True, timeout=60)
