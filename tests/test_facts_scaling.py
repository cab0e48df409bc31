"""The facts of a run cost work linear in its failed requests, counted, not timed.

Every failed exchange is judged once, from the end of the run; a check that
looked back over the exchanges for each failure would make a long run of
retries or lookups quadratic. The runs are those of benchmarks/bench_facts.py
(which prints the times); here the Python calls ``facts_of`` makes are counted
for a run and for one four times as long: four times the calls, not sixteen.
A loop written in Python shows in the count (each generator step, each
property read is a call); work hidden inside one builtin call (a membership
test on a list) does not, and is what the benchmark's figures are for.
"""

from __future__ import annotations

import pytest

from benchmarks.bench_facts import KINDS, calls_of, run_of
from osdoctor.facts import facts_of


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_calls_grow_linearly_with_the_failed_requests(kind: str) -> None:
    small, large = calls_of(run_of(kind, 500)), calls_of(run_of(kind, 2000))
    assert large <= 4 * small + 200, (small, large)
    # And a budget: a few dozen calls per request, whatever the kind.
    assert large <= 40 * 2000


def test_the_runs_fail_as_their_kind_says() -> None:
    """The benchmark's runs are what they claim: the failures before the last are
    recovered from, so every one of them was judged."""
    facts = facts_of(run_of("lookups", 100))
    assert facts.failure is not None and facts.failure.path == "/flavors/missing"
    assert len(facts.recovered) == 50
    mixed = facts_of(run_of("mixed", 100))
    assert mixed.failure is not None and mixed.failure.transport is not None
    assert mixed.failure.transport.kind == "hung"
