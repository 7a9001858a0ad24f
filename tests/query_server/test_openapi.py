"""The published OpenAPI description, and schemathesis fuzzing the running server against it.

The fuzzed app runs under waitress on loopback, over a data directory whose
index holds only loopback URLs, with starting from a URL off and real-time
jobs kept tiny (one at a time, two seconds, three fetches): the fuzzer may start
jobs, which may fetch only 127.0.3.x addresses where nothing listens.
No answer may be a 5xx, and every answer must match the description.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from tests.query_server.conftest import build_app, corpus, write_database, write_index
from webcrawler.query_server import OPTIONS, ServerThread
from webcrawler.query_server.openapi import describe

CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance,
          response_schema_conformance]


@pytest.fixture(scope="module")
def fuzz_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("fuzz")
    write_index(data_dir / "index", corpus())
    write_database(data_dir)
    for app in build_app(data_dir, **FUZZ_OPTIONS):
        with ServerThread(app, host="127.0.0.1", port=0, threads=4) as server:
            yield server.url
        app.extensions["webcrawler.realtime"].close()


# Loaded at import (schemathesis 4.32's lazy `from_fixture` breaks on pytest 9), from the same
# options as the fuzzed app; test_the_description_is_the_one_served checks the server agrees.
FUZZ_OPTIONS = dict(realtime_max_jobs=1, realtime_seconds=2.0, realtime_max_fetches=3,
                    realtime_agents=1, realtime_delay=0.0, realtime_grace=2.0)
DESCRIPTION = describe({k.upper(): v for k, v in {**OPTIONS, **FUZZ_OPTIONS}.items()})
schema = schemathesis.openapi.from_dict(DESCRIPTION)


@schema.parametrize()
@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
def test_the_api_matches_its_description(case: schemathesis.Case, fuzz_url: str) -> None:
    case.call_and_validate(base_url=fuzz_url.rstrip("/"), checks=CHECKS, timeout=30)


def test_the_description_is_the_one_served(fuzz_url: str) -> None:
    import json
    import urllib.request

    with urllib.request.urlopen(fuzz_url + "api/openapi.json", timeout=10) as response:
        description = json.load(response)
    assert description["openapi"].startswith("3.")
    assert set(description["paths"]) == {"/api/search", "/api/suggest", "/api/stats",
                                         "/api/realtime", "/api/realtime/{job_id}"}
    assert set(description["paths"]["/api/realtime/{job_id}"]) == {"get", "delete"}
    assert description == json.loads(json.dumps(DESCRIPTION))
