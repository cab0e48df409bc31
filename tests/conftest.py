"""Shared test settings.

Hypothesis runs derandomized (a fixed seed derived from each test) so that CI is
repeatable, with no per-example deadline: the budget per test is set by its own
``max_examples`` (the default, 100, where a test does not say).
"""

from __future__ import annotations

from hypothesis import HealthCheck, settings

settings.register_profile(
    "osdoctor",
    derandomize=True,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("osdoctor")
