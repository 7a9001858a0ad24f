"""A page's change frequency in one byte, from its observed history (WebFountain section 4).

WebFountain keeps, per page, a bucket (at most 256 of them) for how often it
changes; the recrawl schedule and the optimisation model work per bucket. Here a
bucket is a change *interval* on a log scale, in real seconds:

    bucket 0        unknown: fewer than two fetches, nothing observed yet
    bucket b >= 1   a change about every 2 ** ((b - 1) / STEPS_PER_OCTAVE) seconds

so bucket 1 is one second, 101 about 17 minutes, 161 about 18 hours, 201 about 12 days
and 255 about 1.4 years (the paper's span: minutes to a year, with room either side, since the
crawler does not know how fast a test web's clock runs).

The rate comes from the history by the estimator of Cho and Garcia-Molina (2003)
for a Poisson process seen at equal intervals I: of n recrawls, X saw a change,

    rate = -ln((n - X + 0.5) / (n + 1)) / I

which, unlike X / (n I), does not stop at one change per visit when a page changes
faster than it is visited, and for X = 0 gives about 1 / (2 n I): a page never seen
to change is thought to change about twice as slowly as the whole span observed.

Recrawls are not equally spaced (the allocation moves, probes are short: policies.py),
and a page that changed within a short recrawl is fast, whatever its long ones said. So
the rate is the same estimator's irregular-interval form: the maximum of the Poisson
likelihood of what was seen,

    sum over changed recrawls of ln(1 - exp(-rate t_i)) - rate U,

plus Cho and Garcia-Molina's half-changed pseudo-recrawl (their +0.5), here of the
length J of the shortest changed recrawl, which makes it theirs exactly when the
intervals are equal. Three numbers per page keep it (`History`): the changed recrawls'
total length, the shortest of them, and the span (U is the span less the changed
total); the changed recrawls other than the shortest are taken as equally long. A page
never seen to change gets the equal-interval form above (X = 0) over its whole span.

When the page's Last-Modified can be trusted (lastmod.py) the history also carries the age of
the last change at each changed recrawl, and the rate is Cho and Garcia-Molina's estimator for
known change times instead: X / (sum of the ages + the unchanged recrawls' seconds). Dates
not yet tested by a recrawl that saw no change (every recrawl so far saw one) only slow the
estimate: the slower of the two. A clock or counter line moves Last-Modified on every answer,
so on a page changing at every recrawl it passes lastmod.py's checks while dating the clock's
tick, not the content's change: ages of a second or two, a page of 30 s estimated at 10 s and
given up on. Such a line only ever makes a date younger, never older.

Certainty grows with history: an estimate from n recrawls has a relative error of
about 1 / sqrt(n), so the bucket is rounded to a grid whose step is that error in
octaves, `resolution(n)`: two octaves after one recrawl, one after four, a tenth of
an octave (the finest) after about four hundred. A page keeps a coarse bucket until
its history can tell the finer ones apart.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

STEPS_PER_OCTAVE = 10
UNKNOWN = 0
FASTEST, SLOWEST = 1, 255
_BISECTIONS = 80  # halvings of the log(rate) bracket: far below a bucket's width


@dataclass(frozen=True, slots=True)
class Prior:
    """A change rate believed before the page's own history (its server's, its sitemap
    changefreq's: priors.py), worth `weight` of the page's own recrawls: a Gamma prior of mode
    `rate` whose pseudo-exposure is `weight` of the page's mean recrawl intervals, so that it
    matters after one recrawl and fades as n / (n + weight) of the evidence is the page's.
    The pseudo-exposure is at most `weight` / `rate` (the prior worth at most `weight`
    changes): a history dated back by an old Last-Modified (recrawler._history_after) has
    one "interval" of months, and a prior worth months of its rate would outweigh the page's
    own months unchanged (it halved the rate of a page unchanged for a year, whatever the year
    said)."""

    rate: float  # changes a second
    weight: float = 1.0


@dataclass(frozen=True, slots=True)
class History:
    """What a document's row says of its past: fetches, non-trivial changes seen, and the time
    between its first and last fetch."""

    fetches: int
    changes: int
    span: float  # seconds from the first fetch to the last
    changed_span: float = 0.0  # seconds of the recrawls that saw a change (0: not kept)
    shortest_change: float | None = None  # the shortest of them
    change_ages: float | None = None  # sum of the last change's age at each changed recrawl,
    #                                   from a trusted Last-Modified (None: not trusted / not kept)
    prior: Prior | None = None  # what the page's server and sitemap say before its own history
    dates_vouched: bool = False  # its server's dates passed every test (lastmod.ServerDates)

    def changed_intervals(self) -> tuple[float, float]:
        """(shortest changed recrawl, mean length of the other changed ones); equal intervals
        when the irregular figures were not kept (a history older than them)."""
        n, changes = self.recrawls, min(self.changes, self.recrawls)
        if self.changed_span <= 0 or not self.shortest_change or self.changed_span > self.span * 1.001:
            return self.span / n, self.span / n
        shortest = min(self.shortest_change, self.changed_span)
        rest = (self.changed_span - shortest) / (changes - 1) if changes > 1 else shortest
        return shortest, max(rest, shortest)

    def after(self, gap: float, changed: bool, ages: float | None) -> History:
        """This history with one more recrawl, `gap` seconds after the last fetch, that saw a
        real change or not; `ages`: the trusted sum of ages after it (lastmod.ages_after)."""
        changed_span, shortest = self.changed_span, self.shortest_change
        if changed and gap > 0:
            changed_span += gap
            shortest = gap if shortest is None else min(shortest, gap)
        return History(self.fetches + 1, self.changes + changed, self.span + gap, changed_span,
                       shortest, ages, self.prior, self.dates_vouched)

    @property
    def recrawls(self) -> int:
        return max(0, self.fetches - 1)


def change_rate(history: History) -> float | None:
    """Estimated non-trivial changes per second, or None before any recrawl (the prior's rate,
    when the page has one): the likelihood's maximum (module docstring) times the prior's,
    by bisection on its slope in log(rate)."""
    n, prior = history.recrawls, history.prior
    if n == 0 or history.span <= 0:
        return prior.rate if prior is not None else None
    changes = min(history.changes, n)
    # the prior as a Gamma(1 + w l0 I, w I) density: pseudo-exposure w mean intervals I,
    # at most w / l0 (Prior)
    exposure = prior.weight * min(history.span / n, 1.0 / prior.rate) if prior is not None else 0.0
    pseudo = exposure * prior.rate if prior is not None else 0.0
    dated = _dated_rate(history, changes, pseudo, exposure)
    if dated is not None and (changes < n or history.dates_vouched):
        return dated
    shingled = _interval_rate(history, n, changes, pseudo, exposure)
    # dates never tested by an unchanged recrawl may be a clock line's (unless the page's server
    # vouches for them: lastmod.py): trusted only to slow
    return shingled if dated is None else min(dated, shingled)


def _interval_rate(history: History, n: int, changes: int, pseudo: float, exposure: float) -> float:
    """The irregular-interval estimate from what the shingles saw (module docstring), with the
    prior's pseudo-changes and pseudo-exposure."""
    prior = history.prior
    if changes == 0 and prior is None:  # all unchanged: the pseudo-recrawl alone, over the mean interval
        return -math.log((n + 0.5) / (n + 1)) / (history.span / n)
    # Cho and Garcia-Molina's half-changed pseudo-recrawl (of the shortest changed recrawl, or
    # of the mean one), which keeps the estimate finite; a prior does that in its place
    half = 0.0 if prior is not None else 0.5
    if changes == 0:
        shortest = rest = history.span / n
        unchanged, weights = history.span, (half, 0.0)
    else:
        shortest, rest = history.changed_intervals()
        unchanged = max(0.0, history.span - shortest - rest * (changes - 1))
        weights = (1.0 + half, changes - 1.0)

    def slope(rate: float) -> float:  # d/d rate of the log-posterior: falls from +inf to < 0
        return (weights[0] * _hazard(rate, shortest) + weights[1] * _hazard(rate, rest)
                - unchanged - half * shortest + pseudo / rate - exposure)

    low, high = -60.0, 30.0  # log(rate): e^-60 .. e^30 changes a second
    for _ in range(_BISECTIONS):
        mid = 0.5 * (low + high)
        low, high = (mid, high) if slope(math.exp(mid)) > 0 else (low, mid)
    return math.exp(0.5 * (low + high))


