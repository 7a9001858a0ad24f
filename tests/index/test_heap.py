"""Freed work arrays stay in the heap: the next query's arrays fault no fresh pages in."""

from __future__ import annotations

import subprocess
import sys

import pytest

from webcrawler.index import heap

PROBE = """
import resource, sys, numpy as np
from webcrawler.index import heap
kept = heap.keep_freed_memory() if sys.argv[1] == "1" else False
rng = np.random.default_rng(1)
N = 146_000
ids = np.sort(rng.choice(N, 57_000, replace=False))
other = np.sort(rng.choice(N, 32_000, replace=False))
def query():  # a score and a mark per document, two lists' scores added, as wordsearch does
    summed = np.zeros(N); touched = np.zeros(N, bool)
    summed[ids] = rng.random(len(ids)); touched[ids] = True
    summed[other] += rng.random(len(other)); touched[other] = True
    return summed[np.flatnonzero(touched)]
for _ in range(3): query()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10): query()
print(kept, (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) // 10)
"""


def _faults_a_query(keep: bool) -> tuple[str, int]:
    """(whether the thresholds were set, pages faulted in per query) in a fresh process."""
    out = subprocess.run([sys.executable, "-c", PROBE, "1" if keep else "0"],
                         capture_output=True, text=True, check=True).stdout.split()
    return out[0], int(out[1])


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_a_freed_array_is_reused_instead_of_faulted_in_again() -> None:
    kept, faults = _faults_a_query(True)
    assert kept == "True"
    assert faults < 20
    _not_kept, default_faults = _faults_a_query(False)
    assert default_faults > 10 * max(faults, 1)  # malloc's default: the arrays' pages again
    assert heap.keep_freed_memory() is True  # once per process: a second call agrees
