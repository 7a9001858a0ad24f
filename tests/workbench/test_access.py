"""The workbench's own safety (issue 37): a token it was given is never printed, the bearer
scheme is read in any case, it serves HTTPS with --tls-cert/--tls-key, and it refuses to listen
beyond loopback over plain HTTP unless told --insecure. Real workbench processes; a real TLS
client trusting only this test's CA."""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from tests.support.tls import TestCA
from tests.support.waiting import wait_until
from tests.workbench.conftest import Workbench
from webcrawler.web import processes

TOKEN = "0perator-given-T0ken-4f1c9e"


def started(command: list[str], errors) -> tuple[subprocess.Popen, str]:  # type: ignore[no-untyped-def]
    process = processes.start(command, errors)
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def workbench(tmp_path: Path, *flags: str) -> list[str]:
    return [sys.executable, "-m", "webcrawler.cli", "workbench", "--data-dir", str(tmp_path),
            "--port", "0", *flags]


def test_a_given_token_is_never_printed_and_bearer_is_read_in_any_case(tmp_path: Path) -> None:
    with tempfile.TemporaryFile("w+") as errors:
        process, line = started(workbench(tmp_path, "--token", TOKEN), errors)
        try:
            bench = Workbench(line.removeprefix("Workbench at "), process, tmp_path)

            def printed() -> str:
                errors.seek(0)
                return errors.read()

            wait_until(lambda: "Token: " in printed(), 30, "nothing said of the token")
            assert TOKEN not in printed() + line and "Token: set (sha256:" in printed()
            for scheme in ("Bearer", "bearer", "BEARER", "bEaReR"):
                assert bench.call("GET", "/api/crawls", headers={
                    "Authorization": f"{scheme} {TOKEN}"}) == (200, {"crawls": []}), scheme
            assert bench.call("GET", "/api/crawls", headers={"Authorization": f"Basic {TOKEN}"}
                              )[0] == 401
            assert bench.call("GET", "/api/crawls", headers={"Authorization": "bearer nope"}
                              )[0] == 401
        finally:
            processes.end_group(process, 5)
            if process.stdout is not None:
                process.stdout.close()


def test_it_serves_https_with_a_certificate(tmp_path: Path) -> None:
    ca = TestCA(tmp_path / "ca")
    issued = ca.issue("127.0.0.1")
    with tempfile.TemporaryFile("w+") as errors:
        process, line = started(workbench(tmp_path / "data", "--tls-cert", str(issued.cert),
                                          "--tls-key", str(issued.key), "--token", TOKEN), errors)
        try:
            url = line.removeprefix("Workbench at ")
            assert url.startswith("https://127.0.0.1:"), (line, errors.read())
            context = ssl.create_default_context(cafile=str(ca.cert))
            request = urllib.request.Request(url + "api/crawls",
                                             headers={"Authorization": f"Bearer {TOKEN}"})
            with urllib.request.urlopen(request, timeout=30, context=context) as answer:
                assert answer.status == 200 and json.loads(answer.read()) == {"crawls": []}
            plain = url.replace("https://", "http://") + "api/crawls"
            try:
                urllib.request.urlopen(plain, timeout=10).close()
                raise AssertionError("answered plain HTTP")
            except OSError:
                pass  # no plain HTTP on the TLS port
        finally:
            processes.end_group(process, 5)
            if process.stdout is not None:
                process.stdout.close()


def test_beyond_loopback_plain_http_is_refused_without_insecure(tmp_path: Path) -> None:
    """127.1 is loopback, but not a spelling the exposure check trusts: it stands for an address
    beyond loopback without leaving this machine."""
    refused = subprocess.run(workbench(tmp_path, "--host", "127.1"), capture_output=True,
                             text=True, timeout=60)
    assert refused.returncode == 2 and refused.stdout == ""
    assert "--tls-cert" in refused.stderr and "--insecure" in refused.stderr
    half = subprocess.run(workbench(tmp_path, "--tls-cert", __file__), capture_output=True,
                          text=True, timeout=60)
    assert half.returncode == 2 and "go together" in half.stderr
