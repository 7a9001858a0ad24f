"""Every benchmark module imports: a bench is run by hand, rarely, so a name moved in the
product (as `_pack` did, to outbox.pack) would otherwise break it unnoticed until BENCHMARKS.md's
command fails for the next reader."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
NEEDS_CELERY = {"celery_app"}  # the Dask-against-Celery comparison's worker app: celery is not installed


@pytest.mark.parametrize("name", sorted(p.stem for p in BENCH.glob("*.py")
                                        if p.stem not in NEEDS_CELERY | {"__init__"}))
def test_bench_module_imports(name: str) -> None:
    module = importlib.import_module(f"bench.{name}")
    assert module.__doc__, f"bench/{name}.py says what it measures"
