"""The workbench's OpenAPI description, and schemathesis fuzzing a running workbench against it.

The fuzzed workbench runs under waitress on loopback with tiny caps (one crawl
at a time, five pages, three seconds) and a RequestPolicy allowing only
127.0.9.250, where nothing listens: whatever definition the fuzzer invents,
its crawl may request nothing else. No answer may be a 5xx, and every answer
must match the description.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from webcrawler.query_server import ServerThread
from webcrawler.workbench.app import create_app
from webcrawler.workbench.openapi import describe

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]
FUZZ_OPTIONS = dict(max_crawls=1, max_pages=5, max_seconds=3.0, max_bytes=100_000, max_depth=2,
                    agents=1, delay=0.0, policy_hosts=("127.0.9.250",))
CAPS = {"pages": 5, "depth": 2, "seconds": 3.0, "bytes": 100_000}
schema = schemathesis.openapi.from_dict(describe(CAPS))


@pytest.fixture(scope="module")
def fuzz_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    app = create_app(Path(tmp_path_factory.mktemp("fuzz")), **FUZZ_OPTIONS)
    try:
        with ServerThread(app, host="127.0.0.1", port=0, threads=4) as server:
            yield server.url
    finally:
        app.extensions["webcrawler.workbench"].close()


@schema.parametrize()
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_the_api_matches_its_description(case: schemathesis.Case, fuzz_url: str) -> None:
    case.call_and_validate(base_url=fuzz_url.rstrip("/"), checks=CHECKS, timeout=30)


def test_the_description_is_the_one_served(fuzz_url: str) -> None:
    with urllib.request.urlopen(fuzz_url + "api/openapi.json", timeout=10) as response:
        description = json.load(response)
    assert set(description["paths"]) == {"/api/crawls", "/api/crawls/{crawl_id}",
                                         "/api/crawls/{crawl_id}/events", "/api/crawls/{crawl_id}/result"}
    assert description == json.loads(json.dumps(describe(CAPS)))
