"""Fixtures for real-time search: a topic web on 127.0.7.x, partly indexed once per module.

`indexed` gives each test its own copy of a data directory where `webcrawler
index` fetched the first documents breadth-first from the home pages, so the
index holds only part of the web.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.realtime.topicweb import TopicWeb
from webcrawler.commands.index import run_index
from webcrawler.engine.realtime.search import RealtimeOptions, RealtimeSummary, run_realtime
from webcrawler.settings import Settings

INDEXED_DOCS = 40


def make_settings(data_dir: Path, **changes: object) -> Settings:
    # The topic web answers at once: the timeouts only bound a fetch starved of CPU by the
    # tests running beside it, and a fetch cut short would change what a search finds.
    base = Settings(data_dir=data_dir, agents=2, delay=0.0, hours=0.05, commit_every=20,
                    progress_interval=60.0, connect_timeout=10.0, read_timeout=10.0,
                    total_timeout=20.0)
    return dataclasses.replace(base, **changes)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def topic_web() -> Iterator[TopicWeb]:
    with TopicWeb(servers=3, pages_per_topic=20) as web:
        yield web


@pytest.fixture(scope="module")
def indexed_base(topic_web: TopicWeb, tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("realtime") / "base"
    run_index(make_settings(base, seeds=tuple(topic_web.homes()), max_docs=INDEXED_DOCS),
              progress=False)
    return base


@pytest.fixture
def indexed(indexed_base: Path, tmp_path: Path) -> Path:
    """A private copy of the partly indexed data directory."""
    data = tmp_path / "data"
    shutil.copytree(indexed_base, data)
    return data


def search(data_dir: Path, query: str, events: list | None = None, settings: dict | None = None,
           **options: object) -> RealtimeSummary:
    """Run a real-time search in this process, collecting its events in `events`."""
    sink = events if events is not None else []
    return run_realtime(make_settings(data_dir, **(settings or {})),
                        RealtimeOptions(query, **options),  # type: ignore[arg-type]
                        on_event=sink.append)
