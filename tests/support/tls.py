"""Certificate authorities and certificates signed by them, made with `openssl`, for tests.

Two uses. The agent roles' mutual TLS: `make_ca` and `sign`, the same commands as
docs/scale-out.md's worked example ("Mutual TLS"), so the tests check what the
documentation tells an operator to run. An intranet's private CA: `TestCA` issues server
certificates for loopback addresses and client certificates, as an intranet's own CA would
(nothing here is trusted by the system):

    ca = TestCA(directory)
    server = ca.issue("127.0.6.50")           # Issued(cert, key) for a server on that address
    client = ca.issue("crawler", client=True)  # for --client-cert / --client-key
    Site("127.0.6.50", routes, tls=ca.server_context(server, client_ca=True))
"""

from __future__ import annotations

import ipaddress
import ssl
import subprocess
from dataclasses import dataclass
from pathlib import Path

DAYS = "2"  # certificates for a test run
KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]


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


@dataclass(frozen=True)
class Issued:
    cert: Path
    key: Path


class TestCA:
    """A certificate authority in `directory` (ca.pem is what --ca-bundle takes)."""

    __test__ = False  # not a pytest test class

    def __init__(self, directory: Path, name: str = "webcrawler test CA") -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.cert, self.key = self.directory / "ca.pem", self.directory / "ca.key"
        _openssl("req", "-x509", *KEY, "-keyout", self.key, "-out", self.cert, "-days", DAYS,
                 "-subj", f"/CN={name}", "-addext", "basicConstraints=critical,CA:TRUE",
                 "-addext", "keyUsage=critical,keyCertSign,cRLSign")

    def issue(self, name: str, client: bool = False) -> Issued:
        """A certificate for `name` (an IP address or a host name), signed by this CA."""
        stem = self.directory / name.replace(":", "_")
        cert, key, request = (stem.with_suffix(".pem"), stem.with_suffix(".key"),
                              stem.with_suffix(".csr"))
        _openssl("req", *KEY, "-keyout", key, "-out", request, "-subj", f"/CN={name}")
        extensions = stem.with_suffix(".ext")
        extensions.write_text("basicConstraints=critical,CA:FALSE\n"
                              "keyUsage=critical,digitalSignature\n"
                              f"extendedKeyUsage={'clientAuth' if client else 'serverAuth'}\n"
                              + ("" if client else f"subjectAltName={_san(name)}\n"))
        _openssl("x509", "-req", "-in", request, "-CA", self.cert, "-CAkey", self.key,
                 "-CAcreateserial", "-out", cert, "-days", DAYS, "-extfile", extensions)
        return Issued(cert, key)

    def server_context(self, issued: Issued, client_ca: bool = False) -> ssl.SSLContext:
        """A server-side context presenting `issued`; `client_ca`: demand a client certificate
        signed by this CA."""
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(issued.cert, issued.key)
        if client_ca:
            context.verify_mode = ssl.CERT_REQUIRED
            context.load_verify_locations(self.cert)
        return context


def _san(name: str) -> str:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return f"DNS:{name}"
    return f"IP:{name}"


def _openssl(*args: object) -> None:
    subprocess.run(["openssl", *map(str, args)], check=True, capture_output=True, timeout=60)
