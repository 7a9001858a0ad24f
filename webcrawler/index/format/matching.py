"""A fix to Whoosh's matchers, kept with the other code that knows their insides.

`words/query.py` builds queries with `Require` (phrases, the site and filters required, the
words scored); Whoosh's own asserts on a quality skip in whoosh-reloaded 2.7.5.
"""

from __future__ import annotations

from typing import Any

from whoosh import query as wq
from whoosh.matching import RequireMatcher


class AlignedRequireMatcher(RequireMatcher):
    """Whoosh's RequireMatcher asserts when a quality skip lands both children on one
    document (whoosh-reloaded 2.7.5); re-align only when they differ."""

    def skip_to_quality(self, minquality: float) -> int:
        skipped = self.a.skip_to_quality(minquality)
        if self.a.is_active() and self.b.is_active() and self.a.id() != self.b.id():
            self.child._find_next()
        return skipped


class Require(wq.Require):
    """`wq.Require` whose matcher is `AlignedRequireMatcher`: `a` scored, `b` only required."""

    matcherclass = AlignedRequireMatcher

    def matcher(self, searcher: Any, context: Any = None) -> AlignedRequireMatcher:
        scored = self.a.matcher(searcher, context)
        return AlignedRequireMatcher(scored, self.b.matcher(searcher, searcher.boolean_context()))
