"""A real Dask cluster on loopback for the agent-host tests: the roles' own commands
(tests/support/cluster.py), every process stopped and reaped at the end."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("distributed")

from tests.support.cluster import Cluster, agent_cluster  # noqa: E402


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    """The scheduler on 127.0.9.1 and two agent hosts (127.0.9.2 and 127.0.9.3, two agents each)."""
    with agent_cluster(tmp_path / "cluster", {"127.0.9.2": 2, "127.0.9.3": 2}) as made:
        yield made