def _dated_rate(history: History, changes: int, pseudo: float = 0.0,
                prior_exposure: float = 0.0) -> float | None:
    """Cho and Garcia-Molina's (2003) estimator when the last change's time is known: each
    changed recrawl saw its last change a_i seconds before the fetch (density rate e^(-rate a_i)),
    each unchanged one none in its I_j seconds (e^(-rate I_j)), so the MLE is
    X / (sum a_i + sum I_j); with the prior's pseudo-changes and pseudo-exposure added, its
    posterior mode. None when the ages are not trusted or nothing changed yet."""
    ages = history.change_ages
    if ages is None or changes == 0 or history.changed_span <= 0:
        return None
    exposure = ages + max(0.0, history.span - history.changed_span) + prior_exposure
    return (changes + pseudo) / exposure if exposure > 0 else None


def _hazard(rate: float, interval: float) -> float:
    """d/d rate of ln(1 - exp(-rate t)): t / (exp(rate t) - 1)."""
    x = rate * interval
    return interval / math.expm1(x) if x < 700 else 0.0


def resolution(recrawls: int) -> int:
    """The bucket grid's step after `recrawls` recrawls: coarse first, finer with history."""
    return max(1, round(2 * STEPS_PER_OCTAVE / math.sqrt(max(1, recrawls))))


def bucket_of_interval(seconds: float, step: int = 1) -> int:
    """The bucket of a change interval, on the grid of `step` buckets."""
    raw = STEPS_PER_OCTAVE * math.log2(max(1.0, seconds))
    return min(SLOWEST, max(FASTEST, FASTEST + step * round(raw / step)))


def interval_of_bucket(bucket: int) -> float | None:
    """Seconds between changes a bucket stands for (None for the unknown bucket)."""
    if bucket == UNKNOWN:
        return None
    return 2.0 ** ((bucket - FASTEST) / STEPS_PER_OCTAVE)


def bucket(history: History) -> int:
    """The one-byte change bucket of a document's history (a page with a prior but no recrawl
    yet: the prior's, on the coarsest grid)."""
    rate = change_rate(history)
    if rate is None:
        return UNKNOWN
    interval = 1.0 / rate if rate > 0 else float("inf")
    return bucket_of_interval(min(interval, 2.0 ** 30), resolution(history.recrawls))
