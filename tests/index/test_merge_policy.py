"""The merge policy keeps the segment count logarithmic and each merge bounded."""

from __future__ import annotations

import math
import random

from webcrawler.index.writing.writer import choose_merge


def simulate(commits: list[int], fan_in: int, cap: int) -> tuple[list[int], int, int]:
    """(segment sizes at the end, documents rewritten by merges, largest merge)."""
    sizes: list[int] = []
    rewritten = largest = 0
    for added in commits:
        sizes.append(added)
        chosen = choose_merge(sizes, fan_in, cap)
        if chosen:
            merged = sum(sizes[i] for i in chosen)
            sizes = [s for i, s in enumerate(sizes) if i not in chosen] + [merged]
            rewritten += merged
            largest = max(largest, merged)
    return sizes, rewritten, largest


def test_a_crawl_of_commits_leaves_few_segments() -> None:
    rng = random.Random(3)
    commits = [rng.choice([200, 200, 200, 150, 40, 900]) for _ in range(500)]  # ~100,000 docs
    sizes, rewritten, largest = simulate(commits, fan_in=8, cap=150_000)
    total = sum(commits)
    assert sum(sizes) == total
    tiers = math.ceil(math.log(total, 8))
    assert len(sizes) <= 7 * tiers  # at most fan_in - 1 per tier
    assert len(sizes) <= 20
    assert largest <= 150_000
    assert rewritten / total <= tiers  # each document rewritten about once a tier


def test_segments_at_the_cap_are_left_alone() -> None:
    sizes, _rewritten, largest = simulate([10_000] * 40, fan_in=4, cap=25_000)
    assert largest <= 25_000
    assert sum(sizes) == 400_000
    assert all(size >= 10_000 for size in sizes)


def test_nothing_to_merge_below_fan_in() -> None:
    assert choose_merge([200] * 7, 8, 150_000) == []
    assert sorted(choose_merge([200] * 8, 8, 150_000)) == list(range(8))
    assert choose_merge([100_000] * 8, 8, 150_000) == []
